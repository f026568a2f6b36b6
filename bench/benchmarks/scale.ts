/**
 * operator-controller with many extensions, on the real control plane (bench/lib/olm-stack.ts:
 * envtest's kube-apiserver + etcd and registry, catalogd and operator-controller as child
 * processes; operator-controller with leader election on, as deployed, and a cluster version,
 * as on OpenShift, so that the upgrade gate judges every extension). The cluster looks like a
 * real one: EXTENSIONS different packages from one ClusterCatalog (as operatorhub serves them),
 * each installed by its own ClusterExtension into its own namespace as its own ServiceAccount
 * with the RBAC `olmv1 rbac` prints for 1.0.0 (1.0.1's is granted before the catalog update, as
 * an administrator offering it would). The same package is not installed twice:
 * two extensions of one package would both own its CRDs, which is refused.
 *
 * 1. Installs: all extensions in one kubectl apply, timed until every one is Installed=True;
 *    a first run (CRDs created, images pulled), then, in turn, ROUNDS runs with three failing
 *    extensions applied first (a ServiceAccount without permissions, a bundle the API server
 *    rejects, a missing namespace; each must have reported its failure by the end) and ROUNDS
 *    runs without them, everything deleted in between. The healthy extensions' per-extension
 *    times with and without the failing ones are compared. With ROUNDS 0 the first install
 *    stays and is the only one.
 * 2. Steady state: with the extensions installed and operator-controller quiet, and SETTLE
 *    seconds later, its API requests (kube-apiserver audit log, by user agent and
 *    ServiceAccount users) and its CPU time (/proc/PID/stat) over STEADY_MS. The settling
 *    leaves out what the install leaves behind for a while (V8's collections of its garbage,
 *    the memory reducer's among them: bench/results/idle.md); upstream's figure at 1,000 was
 *    read 8 minutes after its last install.
 * 3. A catalog update: the ClusterCatalog's image reference is changed to an image that adds
 *    version 1.0.1 (replacing 1.0.0) to every package. Timed from when the ClusterCatalog serves
 *    the new digest, per extension: until the first release revision for 1.0.1 is recorded (the
 *    reconcile re-resolved it, and pulled, rendered and pre-authorized its bundle; our reconcile
 *    writes nothing earlier that names the new bundle) and until Installed=True at 1.0.1. Also:
 *    catalogd's requests (how often the new catalog was read), operator-controller's API
 *    requests (audit log) and the CPU time of each process meanwhile.
 *
 * Two sizes (targets in bench/lib/scale-report.ts): `scale`, 100 extensions and 2 rounds, and
 * `scale-1000`, 1,000 and no rounds (each round adds three installs and two deletions of 1,000).
 * Environment: OLMV1_BENCH_SCALE_EXTENSIONS (`scale` only), OLMV1_BENCH_SCALE_ROUNDS,
 * OLMV1_BENCH_SCALE_STEADY_SECONDS and OLMV1_BENCH_SCALE_SETTLE_SECONDS (default 0, but 480 in
 * `scale-10000`) change the size; OLMV1_BENCH_SCALE_CRDS=K gives a CRD to the
 * first K packages only (default: all, but 500 in `scale-10000`); OLMV1_BENCH_SCALE_POLICY=AutomaticPatch
 * annotates the healthy extensions with that update policy; OLMV1_BENCH_SCALE_WORKERS=N starts
 * operator-controller with `--max-concurrent-reconciles N`; OLMV1_BENCH_SCALE_PROFILE=FILE writes
 * a CPU profile of operator-controller during the catalog update (open it in DevTools),
 * OLMV1_BENCH_SCALE_IDLE_PROFILE=FILE one of the steady state (its sampling counts in that CPU row);
 * OLMV1_BENCH_SCALE_APISERVER_PROFILING=1 turns kube-apiserver's /debug/pprof/ on;
 * operator-controller runs in a memory cgroup as its container would (its heap is half of the
 * limit, decision 0098): the shipped Deployment's 512 MiB at 100 and 1,000, and at larger sizes
 * docs/operations.md's sizing (0.3 MiB an extension, in steps of 256 MiB: 3 GiB at 10,000);
 * OLMV1_BENCH_SCALE_MEMORY_LIMIT_MB=M sets M MiB, 0 none; OLMV1_BENCH_SCALE_WAIT_MINUTES=W bounds
 * each of `scale-10000`'s waits (install, upgrade) at W minutes instead of 60. An operator-controller that exits
 * (V8's heap exhausted, the kernel's OOM killer) fails the run at once, with its last stderr.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { byOperatorController, createAuditLog } from '../lib/audit-log.ts';
import { isLease } from '../lib/request-counts.ts';
import { CATALOG, FAULTS, type Published, SA, publish } from '../lib/scale-publish.ts';
import { clusterExtension } from '../lib/extension-bundles.ts';
import { quiet } from '../lib/extension-runs.ts';
import { forceGc, rollupMemory, startCpuProfile, startHeapSampling } from '../lib/inspector.ts';
import {
  type OlmStack,
  type ProductProcess,
  type StepMetrics,
  sampleDelta,
  scrapeSamples,
  scrapeStepMetrics,
  startOlmStack,
  stepDelta,
} from '../lib/olm-stack.ts';
import { procMemory } from '../lib/proc.ts';
import { mb } from '../lib/stats.ts';
import { createMemoryLimit, type MemoryLimit } from '../lib/memory-limit.ts';
import { OPERATOR_CONTROLLER_MEMORY_LIMIT_BYTES } from '../../cmd/operator-controller/node-flags.ts';
import { type Round, type ScaleTargets, scaleOutcome, sum } from '../lib/scale-report.ts';
import {
  type ClusterWatch,
  type InstallRun,
  type ProcessGroups,
  type SteadyState,
  catalogUpdate,
  controlPlaneProcesses,
  cpuMeter,
  deleteAllExtensions,
  faultStates,
  installRun,
  steadyState,
  watchCluster,
} from '../lib/scale-runs.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { UPDATE_POLICY_ANNOTATION } from '../../pkg/shared/api/index.ts';

/** The size of one run and its targets. */
interface ScaleConfig {
  extensions: number;
  /** Runs with and without the failing extensions (each) after the first install. */
  rounds: number;
  steadyMs: number;
  /** From operator-controller quiet after the install to the steady-state window. */
  settleMs: number;
  targets: ScaleTargets;
  /** Limit of every wait for the cluster (installs, deletions, the update). */
  timeoutMs: number;
  /** How many packages own a CRD (the first ones); undefined: all. */
  crdPackages?: number | undefined;
  /** operator-controller's memory limit, MiB, unless OLMV1_BENCH_SCALE_MEMORY_LIMIT_MB sets one. */
  memoryLimitMB: number;
}

