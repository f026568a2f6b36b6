/**
 * Start-up: each component started as its Deployment starts it (the Node flags and environment
 * of cmd/<name>/node-flags.ts, the same kind of arguments: leader election on, a serving
 * certificate, the HTTPS metrics server, the catalogd CA for operator-controller) on the real
 * control plane of olm-stack.ts, several times, interleaved. Figures, from spawn:
 * - catalogd restart on stored content (the 31 MB generated catalog) -> `/api/v1/all` 200, and
 *   then on to `/readyz` 200 (its control part loaded, its informer synced);
 * - catalogd with an empty store and a ClusterCatalog -> its first registry request (a TCP
 *   relay in front of the registry records it: the pull, and so the ingest, begins);
 * - operator-controller -> `/readyz` 200 (its informers synced, docs/operations.md);
 * - `olmv1 --help` and `olmv1 catalog validate` of a one-package catalog -> exit;
 * - with `OLMV1_BENCH_UPSTREAM_CATALOGD` (bench/lib/upstream-catalogd.ts), upstream's storage
 *   server restarting on the same catalog stored by it -> `/api/v1/all` 200, in the same rounds;
 *   with `OLMV1_BENCH_UPSTREAM_OPERATOR_CONTROLLER` (bench/lib/upstream-operator-controller.ts),
 *   upstream's operator-controller -> `/readyz` 200 (which upstream passes once its probe server
 *   listens: a ping, no informer sync);
 * and the floor under them: `node -e ''` with the same flags, node loading only the libraries
 * the components import (pino, prom-client, zod, js-yaml), and node loading each component's
 * modules with its caches and exiting, as it runs them (its bundle with the code cache the
 * component wrote, or tsc's modules unbundled): those it loads before it serves or is ready,
 * and all of them.
 * Each component keeps one cache directory across the rounds (holding Node's compile cache,
 * decision 0097, and the code cache of its bundle, decision 0147: the components run bundled as
 * in the image, bench/lib/runtime.ts), without either before the first round: the first round is a pod's
 * first start, the later ones container restarts; rows are the median of the later. The
 * catalogd that ingests has its store emptied before each round.
 *
 * Targets (issue 30): catalogd restart -> serving <= 150 ms; operator-controller -> ready
 * <= 250 ms.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { loadCatalogdModules } from '../../cmd/catalogd/start.ts';
import type { loadOperatorControllerModules } from '../../cmd/operator-controller/start.ts';
import { CATALOGD_ENVIRONMENT, CATALOGD_NODE_FLAGS } from '../../cmd/shared/node-flags.ts';
import { OPERATOR_CONTROLLER_ENVIRONMENT, OPERATOR_CONTROLLER_NODE_FLAGS } from '../../cmd/operator-controller/node-flags.ts';
import { createCertificateAuthority, freePorts, issueCertificate } from '../../test/envtest/index.ts';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { loadAverage } from '../lib/machine.ts';
import { startOlmStack } from '../lib/olm-stack.ts';
import { atMost, measure, type Measurement } from '../lib/report.ts';
import { cpuMs, startNode, startRelay, timeToExit, timeToOk } from '../lib/startup-runs.ts';
import { round, summarize } from '../lib/stats.ts';
import { prepareUpstreamRestart, upstreamCatalogdBinary } from '../lib/upstream-catalogd.ts';
import { prepareUpstreamOperatorController, upstreamOperatorControllerBinary } from '../lib/upstream-operator-controller.ts';

const ROUNDS = Number(process.env['OLMV1_BENCH_STARTUP_ROUNDS'] ?? 8);
const LIBRARIES = ['pino', 'prom-client', 'zod', 'js-yaml'];
const CATALOG = 'startup';
/** The bundle's export that loads a component's modules without running them (cmd/<name>/start.ts). */
type ModuleLoader = (typeof loadCatalogdModules | typeof loadOperatorControllerModules)['name'];
const MODULE_LOADERS: Readonly<Record<'catalogd' | 'operator-controller', ModuleLoader>> = {
  catalogd: 'loadCatalogdModules',
  'operator-controller': 'loadOperatorControllerModules',
};
/** What each component loads before it serves (catalogd) or is ready (operator-controller); control.ts is the rest. */
const CATALOGD_SERVING = ['cmd/shared/main.ts', 'cmd/catalogd/options.ts', 'cmd/catalogd/run.ts'];
const OPERATOR_CONTROLLER_READY = ['cmd/shared/main.ts', 'cmd/operator-controller/options.ts', 'cmd/operator-controller/run.ts'];
const TINY_CATALOG = [
  { schema: 'olm.package', name: 'tiny', defaultChannel: 'stable' },
  { schema: 'olm.channel', package: 'tiny', name: 'stable', entries: [{ name: 'tiny.v1.0.0' }] },
  {
    schema: 'olm.bundle',
    package: 'tiny',
    name: 'tiny.v1.0.0',
    image: 'registry.test/tiny:v1.0.0',
    properties: [{ type: 'olm.package', value: { packageName: 'tiny', version: '1.0.0' } }],
  },
]
  .map((d) => JSON.stringify(d))
  .join('\n');

