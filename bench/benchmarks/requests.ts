/**
 * API requests per install and per upgrade, ours and upstream's operator-controller, by verb
 * and resource, from kube-apiserver's audit log (issue 49). One control plane with the audit
 * log on (bench/lib/olm-stack.ts), one catalogd; each controller gets EXTENSIONS packages of its
 * own (`req-<controller>-NNN`, versions 1.0.0 and 1.0.1, each its namespace, ServiceAccount and
 * the RBAC `olmv1 rbac` prints for both versions) in a ClusterCatalog of its own, so neither sees
 * the other's leftovers. In turn, ours and then upstream's (when
 * OLMV1_BENCH_UPSTREAM_OPERATOR_CONTROLLER names its binary, bench/lib/upstream-operator-controller.ts),
 * each alone on the cluster with leader election on:
 *
 * 1. install: all its ClusterExtensions in one `kubectl apply`, until every one is Installed=True
 *    and the controller has made no request but its Lease's for QUIET_MS;
 * 2. at rest for OLMV1_BENCH_REQUESTS_IDLE_SECONDS (default 60): the controller's CPU time
 *    (/proc/PID/stat) and requests;
 * 3. upgrade: its ClusterCatalog's image changed to one that adds 1.0.1 to every package, until
 *    every extension is Installed=True at 1.0.1 and quiet again;
 * 4. its extensions deleted and gone, the controller stopped.
 *
 * Requests are attributed as bench/lib/request-counts.ts explains (by ServiceAccount user and
 * user agent). The tables per controller are printed on stderr in markdown (for
 * bench/results/requests.md) and kept in the details; the rows are the totals per extension,
 * ours judged against upstream's. Environment: OLMV1_BENCH_REQUESTS_EXTENSIONS (default 50);
 * OLMV1_BENCH_REQUESTS_UPGRADE=0 skips phase 3 (for a run at 1,000, where upstream's upgrade
 * alone takes longer than the rest). A phase may take 10 minutes, or 1.2 s per extension.
 */
import { join } from 'node:path';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { createAuditLog, type AuditLog } from '../lib/audit-log.ts';
import {
  type PushedBundle,
  benchImageClient,
  clusterExtension,
  createCatalog,
  createInstaller,
  pushCatalog,
  pushGeneratedBundle,
} from '../lib/extension-bundles.ts';
import { isInstalledAs } from '../lib/extension-runs.ts';
import { type OlmStack, startOlmStack } from '../lib/olm-stack.ts';
import { type Attribution, type PhaseRequests, markdownTable, ours, untilQuiet, upstreams } from '../lib/request-counts.ts';
import {
  type ClusterWatch,
  controlPlaneProcesses,
  cpuMeter,
  deleteAllExtensions,
  eachLimited,
  installRun,
  stampFirst,
  watchCluster,
} from '../lib/scale-runs.ts';
import { sleep } from '../lib/http-load.ts';
import { atMost, measure, type Measurement } from '../lib/report.ts';
import { startUpstreamOperatorController, upstreamOperatorControllerBinary } from '../lib/upstream-operator-controller.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';

const EXTENSIONS = Number(process.env['OLMV1_BENCH_REQUESTS_EXTENSIONS'] ?? 50);
/** The window at rest after the install, in which the controller's CPU time is measured. */
const IDLE_MS = Number(process.env['OLMV1_BENCH_REQUESTS_IDLE_SECONDS'] ?? 60) * 1000;
/** No request but the Lease's for this long ends a phase. */
const QUIET_MS = 5_000;
const TIMEOUT_MS = Math.max(600_000, EXTENSIONS * 1_200);
const UPGRADE = process.env['OLMV1_BENCH_REQUESTS_UPGRADE'] !== '0';
const SA = 'installer';
const CATALOG = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog' };

/** One controller's packages: version 1.0.0 and 1.0.1 of each, its catalog's two images. */
interface Group {
  controller: string;
  catalog: string;
  v1: PushedBundle[];
  v2: PushedBundle[];
  update: { ref: string; digest: string };
}