const env = (name: string): number | undefined => (process.env[name] === undefined ? undefined : Number(process.env[name]));
const STEADY_MS = (env('OLMV1_BENCH_SCALE_STEADY_SECONDS') ?? 60) * 1000;
const SETTLE_S = env('OLMV1_BENCH_SCALE_SETTLE_SECONDS');
/** How many packages own a CRD (the first ones); default all, but 500 at 10,000 (bench/results/scale.md). */
const CRDS = env('OLMV1_BENCH_SCALE_CRDS');
/**
 * The update policy annotation of the healthy extensions (decision 0096), unset by default
 * (upstream's behaviour). `AutomaticPatch` lets the catalog update's patch release through
 * after the policy step compared its permissions: the cost of the policy when used.
 */
const POLICY = process.env['OLMV1_BENCH_SCALE_POLICY'];
/** Where to write a CPU profile of operator-controller during the catalog update (for finding hot spots). */
const PROFILE = process.env['OLMV1_BENCH_SCALE_PROFILE'];
/**
 * Where to write a sampling heap profile of operator-controller: what the allocations since its
 * start that are still alive after the update (and forced collections) add up to, by allocation
 * stack. Activates the inspector before the installs (a few MB more in the RSS rows).
 */
const HEAP_PROFILE = process.env['OLMV1_BENCH_SCALE_HEAP_PROFILE'];
/** Where to write a CPU profile of operator-controller at rest (the steady-state window). */
const IDLE_PROFILE = process.env['OLMV1_BENCH_SCALE_IDLE_PROFILE'];
/** kube-apiserver with `--profiling` (its /debug/pprof/ for the admin), for a heap profile of what the extensions cost it. */
const APISERVER_PROFILING = process.env['OLMV1_BENCH_SCALE_APISERVER_PROFILING'] === '1';
/** operator-controller's `--max-concurrent-reconciles`, when not its default. */
const WORKERS = env('OLMV1_BENCH_SCALE_WORKERS');
/** operator-controller's memory limit, MiB (0: none); default: the size's (ScaleConfig.memoryLimitMB). */
const MEMORY_LIMIT_MB = env('OLMV1_BENCH_SCALE_MEMORY_LIMIT_MB');
/** The shipped Deployment's limit (config/manager/operator-controller.yaml), MiB. */
const DEPLOYMENT_LIMIT_MB = OPERATOR_CONTROLLER_MEMORY_LIMIT_BYTES / 2 ** 20;