type Row =
  | 'node'
  | 'libraries'
  | 'catalogdServingModules'
  | 'catalogdModules'
  | 'catalogdRestart'
  | 'catalogdRestartReady'
  | 'catalogdIngest'
  | 'operatorControllerReadyModules'
  | 'operatorControllerModules'
  | 'operatorControllerReady'
  | 'olmv1Help'
  | 'olmv1Validate'
  | 'upstreamRestart'
  | 'upstreamOperatorControllerReady';

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const image = await ctx.fixtures.catalogImage();
  const stack = await startOlmStack({ runtime: ctx.runtime, workDir: ctx.workDir, log: ctx.log, env: process.env });
  const relay = await startRelay(image.registryHost);
  try {
    const certDir = join(ctx.workDir, 'certs');
    await mkdir(certDir, { recursive: true });
    const ca = await createCertificateAuthority(certDir, 'ca', 'bench-ca');
    const cert = await issueCertificate(ca, certDir, { name: 'serving', commonName: 'localhost', ipAddresses: ['127.0.0.1'], usage: 'server' });
    const env = (base: Readonly<Record<string, string>>): Record<string, string> => ({ ...base, POD_NAMESPACE: 'olmv1-system' });
    const ref = image.ref.replace(image.registryHost, relay.host);
    await stack.kube.client.create({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name: CATALOG },
      spec: { source: { type: 'Image', image: { ref } } },
    });

    const catalogd = async (cacheDir: string): Promise<{ p: ReturnType<typeof startNode>; allUrl: string; readyUrl: string }> => {
      const [serverPort = 0, healthPort = 0, metricsPort = 0, webhookPort = 0] = await freePorts(4);
      const args = [
        ctx.runtime.entry('cmd/catalogd/main.ts'),
        `--kubeconfig=${stack.cp.kubeconfigPath}`,
        `--cache-dir=${cacheDir}`,
        `--catalogs-server-addr=127.0.0.1:${serverPort}`,
        `--health-probe-bind-address=127.0.0.1:${healthPort}`,
        `--external-address=127.0.0.1:${serverPort}`,
        `--tls-cert=${cert.certPath}`,
        `--tls-key=${cert.keyPath}`,
        `--metrics-bind-address=127.0.0.1:${metricsPort}`,
        // Its name-label webhook, as shipped, on a port of its own: catalogds may run side by side.
        `--webhook-server-port=${webhookPort}`,
        '--insecure-registry=127.0.0.1',
      ];
      const p = startNode(args, { execArgv: CATALOGD_NODE_FLAGS, env: env(CATALOGD_ENVIRONMENT) });
      return { p, allUrl: `https://127.0.0.1:${serverPort}/catalogs/${CATALOG}/api/v1/all`, readyUrl: `http://127.0.0.1:${healthPort}/readyz` };
    };

    const stored = join(ctx.workDir, 'catalogd-stored');
    await mkdir(stored, { recursive: true });
    ctx.log('storing the catalog once (catalogd with an empty store, until it serves)');
    {
      const first = await catalogd(stored);
      try {
        await timeToOk(first.p, first.allUrl, 180_000);
      } finally {
        await first.p.stop();
      }
    }
    // Each cache directory starts without a compile cache: the first round is a pod's first start.
    await rm(join(stored, 'compile-cache'), { recursive: true, force: true });
    const empty = join(ctx.workDir, 'catalogd-empty');
    const ocCache = join(ctx.workDir, 'operator-controller');
    await mkdir(ocCache);
    const upstreamBinary = upstreamCatalogdBinary();
    const upstream =
      upstreamBinary === undefined ? undefined : await prepareUpstreamRestart(upstreamBinary, (await ctx.fixtures.catalog()).dir, CATALOG, ctx);
    const upstreamOcBinary = upstreamOperatorControllerBinary();
    const upstreamOc =
      upstreamOcBinary === undefined
        ? undefined
        : await prepareUpstreamOperatorController({ binary: upstreamOcBinary, cp: stack.cp, workDir: ctx.workDir, cert, caCertPath: ca.certPath });

    const tinyCatalog = join(ctx.workDir, 'tiny-catalog');
    await mkdir(join(tinyCatalog, 'tiny'), { recursive: true });
    await writeFile(join(tinyCatalog, 'tiny', 'catalog.json'), TINY_CATALOG);
    // `node -e` loading a component's modules with its compile cache (in the cache directory it
    // runs with), then exiting. Bundled (as the image and these runs start them, decision 0147):
    // its bundle through the bundle loader with the code cache the component wrote, and the
    // modules loaded from the bundle (the code cache is only read); else tsc's modules.
    const loading = (cacheDir: string, component: 'catalogd' | 'operator-controller', files: readonly string[]): string[] => {
      const all = files.some((f) => f.endsWith('/control.ts'));
      const bundle = ctx.runtime.entry(`cmd/${component}/start.cjs`);
      const load = existsSync(bundle)
        ? `const { codeCacheFile, loadBundle } = await import(${JSON.stringify(pathToFileURL(ctx.runtime.entry('cmd/shared/bundle-loader.ts')).href)});
const { exports } = loadBundle(${JSON.stringify(bundle)}, codeCacheFile(${JSON.stringify(cacheDir)}, ${JSON.stringify(bundle)}));
await exports[${JSON.stringify(MODULE_LOADERS[component])}](${all});`
        : `await Promise.all(${JSON.stringify(files.map((f) => pathToFileURL(ctx.runtime.entry(f)).href))}.map((u) => import(u)));`;
      return [
        '--input-type=module',
        '-e',
        `import { enableCompileCache } from 'node:module';
enableCompileCache(${JSON.stringify(join(cacheDir, 'compile-cache'))});
${load}`,
      ];
    };
    const libs = LIBRARIES.map((l) => import.meta.resolve(l));
    const times: Record<Row, number[]> = {
      node: [],
      libraries: [],
      catalogdServingModules: [],
      catalogdModules: [],
      catalogdRestart: [],
      catalogdRestartReady: [],
      catalogdIngest: [],
      operatorControllerReadyModules: [],
      operatorControllerModules: [],
      operatorControllerReady: [],
      olmv1Help: [],
      olmv1Validate: [],
      upstreamRestart: [],
      upstreamOperatorControllerReady: [],
    };
    const flags = { execArgv: CATALOGD_NODE_FLAGS, env: env(CATALOGD_ENVIRONMENT) };
    const ocFlags = { execArgv: OPERATOR_CONTROLLER_NODE_FLAGS, env: env(OPERATOR_CONTROLLER_ENVIRONMENT) };
    const loads: number[] = [];
    // CPU time (ms) each process had used when the figure was taken: far less disturbed by other work than wall time.
    const cpu: Partial<Record<Row, number[]>> = {
      catalogdRestart: [],
      catalogdRestartReady: [],
      catalogdIngest: [],
      operatorControllerReady: [],
      ...(upstream === undefined ? {} : { upstreamRestart: [] }),
      ...(upstreamOc === undefined ? {} : { upstreamOperatorControllerReady: [] }),
    };
    const record = (row: Row, t: { ms: number; cpuMs: number }): void => {
      times[row].push(t.ms);
      cpu[row]?.push(t.cpuMs);
    };
    ctx.log(`${ROUNDS} interleaved rounds`);
    for (let r = 0; r < ROUNDS; r++) {
      loads.push(loadAverage()[0] ?? Number.NaN);
      times.node.push(await timeToExit(['-e', ''], flags));
      times.libraries.push(
        await timeToExit(['--input-type=module', '-e', `await Promise.all(${JSON.stringify(libs)}.map((u) => import(u)));`], flags),
      );
      times.catalogdServingModules.push(await timeToExit(loading(stored, 'catalogd', CATALOGD_SERVING), flags));
      times.catalogdModules.push(await timeToExit(loading(stored, 'catalogd', [...CATALOGD_SERVING, 'cmd/catalogd/control.ts']), flags));

      const restart = await catalogd(stored);
      try {
        record('catalogdRestart', await timeToOk(restart.p, restart.allUrl));
        record('catalogdRestartReady', await timeToOk(restart.p, restart.readyUrl));
      } finally {
        await restart.p.stop();
      }
      if (upstream !== undefined) {
        const p = upstream.start();
        try {
          record('upstreamRestart', await timeToOk(p, upstream.allUrl));
        } finally {
          await p.stop();
        }
      }

      // The store emptied, the compile cache kept: a container restart before the catalog was stored.
      for (const d of ['catalogs', 'unpack']) await rm(join(empty, d), { recursive: true, force: true });
      await mkdir(empty, { recursive: true });
      relay.reset();
      const fresh = await catalogd(empty);
      try {
        record('catalogdIngest', { ms: (await relay.first()) - fresh.p.t0, cpuMs: cpuMs(fresh.p) });
      } finally {
        await fresh.p.stop();
      }

      times.operatorControllerReadyModules.push(await timeToExit(loading(ocCache, 'operator-controller', OPERATOR_CONTROLLER_READY), ocFlags));
      times.operatorControllerModules.push(
        await timeToExit(loading(ocCache, 'operator-controller', [...OPERATOR_CONTROLLER_READY, 'cmd/operator-controller/control.ts']), ocFlags),
      );
      const [healthPort = 0, metricsPort = 0] = await freePorts(2);
      const oc = startNode(
        [
          ctx.runtime.entry('cmd/operator-controller/main.ts'),
          `--kubeconfig=${stack.cp.kubeconfigPath}`,
          `--cache-dir=${ocCache}`,
          `--health-probe-bind-address=127.0.0.1:${healthPort}`,
          '--leader-elect',
          `--tls-cert=${cert.certPath}`,
          `--tls-key=${cert.keyPath}`,
          `--metrics-bind-address=127.0.0.1:${metricsPort}`,
          `--catalogd-ca-file=${ca.certPath}`,
        ],
        ocFlags,
      );
      try {
        record('operatorControllerReady', await timeToOk(oc, `http://127.0.0.1:${healthPort}/readyz`));
      } finally {
        await oc.stop();
      }
      if (upstreamOc !== undefined) {
        const started = await upstreamOc.start();
        try {
          record('upstreamOperatorControllerReady', await timeToOk(started.p, started.readyUrl));
        } finally {
          await started.p.stop();
        }
      }

      times.olmv1Help.push(await timeToExit([ctx.runtime.entry('cmd/olmv1/main.ts'), '--help'], { execArgv: [] }));
      times.olmv1Validate.push(await timeToExit([ctx.runtime.entry('cmd/olmv1/main.ts'), 'catalog', 'validate', tinyCatalog], { execArgv: [] }));
    }
    return report(times, cpu, loads);
  } finally {
    await relay.close();
    await stack.stop();
  }
}

