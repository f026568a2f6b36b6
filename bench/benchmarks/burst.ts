/**
 * Fairness under a burst of installs (issue 60): EXTENSIONS ClusterExtensions, each its own
 * package from one ClusterCatalog (a CRD, a Deployment, cluster RBAC: test/support/bundle-gen.ts),
 * in one `kubectl apply`; each one's time from the apply to Installed=True as its bundle (the
 * bench's informer, bench/lib/scale-runs.ts). The figures are the slowest install, p50 and p90,
 * ours and, when OLMV1_BENCH_UPSTREAM_OPERATOR_CONTROLLER names its binary
 * (bench/lib/upstream-operator-controller.ts), upstream's on the same control plane, each alone
 * on it with packages and a ClusterCatalog of its own (upstream's installers also bound to
 * cluster-admin, as in `requests`), ours first.
 *
 * Bundles are pulled through a proxy that holds each registry request PULL_DELAY_MS
 * (bench/lib/slow-registry.ts): a bundle pull then takes seconds, as from a remote registry,
 * where the loopback registry answers in milliseconds (0: pulled from it directly).
 *
 * Ours runs with `--log-level debug`: its log says, per reconcile, the wait in the queue, each
 * step's time and how it ended, and when each background pull started and ended
 * (bench/lib/burst-trace.ts); the rows' notes and the details say where the slowest
 * extensions' time went. Environment: OLMV1_BENCH_BURST_EXTENSIONS (default 50),
 * OLMV1_BENCH_BURST_WORKERS=N passes `--max-concurrent-reconciles N` to ours (default: none,
 * operator-controller's 8), OLMV1_BENCH_BURST_PULL_DELAY_MS (default 500),
 * OLMV1_BENCH_BURST_LOG=FILE keeps a copy of ours' log.
 */
import { closeSync, openSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { breakdown, traceBurst, type InstallBreakdown } from '../lib/burst-trace.ts';
import {
  type PushedBundle,
  benchImageClient,
  clusterExtension,
  createCatalog,
  createInstaller,
  pushCatalog,
  pushGeneratedBundle,
} from '../lib/extension-bundles.ts';
import { type OlmStack, startOlmStack } from '../lib/olm-stack.ts';
import { atMost, measure, type Measurement } from '../lib/report.ts';
import { type SlowRegistry, startSlowRegistry } from '../lib/slow-registry.ts';
import { type ClusterWatch, deleteAllExtensions, eachLimited, installRun, watchCluster } from '../lib/scale-runs.ts';
import { round, summarize } from '../lib/stats.ts';
import { startUpstreamOperatorController, upstreamOperatorControllerBinary } from '../lib/upstream-operator-controller.ts';
import { EXTENSION_CONTROLLER_NAME } from '../../pkg/operator-controller/clusterextension/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';

const EXTENSIONS = Number(process.env['OLMV1_BENCH_BURST_EXTENSIONS'] ?? 50);
const WORKERS = process.env['OLMV1_BENCH_BURST_WORKERS'];
const PULL_DELAY_MS = Number(process.env['OLMV1_BENCH_BURST_PULL_DELAY_MS'] ?? 500);
const TIMEOUT_MS = 600_000;
const SA = 'installer';

/** One controller's packages (version 1.0.0 each) in a ClusterCatalog of its own. */
async function publish(ctx: BenchContext, stack: OlmStack, pullFrom: string, controller: string, n: number): Promise<PushedBundle[]> {
  const images = benchImageClient();
  try {
    const root = join(ctx.workDir, `bundles-${controller}`);
    const pkgs = Array.from({ length: n }, (_, i) => `burst-${controller}-${String(i).padStart(3, '0')}`);
    const bundles: PushedBundle[] = [];
    await eachLimited(pkgs, 8, async (pkg) => bundles.push(await pushGeneratedBundle(images, stack.registry, root, pkg, ['widgets'])));
    bundles.sort((a, b) => a.pkg.localeCompare(b.pkg));
    // Pushed to the registry, pulled from `pullFrom` (the slow proxy in front of it).
    for (const b of bundles) b.image = b.image.replace(stack.registry, pullFrom);
    const catalog = `burst-${controller}`;
    const ref = `${stack.registry}/bench-catalogs/${catalog}:v1`;
    const digest = await pushCatalog(images, join(ctx.workDir, catalog), ref, bundles);
    await createCatalog(stack.kube.client, catalog, ref, digest);
    await eachLimited(bundles, 16, (b) => createInstaller(stack.kube.client, b, b.pkg, SA));
    if (controller === 'upstream')
      await stack.kube.client.apply(clusterAdmins(`${catalog}-installers`, pkgs), { fieldManager: 'olmv1-bench', force: true });
    return bundles;
  } finally {
    images.close();
  }
}

/** Upstream's Helm creates and updates where ours applies: its installers may do anything (as in `requests`). */
function clusterAdmins(name: string, namespaces: readonly string[]): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: namespaces.map((namespace) => ({ kind: 'ServiceAccount', name: SA, namespace })),
  } as KubeObject;
}