/**
 * The limit docs/operations.md sizes for `extensions`: about 0.3 MiB each (heap and RSS measured
 * at 1,000, ~3,750 and 10,000), in steps of 256 MiB, never below the Deployment's.
 */
function sizedMemoryLimitMB(extensions: number): number {
  return Math.max(DEPLOYMENT_LIMIT_MB, Math.ceil((extensions * 0.3) / 256) * 256);
}

/**
 * The memory cgroup operator-controller runs in: `limitMB` MiB, or none for 0. An explicit
 * OLMV1_BENCH_SCALE_MEMORY_LIMIT_MB that no cgroup can honour fails the run; the default is
 * skipped with a log line (the report's RSS rows then show Node's heap sized from the machine).
 */
async function memoryLimitFor(ctx: BenchContext, limitMB: number): Promise<MemoryLimit | undefined> {
  if (limitMB === 0) return undefined;
  const limit = await createMemoryLimit('olmv1-bench-scale', limitMB * 2 ** 20);
  if (limit === undefined && MEMORY_LIMIT_MB !== undefined)
    throw new Error('OLMV1_BENCH_SCALE_MEMORY_LIMIT_MB is set, but no memory cgroup can be created here');
  ctx.log(
    limit === undefined
      ? `no memory cgroup can be created here: operator-controller runs without the ${limitMB} MiB limit, its heap sized from the machine's memory`
      : `operator-controller runs in ${limit.where} (${limitMB} MiB)`,
  );
  return limit;
}

/**
 * `work`, or its failure as soon as operator-controller exits: a crashed controller would
 * otherwise leave the phase waiting for its timeout (an hour at 10,000).
 */
async function whileAlive<T>(oc: ProductProcess, limit: MemoryLimit | undefined, work: Promise<T>): Promise<T> {
  const death = oc.child.exited().then(async (how): Promise<never> => {
    const kills = (await limit?.oomKills()) ?? 0;
    throw new Error(
      `operator-controller ${how}${kills > 0 ? `, ${kills} OOM kills in ${limit?.where ?? ''}` : ''}; stderr: ${oc.child.stderr().slice(-2000)}`,
    );
  });
  return Promise.race([work, death]);
}

const SYSTEM_NAMESPACE = 'olmv1-system';
/** Given to operator-controller as on OpenShift, where ClusterVersion provides it: the upgrade gate then judges every extension. */
const CLUSTER_VERSION = '4.18';
const CATALOG_FETCHES = 'operator_controller_catalog_content_fetches_total';
const CATALOG_HITS = 'operator_controller_catalog_content_cache_hits_total';
const CATALOGD_REQUESTS = 'catalogd_http_request_duration_seconds_count';

async function installRounds(
  ctx: BenchContext,
  stack: OlmStack,
  watch: ClusterWatch,
  p: Published,
  c: ScaleConfig,
): Promise<{ first: InstallRun; rounds: Round[]; faults: Record<string, string> }> {
  const n = c.extensions;
  const healthy = p.v1.map((b) => clusterExtension(b.pkg, b, b.pkg, SA, POLICY === undefined ? undefined : { [UPDATE_POLICY_ANNOTATION]: POLICY }));
  const failing = p.faults.map((b) => clusterExtension(b.pkg, b, b.pkg, SA));
  const bundles = new Map(p.v1.map((b) => [b.pkg, b.name]));
  const run = (manifests: KubeObject[], label: string): Promise<InstallRun> =>
    installRun(stack, watch, { manifests, bundles, file: join(ctx.workDir, `${label}.yaml`), timeoutMs: c.timeoutMs, progress: ctx.log });

  ctx.log(`first install of ${n} extensions (creates their CRDs)`);
  const first = await run(healthy, 'first');
  ctx.log(`installed in ${Math.round(first.allMs)} ms (kubectl apply ${Math.round(first.kubectlMs)} ms)`);
  const rounds: Round[] = [];
  let faults: Record<string, string> = {};
  if (c.rounds === 0) return { first, rounds, faults };
  ctx.log('deleting them');
  await deleteAllExtensions(stack, watch, c.timeoutMs);
  // Alternating, ending without the failing ones, so that the last run leaves the healthy ones installed.
  for (let i = 0; i < c.rounds * 2; i++) {
    const withFaults = i % 2 === 0;
    const r = await run(withFaults ? [...failing, ...healthy] : healthy, `round-${i}`);
    if (withFaults) faults = await faultStates(watch, FAULTS);
    ctx.log(`${withFaults ? 'with' : 'without'} the failing extensions: ${n} installed in ${Math.round(r.allMs)} ms`);
    const round: Round = { withFaults, run: r };
    if (i < c.rounds * 2 - 1) round.deleteMs = await deleteAllExtensions(stack, watch, c.timeoutMs);
    rounds.push(round);
  }
  return { first, rounds, faults };
}