const CATALOGD_READY_METRIC = '  then on to /readyz 200 (control part loaded, informer synced)';
const OPERATOR_CONTROLLER_READY_METRIC = 'operator-controller start -> /readyz 200';

function report(times: Record<Row, number[]>, cpu: Partial<Record<Row, number[]>>, loads: number[]): BenchOutcome {
  const load = `1-min load ${Math.min(...loads)}-${Math.max(...loads)}`;
  // The first round starts with an empty compile cache (a pod's first start); the rest are restarts.
  const row = (metric: string, r: Row, target?: number): Measurement => {
    const [first = Number.NaN, ...rest] = times[r];
    const s = summarize(rest);
    const used = cpu[r]?.slice(1);
    const cpuNote = used === undefined ? '' : `; CPU ${round(summarize(used).p50, 0)} ms (median)`;
    return measure(
      metric,
      s.p50,
      'ms',
      target === undefined ? undefined : atMost(target),
      `median of ${s.n}; min ${round(s.min, 0)}, max ${round(s.max, 0)}${cpuNote}; first round ${round(first, 0)}; ${load}`,
    );
  };
  const measurements = [
    row('catalogd restart on stored content -> /api/v1/all 200', 'catalogdRestart', 150),
    row(CATALOGD_READY_METRIC, 'catalogdRestartReady'),
    row('catalogd start, empty store -> first registry request (ingest begins)', 'catalogdIngest'),
    row(OPERATOR_CONTROLLER_READY_METRIC, 'operatorControllerReady', 250),
    row('olmv1 --help -> exit', 'olmv1Help'),
    row('olmv1 catalog validate (one package) -> exit', 'olmv1Validate'),
    row("  floor: node -e '' with the components' flags -> exit", 'node'),
    row(`  floor: node importing ${LIBRARIES.join(', ')} -> exit`, 'libraries'),
    row('  floor: node loading what catalogd loads before it serves -> exit', 'catalogdServingModules'),
    row('  floor: node loading all of catalogd (control part too) -> exit', 'catalogdModules'),
    row('  floor: node loading what operator-controller loads before it is ready -> exit', 'operatorControllerReadyModules'),
    row('  floor: node loading all of operator-controller -> exit', 'operatorControllerModules'),
  ];
  // Upstream's figure from the same rounds, placed after `afterMetric`, with ours / upstream.
  const beside = (theirs: Row, metric: string, ours: Row, label: string, afterMetric: string): void => {
    if (times[theirs].length === 0) return;
    const m = row(metric, theirs);
    const ratio = round(summarize(times[ours].slice(1)).p50 / summarize(times[theirs].slice(1)).p50, 2);
    const at = measurements.findIndex((x) => x.metric === afterMetric) + 1;
    measurements.splice(at, 0, { ...m, note: `${m.note ?? ''}; ${label} / upstream ${ratio}x, same rounds` });
  };
  beside(
    'upstreamRestart',
    "upstream's storage server restart on stored content -> /api/v1/all 200 (plain HTTP)",
    'catalogdRestart',
    'catalogd',
    CATALOGD_READY_METRIC,
  );
  beside(
    'upstreamOperatorControllerReady',
    "upstream's operator-controller start -> /readyz 200 (a ping: no informer sync)",
    'operatorControllerReady',
    'operator-controller',
    OPERATOR_CONTROLLER_READY_METRIC,
  );
  const rounded = (t: Partial<Record<Row, number[]>>): Record<string, number[]> =>
    Object.fromEntries(Object.entries(t).map(([k, v]) => [k, v.map((x) => round(x, 1))]));
  return { measurements, details: { rounds: ROUNDS, loads, times: rounded(times), cpuMs: rounded(cpu) } };
}

export const startupBenchmark: Benchmark = {
  name: 'startup',
  title: 'catalogd, operator-controller and olmv1 start-up, with the floor (Node, libraries, entry modules)',
  run,
};