async function publish(ctx: BenchContext, stack: OlmStack, controller: string, n: number): Promise<Group> {
  const images = benchImageClient();
  try {
    const root = join(ctx.workDir, `bundles-${controller}`);
    const pkgs = Array.from({ length: n }, (_, i) => `req-${controller}-${String(i).padStart(3, '0')}`);
    const pushed = new Map<string, PushedBundle>();
    const versions = pkgs.flatMap((pkg) => ['1.0.0', '1.0.1'].map((version) => ({ pkg, version })));
    await eachLimited(versions, 8, async ({ pkg, version }) =>
      pushed.set(`${pkg}@${version}`, await pushGeneratedBundle(images, stack.registry, root, pkg, ['widgets'], undefined, { version })),
    );
    const v1 = pkgs.map((pkg) => pushed.get(`${pkg}@1.0.0`) as PushedBundle);
    const v2 = pkgs.map((pkg) => pushed.get(`${pkg}@1.0.1`) as PushedBundle);
    const catalog = `requests-${controller}`;
    const repo = `${stack.registry}/bench-catalogs/${catalog}`;
    const first = await pushCatalog(images, join(ctx.workDir, `${catalog}-v1`), `${repo}:v1`, v1);
    const update = { ref: `${repo}:v2`, digest: await pushCatalog(images, join(ctx.workDir, `${catalog}-v2`), `${repo}:v2`, [...v1, ...v2]) };
    await createCatalog(stack.kube.client, catalog, `${repo}:v1`, first);
    await eachLimited(v1, 16, (b) => createInstaller(stack.kube.client, b, b.pkg, SA));
    await eachLimited(v2, 16, (b) => createInstaller(stack.kube.client, b, b.pkg, SA));
    // Upstream's Helm creates and updates objects where ours applies them: the RBAC `olmv1 rbac`
    // prints is not enough for it. Authorization costs no request, so its installers may do
    // anything; that changes none of the counts.
    if (controller === 'upstream')
      await stack.kube.client.apply(clusterAdmins(`${catalog}-installers`, pkgs), { fieldManager: 'olmv1-bench', force: true });
    return { controller, catalog, v1, v2, update };
  } finally {
    images.close();
  }
}

/** A ClusterRoleBinding of cluster-admin to ServiceAccount SA of each namespace in `namespaces`. */
function clusterAdmins(name: string, namespaces: readonly string[]): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: namespaces.map((namespace) => ({ kind: 'ServiceAccount', name: SA, namespace })),
  } as KubeObject;
}

/** What one controller cost: requests, wall time and CPU per phase. */
interface Phases {
  install: PhaseRequests & { allMs: number; cpu: Record<string, number> };
  /** Undefined when OLMV1_BENCH_REQUESTS_UPGRADE=0. */
  upgrade: (PhaseRequests & { allMs: number; cpu: Record<string, number> }) | undefined;
  /** At rest between the two: the controller's CPU seconds and requests (Lease included) over IDLE_MS. */
  idle: { cpuS: number; requests: number; seconds: number };
}

async function phases(
  ctx: BenchContext,
  stack: OlmStack,
  watch: ClusterWatch,
  audit: AuditLog,
  g: Group,
  pid: number,
  who: Attribution,
): Promise<Phases> {
  const n = g.v1.length;
  const groups = { controller: [pid], ...controlPlaneProcesses(stack) };
  const quiet = (offset: number, startMs: number): Promise<PhaseRequests> =>
    untilQuiet(audit, offset, who, { startMs, quietMs: QUIET_MS, timeoutMs: TIMEOUT_MS });

  let offset = await audit.offset();
  let startMs = Date.now();
  let cpu = cpuMeter(groups);
  const manifests = g.v1.map((b) => clusterExtension(b.pkg, b, b.pkg, SA));
  const run = await installRun(stack, watch, {
    manifests,
    bundles: new Map(g.v1.map((b) => [b.pkg, b.name])),
    file: join(ctx.workDir, `${g.controller}-install.yaml`),
    timeoutMs: TIMEOUT_MS,
  });
  const install = { ...(await quiet(offset, startMs)), allMs: run.allMs, cpu: cpu() };
  ctx.log(`${g.controller}: ${n} installed in ${Math.round(run.allMs)} ms, ${install.events.length} requests until quiet`);

  const idleOffset = await audit.offset();
  const idleCpu = cpuMeter({ controller: [pid] });
  const t0 = Date.now();
  await sleep(IDLE_MS);
  const idle = {
    cpuS: idleCpu()['controller'] ?? Number.NaN,
    seconds: (Date.now() - t0) / 1000,
    requests: (await audit.readSince(idleOffset, who)).length,
  };

  if (!UPGRADE) {
    await deleteAllExtensions(stack, watch, TIMEOUT_MS);
    return { install, upgrade: undefined, idle };
  }
  offset = await audit.offset();
  startMs = Date.now();
  cpu = cpuMeter(groups);
  const targets = new Map(g.v2.map((b) => [b.pkg, b.name]));
  const upgraded = stampFirst(
    watch.extensions,
    (o) => o.metadata.name,
    (o) => isInstalledAs(o, targets.get(o.metadata.name ?? '') ?? ''),
  );
  let allMs: number;
  try {
    const t0 = performance.now();
    await stack.kube.client.patch({ ...CATALOG, name: g.catalog }, { spec: { source: { image: { ref: g.update.ref } } } }, 'merge');
    await upgraded.all([...targets.keys()], TIMEOUT_MS, `${n} extensions upgraded`);
    allMs = Math.max(...[...upgraded.times.values()]) - t0;
  } finally {
    upgraded.stop();
  }
  const upgrade = { ...(await quiet(offset, startMs)), allMs, cpu: cpu() };
  ctx.log(`${g.controller}: ${n} upgraded ${Math.round(allMs)} ms after the catalog change, ${upgrade.events.length} requests until quiet`);
  await deleteAllExtensions(stack, watch, TIMEOUT_MS);
  return { install, upgrade, idle };
}