async function run(ctx: BenchContext, c: ScaleConfig): Promise<BenchOutcome> {
  const n = c.extensions;
  const audit = await createAuditLog(ctx.workDir);
  const apiServerExtraArgs = [...audit.args, ...(APISERVER_PROFILING ? ['--profiling=true'] : [])];
  const limit = await memoryLimitFor(ctx, MEMORY_LIMIT_MB ?? c.memoryLimitMB);
  const stack = await startOlmStack({ runtime: ctx.runtime, workDir: ctx.workDir, log: ctx.log, env: process.env, apiServerExtraArgs });
  let watch: ClusterWatch | undefined;
  try {
    const catalogd = await stack.startCatalogd();
    const { publishS, installersS, ...published } = await publish(ctx, stack, n, c.crdPackages ?? n);
    watch = await watchCluster(stack, SYSTEM_NAMESPACE);
    const workers = WORKERS === undefined ? [] : ['--max-concurrent-reconciles', String(WORKERS)];
    const oc = await stack.startOperatorController(
      ['--leader-elect=true', '--cluster-version', CLUSTER_VERSION, ...workers],
      limit === undefined ? {} : { memoryLimit: limit },
    );
    const alive = <T>(work: Promise<T>): Promise<T> => whileAlive(oc, limit, work);
    const stopHeapProfile = HEAP_PROFILE === undefined ? undefined : await startHeapSampling(oc.child.pid, oc.inspectPort);
    const startRss = procMemory(oc.child.pid)?.rss ?? Number.NaN;
    const processes: ProcessGroups = { 'operator-controller': [oc.child.pid], catalogd: [catalogd.child.pid], ...controlPlaneProcesses(stack) };
    const installOffset = await audit.offset();
    const installCpu = cpuMeter(processes);
    const installs = await alive(installRounds(ctx, stack, watch, published, c));

    ctx.log('waiting until operator-controller is quiet, then measuring its steady state');
    await alive(quiet(oc, 5_000, 120_000));
    // The install's cost until quiet (its follow-up reconciles included), when the first install is the only one.
    const install =
      c.rounds === 0
        ? { cpu: installCpu(), requests: await audit.readSince(installOffset, (e) => byOperatorController(e) && !isLease(e)) }
        : undefined;
    // The settling is measured too: what the window would have read right after the install.
    let settling: SteadyState | undefined;
    if (c.settleMs > 0) {
      ctx.log(`quiet; settling ${c.settleMs / 1000} s before the window`);
      settling = await alive(steadyState(oc.child.pid, audit, c.settleMs));
      ctx.log(
        `while settling: ${settling.requests.length} requests and ${settling.cpuSeconds.toFixed(2)} CPU-s in ${Math.round(settling.seconds)} s`,
      );
    }
    const beforeSteady = await scrapeStepMetrics(oc.healthUrl);
    const stopIdleProfile = IDLE_PROFILE === undefined ? undefined : await startCpuProfile(oc.child.pid, oc.inspectPort);
    const steady = await alive(steadyState(oc.child.pid, audit, c.steadyMs));
    if (stopIdleProfile !== undefined && IDLE_PROFILE !== undefined) {
      await writeFile(IDLE_PROFILE, JSON.stringify(await stopIdleProfile()));
      ctx.log(`wrote operator-controller's CPU profile at rest to ${IDLE_PROFILE}`);
    }
    const steadyReconciles: StepMetrics = stepDelta(beforeSteady, await scrapeStepMetrics(oc.healthUrl));
    const memory = rollupMemory(oc.child.pid);
    const apiServerRss = (processes['kube-apiserver'] ?? []).reduce((t, pid) => t + (procMemory(pid)?.rss ?? 0), 0);
    const driftWatches = sum(await scrapeSamples(oc.healthUrl, 'operator_controller_drift_watches'));
    // Logged as measured: a run stopped later (an upgrade of 10,000 takes long) keeps these figures.
    ctx.log(
      `steady state: ${steady.requests.length} requests and ${steady.cpuSeconds.toFixed(2)} CPU-s in ${Math.round(steady.seconds)} s; ` +
        `RSS ${mb(memory?.rss ?? Number.NaN)} MB; kube-apiserver RSS ${mb(apiServerRss)} MB; ${driftWatches} drift watches` +
        (install === undefined ? '' : `; the install until quiet: ${install.requests.length} requests`),
    );

    // As an administrator before offering an update: the installers get what 1.0.1 needs.
    const grantS = await alive(published.grantUpdate());
    ctx.log(`granted every installer the RBAC olmv1 rbac prints for 1.0.1 in ${grantS} s`);
    ctx.log(`catalog update: ${CATALOG} -> ${published.update.ref} (1.0.1 for every package)`);
    const targets = new Map(published.v2.map((b) => [b.pkg, b.name]));
    const before = {
      fetches: await scrapeSamples(oc.healthUrl, CATALOG_FETCHES),
      hits: await scrapeSamples(oc.healthUrl, CATALOG_HITS),
      catalogd: await scrapeSamples(catalogd.healthUrl, CATALOGD_REQUESTS),
      steps: await scrapeStepMetrics(oc.healthUrl),
    };
    const auditOffset = await audit.offset();
    const stopProfile = PROFILE === undefined ? undefined : await startCpuProfile(oc.child.pid, oc.inspectPort);
    const cpu = cpuMeter(processes);
    const update = await alive(
      catalogUpdate(stack, watch, { catalog: CATALOG, ...published.update, targets, timeoutMs: c.timeoutMs, progress: ctx.log }),
    );
    const updateCpu = cpu();
    if (stopProfile !== undefined && PROFILE !== undefined) {
      await writeFile(PROFILE, JSON.stringify(await stopProfile()));
      ctx.log(`wrote operator-controller's CPU profile of the update to ${PROFILE}`);
    }
    await alive(quiet(oc, 2_000, 120_000));
    const updateRequests = await audit.readSince(auditOffset, byOperatorController);
    const fetches = sampleDelta(before.fetches, await scrapeSamples(oc.healthUrl, CATALOG_FETCHES));
    const hits = sampleDelta(before.hits, await scrapeSamples(oc.healthUrl, CATALOG_HITS));
    const catalogdRequests = sum(sampleDelta(before.catalogd, await scrapeSamples(catalogd.healthUrl, CATALOGD_REQUESTS)));
    const updateSteps = stepDelta(before.steps, await scrapeStepMetrics(oc.healthUrl));
    const peakRss = procMemory(oc.child.pid)?.hwm ?? Number.NaN;
    ctx.log(`all ${n} upgraded after ${Math.round(Math.max(...update.upgradedMs))} ms`);
    if (stopHeapProfile !== undefined && HEAP_PROFILE !== undefined) {
      const heap = await stopHeapProfile();
      await writeFile(HEAP_PROFILE, JSON.stringify(heap.profile));
      ctx.log(
        `wrote operator-controller's heap profile to ${HEAP_PROFILE}; V8 heap used ${Math.round(heap.usedSize / 1e6)} MB of ${Math.round(heap.totalSize / 1e6)} MB`,
      );
    }
    await forceGc(oc.child.pid, oc.inspectPort);
    const collected = rollupMemory(oc.child.pid);

    return scaleOutcome(
      {
        extensions: n,
        installs,
        setup: { publishS, installersS, grantS },
        install,
        startRss,
        apiServerRss,
        steady,
        settling,
        steadyReconciles,
        driftWatches,
        memory,
        peakRss,
        collected,
        memoryLimit:
          limit === undefined
            ? "no memory limit, V8's heap sized from the machine's memory"
            : `in a ${Math.round(limit.bytes / 2 ** 20)} MiB memory cgroup, V8's heap limit half of it (decision 0098)`,
        update,
        updateCpu,
        updateRequests,
        fetches,
        hits,
        catalogdRequests,
        updateSteps,
      },
      c.targets,
    );
  } finally {
    watch?.stop();
    await stack.stop();
    await limit?.remove();
  }
}