/** Every extension's install time (ms from the apply), by name. */
async function burst(ctx: BenchContext, stack: OlmStack, watch: ClusterWatch, controller: string, bundles: readonly PushedBundle[]) {
  const originMs = Date.now();
  const run = await installRun(stack, watch, {
    manifests: bundles.map((b) => clusterExtension(b.pkg, b, b.pkg, SA)),
    bundles: new Map(bundles.map((b) => [b.pkg, b.name])),
    file: join(ctx.workDir, `${controller}-burst.yaml`),
    timeoutMs: TIMEOUT_MS,
  });
  const each = new Map(bundles.map((b, i) => [b.pkg, run.eachMs[i] ?? Number.NaN]));
  ctx.log(`${controller}: ${bundles.length} installed, the last after ${Math.round(run.allMs)} ms`);
  await deleteAllExtensions(stack, watch, TIMEOUT_MS);
  return { each, originMs, kubectlMs: run.kubectlMs };
}

const seconds = (ms: number): number => round(ms / 1000, 1);

function rows(who: string, each: ReadonlyMap<string, number>, theirs?: ReadonlyMap<string, number>, note?: string): Measurement[] {
  const s = summarize([...each.values()]);
  const t = theirs === undefined ? undefined : summarize([...theirs.values()]);
  return [
    measure(
      `${who}: slowest of ${each.size} installs applied at once`,
      s.max / 1000,
      's',
      t === undefined ? undefined : atMost(round(t.max / 1000, 1)),
      note,
    ),
    measure(`${who}: p50 / p90 install`, s.p50 / 1000, 's', undefined, `p90 ${seconds(s.p90)} s, fastest ${seconds(s.min)} s`),
  ];
}