/** Upstream's operator-controller, started for the run, stopped by the returned function. */
const perExt = (p: PhaseRequests, n: number): number => p.events.length / n;
const cpuNote = (c: Record<string, number>): string =>
  Object.entries(c)
    .map(([k, v]) => `${k} ${Math.round(v * 10) / 10} s`)
    .join(', ');

function rows(name: string, p: Phases, n: number, upstream?: Phases): Measurement[] {
  const row = (phase: 'install' | 'upgrade'): Measurement[] => {
    const mine = p[phase];
    const theirs = upstream?.[phase];
    if (mine === undefined) return [];
    return [
      measure(
        `${name}: API requests per ${phase} (${n} extensions; Lease apart)`,
        perExt(mine, n),
        '',
        theirs === undefined ? undefined : atMost(perExt(theirs, n)),
        `${mine.events.length} in ${Math.round(mine.activeMs / 100) / 10} s (all ${phase === 'install' ? 'installed' : 'upgraded'} after ${Math.round(mine.allMs / 100) / 10} s); Lease ${mine.leases}; CPU ${cpuNote(mine.cpu)}; unattributed in the window: ${JSON.stringify(mine.others)}`,
      ),
    ];
  };
  const perMinute = (x: Phases): number => (x.idle.cpuS / x.idle.seconds) * 60;
  return [
    ...row('install'),
    ...row('upgrade'),
    measure(
      `${name}: controller CPU at rest with ${n} extensions`,
      perMinute(p),
      'CPU-s a minute',
      upstream === undefined ? undefined : atMost(perMinute(upstream)),
      `${Math.round(p.idle.cpuS * 100) / 100} s in ${Math.round(p.idle.seconds)} s after the install was quiet; ${p.idle.requests} requests (Lease included)`,
    ),
  ];
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const n = EXTENSIONS;
  const binary = upstreamOperatorControllerBinary();
  const audit = await createAuditLog(ctx.workDir);
  const stack = await startOlmStack({ runtime: ctx.runtime, workDir: ctx.workDir, log: ctx.log, env: process.env, apiServerExtraArgs: audit.args });
  let watch: ClusterWatch | undefined;
  try {
    await stack.startCatalogd();
    ctx.log(`publishing ${n} packages per controller (1.0.0 and 1.0.1), their catalogs and installers`);
    const oursGroup = await publish(ctx, stack, 'ours', n);
    const upstreamGroup = binary === undefined ? undefined : await publish(ctx, stack, 'upstream', n);
    watch = await watchCluster(stack, 'olmv1-system');
    const oc = await stack.startOperatorController(['--leader-elect=true']);
    const mine = await phases(ctx, stack, watch, audit, oursGroup, oc.child.pid, ours);
    await oc.child.stop();
    let theirs: Phases | undefined;
    if (binary !== undefined && upstreamGroup !== undefined) {
      const up = await startUpstreamOperatorController(binary, stack.cp, ctx.workDir, stack.registry);
      try {
        theirs = await phases(ctx, stack, watch, audit, upstreamGroup, up.pid, upstreams);
      } finally {
        await up.stop();
      }
    }
    const byPhase = (x: Phases): Record<string, PhaseRequests> => ({
      install: x.install,
      ...(x.upgrade === undefined ? {} : { upgrade: x.upgrade }),
    });
    const tables = [
      ...markdownTable('ours', byPhase(mine), n),
      ...(theirs === undefined ? [] : ['', ...markdownTable("upstream's", byPhase(theirs), n)]),
    ];
    for (const line of tables) ctx.log(line);
    return {
      measurements: [...rows('ours', mine, n, theirs), ...(theirs === undefined ? [] : rows("upstream's", theirs, n))],
      details: { extensions: n, tables, upstream: binary === undefined ? 'not run (OLMV1_BENCH_UPSTREAM_OPERATOR_CONTROLLER unset)' : binary },
    };
  } finally {
    watch?.stop();
    await stack.stop();
  }
}

/** Requests per install and per upgrade by verb and resource, ours and upstream's. */
export const requestsBenchmark: Benchmark = {
  name: 'requests',
  title: `API requests per install and per upgrade by verb and resource, ${EXTENSIONS} extensions, ours and upstream's operator-controller (audit log)`,
  run,
};