const SCALE: ScaleConfig = {
  extensions: env('OLMV1_BENCH_SCALE_EXTENSIONS') ?? 100,
  rounds: env('OLMV1_BENCH_SCALE_ROUNDS') ?? 2,
  steadyMs: STEADY_MS,
  settleMs: (SETTLE_S ?? 0) * 1000,
  // Issue 21: re-resolved within 10 s, upgraded within 60 s; at rest upstream's alerts.
  targets: { resolvedS: 10, upgradedS: 60, steadyRequestsPerS: 5, steadyCpuPercent: 20 },
  timeoutMs: 600_000,
  crdPackages: CRDS,
  memoryLimitMB: DEPLOYMENT_LIMIT_MB,
};

const THOUSAND: ScaleConfig = {
  extensions: 1000,
  rounds: env('OLMV1_BENCH_SCALE_ROUNDS') ?? 0,
  steadyMs: STEADY_MS,
  settleMs: (SETTLE_S ?? 0) * 1000,
  // Issue 30. At rest: upstream's cost with 50 extensions, its Lease's requests (one update
  // every 26 s, 2.5 a minute counting the renewals' timing) and 0.03 CPU-s a minute.
  targets: {
    installS: 120,
    resolvedS: 10,
    upgradedS: 120,
    requestsPerUpgrade: 25.3,
    rssMB: 300,
    steadyRequestsPerS: 3 / 60,
    steadyCpuPercent: (0.03 / 60) * 100,
  },
  timeoutMs: 1_200_000,
  crdPackages: CRDS,
  memoryLimitMB: DEPLOYMENT_LIMIT_MB,
};