function describe(name: string, b: InstallBreakdown): string {
  const steps = Object.entries(b.steps)
    .filter(([, v]) => v >= 100)
    .sort((x, y) => y[1] - x[1])
    .map(([k, v]) => `${k} ${seconds(v)}`)
    .join(', ');
  const afterPull = Number.isNaN(b.afterPullMs) ? '' : `, pull end -> next reconcile ${seconds(b.afterPullMs)} s`;
  return `${name} ${seconds(b.installedMs)} s: ${b.reconciles} reconciles, queued ${seconds(b.queuedMs)} s, reconciling ${seconds(b.reconcilingMs)} s (${steps})${afterPull}`;
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const n = EXTENSIONS;
  const binary = upstreamOperatorControllerBinary();
  const stack = await startOlmStack({ runtime: ctx.runtime, workDir: ctx.workDir, log: ctx.log, env: process.env });
  let watch: ClusterWatch | undefined;
  let slow: SlowRegistry | undefined;
  try {
    await stack.startCatalogd();
    if (PULL_DELAY_MS > 0) slow = await startSlowRegistry(stack.registry, PULL_DELAY_MS);
    const pullFrom = slow?.host ?? stack.registry;
    ctx.log(`publishing ${n} packages per controller, their catalogs and installers; bundles pulled from ${pullFrom}, ${PULL_DELAY_MS} ms a request`);
    const ours = await publish(ctx, stack, pullFrom, 'ours', n);
    const upstreamBundles = binary === undefined ? undefined : await publish(ctx, stack, pullFrom, 'upstream', n);
    watch = await watchCluster(stack, 'olmv1-system');

    const logPath = join(ctx.workDir, 'operator-controller.log');
    const fd = openSync(logPath, 'w');
    const args = [
      '--log-level',
      'debug',
      '--zap-time-encoding',
      'millis',
      ...(WORKERS === undefined ? [] : ['--max-concurrent-reconciles', WORKERS]),
    ];
    let mine;
    try {
      const oc = await stack.startOperatorController(args, { stdout: fd });
      try {
        mine = await burst(ctx, stack, watch, 'ours', ours);
      } finally {
        await oc.child.stop();
      }
    } finally {
      closeSync(fd);
    }
    const logText = await readFile(logPath, 'utf8');
    const keep = process.env['OLMV1_BENCH_BURST_LOG'];
    if (keep !== undefined && keep !== '') await writeFile(keep, logText);
    const traces = traceBurst(logText, EXTENSION_CONTROLLER_NAME, new Set(mine.each.keys()), mine.originMs);
    const breakdowns = [...mine.each].map(([name, ms]) => ({ name, ...breakdown(traces.get(name), ms) }));
    breakdowns.sort((a, b) => b.installedMs - a.installedMs);
    for (const b of breakdowns.slice(0, 5)) ctx.log(`${describe(b.name, b)}\n    ${b.timeline}`);
    const reconciles = [...traces.values()].flatMap((t) => t.reconciles);
    const waits = summarize(reconciles.map((r) => r.queuedMs));

    let theirs: Map<string, number> | undefined;
    if (binary !== undefined && upstreamBundles !== undefined) {
      const up = await startUpstreamOperatorController(binary, stack.cp, ctx.workDir, pullFrom);
      try {
        theirs = (await burst(ctx, stack, watch, 'upstream', upstreamBundles)).each;
      } finally {
        await up.stop();
      }
    }
    const slowest = breakdowns[0];
    return {
      measurements: [
        ...rows('ours', mine.each, theirs, slowest === undefined ? undefined : describe(slowest.name, slowest)),
        measure(
          'ours: queue wait per reconcile during the burst',
          waits.p50,
          'ms',
          undefined,
          `median; p90 ${waits.p90} ms, longest ${waits.max} ms; ${reconciles.length} reconciles of ${n} extensions until all were installed and deleted`,
        ),
        ...(theirs === undefined ? [] : rows("upstream's", theirs)),
      ],
      details: {
        extensions: n,
        workers: WORKERS ?? 'default (8)',
        pullDelayMs: PULL_DELAY_MS,
        registryRequests: slow?.requests(),
        upstream: binary ?? 'not run (OLMV1_BENCH_UPSTREAM_OPERATOR_CONTROLLER unset)',
        oursMs: Object.fromEntries([...mine.each].map(([k, v]) => [k, Math.round(v)])),
        ...(theirs === undefined ? {} : { upstreamMs: Object.fromEntries([...theirs].map(([k, v]) => [k, Math.round(v)])) }),
        kubectlMs: Math.round(mine.kubectlMs),
        breakdowns: breakdowns.map((b) => ({ ...b, afterPullMs: Number.isNaN(b.afterPullMs) ? null : Math.round(b.afterPullMs) })),
      },
    };
  } finally {
    watch?.stop();
    await slow?.close();
    await stack.stop();
  }
}

/** A burst of installs applied at once: the slowest, p50 and p90, ours and upstream's. */
export const burstBenchmark: Benchmark = {
  name: 'burst',
  title: `${EXTENSIONS} ClusterExtensions applied at once: slowest install, p50, p90, ours and upstream's operator-controller (issue 60)`,
  run,
};