const TEN_THOUSAND: ScaleConfig = {
  extensions: env('OLMV1_BENCH_SCALE_LARGE_EXTENSIONS') ?? 10_000,
  rounds: 0,
  steadyMs: STEADY_MS,
  // Eight minutes, as upstream's figure at 1,000 was read after its installs.
  settleMs: (SETTLE_S ?? 480) * 1000,
  // Issue 49: install and upgrade within 15 minutes each, RSS at most 1 GB; idle CPU at most
  // upstream's at 1,000 (the requests benchmark measures it; no fixed target here).
  targets: { installS: 900, upgradedS: 900, rssMB: 1000 },
  // A slower machine needs more than an hour to install 10,000 (bench/results/scale.md).
  timeoutMs: (env('OLMV1_BENCH_SCALE_WAIT_MINUTES') ?? 60) * 60_000,
  // A CRD per package would be 10,000 CRDs: about 3.9 GB of kube-apiserver at 2,000 already,
  // where a real cluster serves a few hundred. 500 packages own one (bench/results/scale.md).
  crdPackages: CRDS ?? 500,
  memoryLimitMB: sizedMemoryLimitMB(env('OLMV1_BENCH_SCALE_LARGE_EXTENSIONS') ?? 10_000),
};

/** The many-extensions benchmark at 100 (or OLMV1_BENCH_SCALE_EXTENSIONS). */
export const scaleBenchmark: Benchmark = {
  name: 'scale',
  title: `operator-controller with ${SCALE.extensions} extensions: catalog update, failing neighbours, steady state (real control plane)`,
  run: (ctx) => run(ctx, SCALE),
};

/** The same at 1,000 extensions, judged by issue 30's targets. */
export const scale1000Benchmark: Benchmark = {
  name: 'scale-1000',
  title: `operator-controller with 1,000 extensions: install, catalog update, steady state, issue 30's targets (real control plane; ${THOUSAND.rounds} rounds with failing neighbours)`,
  run: (ctx) => run(ctx, THOUSAND),
};

/** The same at 10,000 (or OLMV1_BENCH_SCALE_LARGE_EXTENSIONS), judged by issue 49's targets. */
export const scale10000Benchmark: Benchmark = {
  name: 'scale-10000',
  title: `operator-controller with ${TEN_THOUSAND.extensions} extensions: install, catalog update, steady state, issue 49's targets (real control plane)`,
  run: (ctx) => run(ctx, TEN_THOUSAND),
};
