/**
 * operator-controller with many extensions, on the real control plane (bench/lib/olm-stack.ts:
 * envtest's kube-apiserver + etcd and registry, catalogd and operator-controller as child
 * processes; operator-controller with leader election on, as deployed, and a cluster version,
 * as on OpenShift, so that the upgrade gate judges every extension). The cluster looks like a
 * real one: EXTENSIONS different packages from one ClusterCatalog (as operatorhub serves them),
 * each installed by its own ClusterExtension into its own namespace as its own ServiceAccount
 * with the RBAC `olmv1 rbac` prints for both versions. The same package is not installed twice:
 * two extensions of one package would both own its CRDs, which is refused.
 *
 * 1. Installs: all extensions in one kubectl apply, timed until every one is Installed=True;
 *    a first run (CRDs created, images pulled), then, in turn, runs with three failing
 *    extensions applied first (a ServiceAccount without permissions, a bundle the API server
 *    rejects, a missing namespace; each must have reported its failure by the end) and runs
 *    without them, everything deleted in between. The healthy extensions' per-extension times
 *    with and without the failing ones are compared.
 * 2. Steady state: with the extensions installed and operator-controller quiet, its API
 *    requests (kube-apiserver audit log, by user agent and ServiceAccount users) and its CPU
 *    time (/proc/PID/stat) over STEADY_MS.
 * 3. A catalog update: the ClusterCatalog's image reference is changed to an image that adds
 *    version 1.0.1 (replacing 1.0.0) to every package. Timed from when the ClusterCatalog serves
 *    the new digest, per extension: until the first release revision for 1.0.1 is recorded (the
 *    reconcile re-resolved it, and pulled, rendered and pre-authorized its bundle; our reconcile
 *    writes nothing earlier that names the new bundle) and until Installed=True at 1.0.1. Also:
 *    catalogd's requests (how often the new catalog was read), operator-controller's API
 *    requests (audit log) and the CPU time of each process meanwhile.
 *
 * Targets (issue 21; upstream's alerts for the steady state): re-resolved
 * within 10 s and upgraded within 60 s; two requests to catalogd per package plus one for the
 * package list, however many reconciles; the failing extensions slow the others by at most 25 %
 * (the run-to-run noise here); steady state at most 5 requests/s and 20 % of a core (upstream's
 * alerts).
 * OLMV1_BENCH_SCALE_EXTENSIONS, OLMV1_BENCH_SCALE_ROUNDS and OLMV1_BENCH_SCALE_STEADY_SECONDS change the
 * size for development; OLMV1_BENCH_SCALE_POLICY=AutomaticPatch annotates the healthy extensions with that update policy; OLMV1_BENCH_SCALE_PROFILE=FILE writes a CPU profile of operator-controller
 * during the catalog update (open it in DevTools), OLMV1_BENCH_SCALE_IDLE_PROFILE=FILE one of the steady state (the
 * profiler's own sampling then counts in that row's CPU figure).
 */
import { availableParallelism } from 'node:os';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { type AuditEvent, byOperatorController, createAuditLog, describeRequests } from '../lib/audit-log.ts';
import {
  type PushedBundle,
  benchImageClient,
  clusterExtension,
  createCatalog,
  createInstaller,
  pushCatalog,
  pushGeneratedBundle,
} from '../lib/extension-bundles.ts';
import { quiet } from '../lib/extension-runs.ts';
import { rollupMemory, startCpuProfile } from '../lib/inspector.ts';
import { type OlmStack, type StepMetrics, sampleDelta, scrapeSamples, scrapeStepMetrics, startOlmStack, stepDelta } from '../lib/olm-stack.ts';
import { atMost, measure, type Measurement } from '../lib/report.ts';
import {
  type ClusterWatch,
  type InstallRun,
  catalogUpdate,
  controlPlaneProcesses,
  cpuMeter,
  deleteAllExtensions,
  installRun,
  stampFirst,
  steadyState,
  watchCluster,
} from '../lib/scale-runs.ts';
import { mb, round, summarize } from '../lib/stats.ts';
import type { KubeClient, KubeObject } from '../../pkg/shared/kube/index.ts';
import { UPDATE_POLICY_ANNOTATION } from '../../pkg/shared/api/index.ts';

const EXTENSIONS = Number(process.env['OLMV1_BENCH_SCALE_EXTENSIONS'] ?? 100);
/** Runs with and without the failing extensions (each). */
const ROUNDS = Number(process.env['OLMV1_BENCH_SCALE_ROUNDS'] ?? 2);
const STEADY_MS = Number(process.env['OLMV1_BENCH_SCALE_STEADY_SECONDS'] ?? 60) * 1000;
/**
 * The update policy annotation of the healthy extensions (decision 0096), unset by default
 * (upstream's behaviour). `AutomaticPatch` lets the catalog update's patch release through
 * after the policy step compared its permissions: the cost of the policy when used.
 */
const POLICY = process.env['OLMV1_BENCH_SCALE_POLICY'];
/** Where to write a CPU profile of operator-controller during the catalog update (for finding hot spots). */
const PROFILE = process.env['OLMV1_BENCH_SCALE_PROFILE'];
/** Where to write a CPU profile of operator-controller at rest (the steady-state window). */
const IDLE_PROFILE = process.env['OLMV1_BENCH_SCALE_IDLE_PROFILE'];
const SYSTEM_NAMESPACE = 'olmv1-system';
/** Given to operator-controller as on OpenShift, where ClusterVersion provides it: the upgrade gate then judges every extension. */
const CLUSTER_VERSION = '4.18';
const CATALOG = 'scale';
const SA = 'installer';
const FAULTS = ['scale-fault-permissions', 'scale-fault-bundle', 'scale-fault-namespace'] as const;
const CATALOG_FETCHES = 'operator_controller_catalog_content_fetches_total';
const CATALOG_HITS = 'operator_controller_catalog_content_cache_hits_total';
const CATALOGD_REQUESTS = 'catalogd_http_request_duration_seconds_count';

interface Published {
  /** Version 1.0.0 of each healthy package, and 1.0.1. */
  v1: PushedBundle[];
  v2: PushedBundle[];
  faults: PushedBundle[];
  update: { ref: string; digest: string };
}

/** Runs `fn` over `items`, at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

async function namespaceWithServiceAccount(client: KubeClient, ns: string): Promise<void> {
  const o = { fieldManager: 'olmv1-bench', force: true };
  await client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, o);
  await client.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA, namespace: ns } }, o);
}

async function publish(ctx: BenchContext, stack: OlmStack): Promise<Published> {
  const images = benchImageClient();
  try {
    const root = join(ctx.workDir, 'bundles');
    ctx.log(`pushing ${EXTENSIONS} packages in versions 1.0.0 and 1.0.1, 3 failing ones, and two catalog images`);
    const v1: PushedBundle[] = [];
    const v2: PushedBundle[] = [];
    for (let i = 0; i < EXTENSIONS; i++) {
      const pkg = `scale-${String(i).padStart(3, '0')}`;
      v1.push(await pushGeneratedBundle(images, stack.registry, root, pkg, ['widgets'], undefined, { version: '1.0.0' }));
      v2.push(await pushGeneratedBundle(images, stack.registry, root, pkg, ['widgets'], undefined, { version: '1.0.1' }));
    }
    const [permissions, bundle, namespace] = FAULTS;
    const faults = [
      await pushGeneratedBundle(images, stack.registry, root, permissions, ['widgets']),
      await pushGeneratedBundle(images, stack.registry, root, bundle, ['widgets'], undefined, { invalidService: true }),
      await pushGeneratedBundle(images, stack.registry, root, namespace, ['widgets']),
    ];
    const repo = `${stack.registry}/bench-catalogs/${CATALOG}`;
    const first = await pushCatalog(images, join(ctx.workDir, 'catalog-v1'), `${repo}:v1`, [...v1, ...faults]);
    const update = { ref: `${repo}:v2`, digest: await pushCatalog(images, join(ctx.workDir, 'catalog-v2'), `${repo}:v2`, [...v1, ...v2, ...faults]) };
    await createCatalog(stack.kube.client, CATALOG, `${repo}:v1`, first);
    // The installers get the RBAC of both versions up front, as an administrator who approves the update would.
    ctx.log(`creating ${EXTENSIONS + 2} namespaces with a ServiceAccount and the RBAC olmv1 rbac prints (none for ${permissions})`);
    await eachLimited([...v1, ...v2, faults[1] as PushedBundle], 4, (b) => createInstaller(stack.kube.client, b, b.pkg, SA));
    await namespaceWithServiceAccount(stack.kube.client, permissions);
    return { v1, v2, faults, update };
  } finally {
    images.close();
  }
}

interface Round {
  withFaults: boolean;
  run: InstallRun;
  deleteMs?: number;
}

type Conditions = Array<{ type: string; status: string; reason: string; message: string }>;

/**
 * The failing extensions' conditions once they report a failure (Progressing Retrying), waited
 * for after the healthy ones are installed; throws when one was installed after all.
 */
async function faultStates(watch: ClusterWatch): Promise<Record<string, string>> {
  const conditionsOf = (name: string): Conditions => ((watch.extensions.get(name)?.status ?? {}) as { conditions?: Conditions }).conditions ?? [];
  const failing = stampFirst(
    watch.extensions,
    (o) => o.metadata.name,
    (o) => {
      const conditions = ((o.status ?? {}) as { conditions?: Conditions }).conditions ?? [];
      return conditions.some((c) => c.type === 'Progressing' && c.reason === 'Retrying');
    },
  );
  try {
    await failing.all(FAULTS, 120_000, 'the failing extensions to report their failure');
  } finally {
    failing.stop();
  }
  const out: Record<string, string> = {};
  for (const name of FAULTS) {
    const conditions = conditionsOf(name);
    const installed = conditions.find((c) => c.type === 'Installed');
    if (installed?.status === 'True') throw new Error(`failing extension ${name} was installed: the fault did not take effect`);
    const progressing = conditions.find((c) => c.type === 'Progressing');
    out[name] =
      `Installed=${installed?.status ?? '?'}; Progressing=${progressing?.status ?? '?'}/${progressing?.reason ?? '?'}: ${(progressing?.message ?? '').slice(0, 200)}`;
  }
  return out;
}

async function installRounds(
  ctx: BenchContext,
  stack: OlmStack,
  watch: ClusterWatch,
  p: Published,
): Promise<{ first: InstallRun; rounds: Round[]; faults: Record<string, string> }> {
  const healthy = p.v1.map((b) => clusterExtension(b.pkg, b, b.pkg, SA, POLICY === undefined ? undefined : { [UPDATE_POLICY_ANNOTATION]: POLICY }));
  const failing = p.faults.map((b) => clusterExtension(b.pkg, b, b.pkg, SA));
  const bundles = new Map(p.v1.map((b) => [b.pkg, b.name]));
  const run = (manifests: KubeObject[], label: string): Promise<InstallRun> =>
    installRun(stack, watch, { manifests, bundles, file: join(ctx.workDir, `${label}.yaml`), timeoutMs: 600_000 });

  ctx.log(`first install of ${EXTENSIONS} extensions (creates their CRDs)`);
  const first = await run(healthy, 'first');
  ctx.log(`installed in ${Math.round(first.allMs)} ms; deleting them`);
  await deleteAllExtensions(stack, watch, 600_000);
  const rounds: Round[] = [];
  let faults: Record<string, string> = {};
  // Alternating, ending without the failing ones, so that the last run leaves the healthy ones installed.
  for (let i = 0; i < ROUNDS * 2; i++) {
    const withFaults = i % 2 === 0;
    const r = await run(withFaults ? [...failing, ...healthy] : healthy, `round-${i}`);
    if (withFaults) faults = await faultStates(watch);
    ctx.log(`${withFaults ? 'with' : 'without'} the failing extensions: ${EXTENSIONS} installed in ${Math.round(r.allMs)} ms`);
    const round: Round = { withFaults, run: r };
    if (i < ROUNDS * 2 - 1) round.deleteMs = await deleteAllExtensions(stack, watch, 600_000);
    rounds.push(round);
  }
  return { first, rounds, faults };
}

const sum = (r: Record<string, number>): number => Object.values(r).reduce((n, v) => n + v, 0);
const listed = (r: Record<string, number>): string =>
  Object.entries(r)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k.replace(/"/g, '')} ${n}`)
    .join(', ') || 'none';

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const audit = await createAuditLog(ctx.workDir);
  const stack = await startOlmStack({ runtime: ctx.runtime, workDir: ctx.workDir, log: ctx.log, env: process.env, apiServerExtraArgs: audit.args });
  let watch: ClusterWatch | undefined;
  try {
    const catalogd = await stack.startCatalogd();
    const published = await publish(ctx, stack);
    watch = await watchCluster(stack, SYSTEM_NAMESPACE);
    const oc = await stack.startOperatorController(['--leader-elect=true', '--cluster-version', CLUSTER_VERSION]);
    const installs = await installRounds(ctx, stack, watch, published);

    ctx.log('waiting until operator-controller is quiet, then measuring its steady state');
    await quiet(oc, 5_000, 120_000);
    const beforeSteady = await scrapeStepMetrics(oc.healthUrl);
    const stopIdleProfile = IDLE_PROFILE === undefined ? undefined : await startCpuProfile(oc.child.pid, oc.inspectPort);
    const steady = await steadyState(oc.child.pid, audit, STEADY_MS);
    if (stopIdleProfile !== undefined && IDLE_PROFILE !== undefined) {
      await writeFile(IDLE_PROFILE, JSON.stringify(await stopIdleProfile()));
      ctx.log(`wrote operator-controller's CPU profile at rest to ${IDLE_PROFILE}`);
    }
    const steadyReconciles: StepMetrics = stepDelta(beforeSteady, await scrapeStepMetrics(oc.healthUrl));
    const memory = rollupMemory(oc.child.pid);

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
    const cpu = cpuMeter({ 'operator-controller': [oc.child.pid], catalogd: [catalogd.child.pid], ...controlPlaneProcesses(stack) });
    const update = await catalogUpdate(stack, watch, {
      catalog: CATALOG,
      ...published.update,
      targets,
      timeoutMs: 600_000,
    });
    const updateCpu = cpu();
    if (stopProfile !== undefined && PROFILE !== undefined) {
      await writeFile(PROFILE, JSON.stringify(await stopProfile()));
      ctx.log(`wrote operator-controller's CPU profile of the update to ${PROFILE}`);
    }
    await quiet(oc, 2_000, 120_000);
    const updateRequests = (await audit.readSince(auditOffset)).filter(byOperatorController);
    const fetches = sampleDelta(before.fetches, await scrapeSamples(oc.healthUrl, CATALOG_FETCHES));
    const hits = sampleDelta(before.hits, await scrapeSamples(oc.healthUrl, CATALOG_HITS));
    const catalogdRequests = sum(sampleDelta(before.catalogd, await scrapeSamples(catalogd.healthUrl, CATALOGD_REQUESTS)));
    const updateSteps = stepDelta(before.steps, await scrapeStepMetrics(oc.healthUrl));
    ctx.log(`all ${EXTENSIONS} upgraded after ${Math.round(Math.max(...update.upgradedMs))} ms`);

    return outcome({ installs, steady, steadyReconciles, memory, update, updateCpu, updateRequests, fetches, hits, catalogdRequests, updateSteps });
  } finally {
    watch?.stop();
    await stack.stop();
  }
}

interface Figures {
  installs: Awaited<ReturnType<typeof installRounds>>;
  steady: Awaited<ReturnType<typeof steadyState>>;
  steadyReconciles: StepMetrics;
  memory: ReturnType<typeof rollupMemory>;
  update: Awaited<ReturnType<typeof catalogUpdate>>;
  /** CPU seconds per process from the ClusterCatalog change until all were upgraded. */
  updateCpu: Record<string, number>;
  /** operator-controller's API requests from the ClusterCatalog change until quiet again. */
  updateRequests: AuditEvent[];
  fetches: Record<string, number>;
  hits: Record<string, number>;
  catalogdRequests: number;
  updateSteps: StepMetrics;
}

function outcome(f: Figures): BenchOutcome {
  const s = (ms: number): number => ms / 1000;
  const median = (xs: readonly number[]): number => summarize(xs).p50;
  const { first, rounds, faults } = f.installs;
  const clean = rounds.filter((r) => !r.withFaults).map((r) => r.run);
  const faulty = rounds.filter((r) => r.withFaults).map((r) => r.run);
  const allOf = (runs: InstallRun[]): number => median(runs.map((r) => r.allMs));
  const eachOf = (runs: InstallRun[]): number => median(runs.flatMap((r) => r.eachMs));
  const runList = (runs: InstallRun[]): string => runs.map((r) => `${round(s(r.allMs), 1)}`).join(', ');
  const slowdown = (eachOf(faulty) / eachOf(clean) - 1) * 100;
  const recorded = Math.max(...f.update.recordedMs);
  const upgraded = Math.max(...f.update.upgradedMs);
  const reconciles = sum(f.updateSteps.reconciles);
  const steadyRate = f.steady.requests.length / f.steady.seconds;
  const cpuShare = (f.steady.cpuSeconds / f.steady.seconds) * 100;
  const n = EXTENSIONS;
  const fromServed = (ms: number): number => s(ms - f.update.servedMs);
  const measurements: Measurement[] = [
    measure(
      `new catalog content served -> all ${n} extensions re-resolved (revision for 1.0.1 recorded)`,
      fromServed(recorded),
      's',
      atMost(10),
      `median ${round(fromServed(median(f.update.recordedMs)), 1)} s; recorded once the reconcile resolved, pulled, rendered and pre-authorized it; ${round(s(recorded), 1)} s from the ClusterCatalog change`,
    ),
    measure(
      `new catalog content served -> all ${n} upgraded (Installed=True at 1.0.1)`,
      fromServed(upgraded),
      's',
      atMost(60),
      `median ${round(fromServed(median(f.update.upgradedMs)), 1)} s; ${round(s(upgraded), 1)} s from the ClusterCatalog change; ${reconciles} reconciles (${listed(f.updateSteps.reconciles)})`,
    ),
    measure(
      '  CPU used from the ClusterCatalog change until all were upgraded',
      sum(f.updateCpu),
      's',
      undefined,
      `${Object.entries(f.updateCpu)
        .map(([k, v]) => `${k} ${round(v, 1)} s`)
        .join(', ')}; in ${round(s(upgraded), 1)} s on ${availableParallelism()} cores`,
    ),
    measure(
      '  operator-controller API requests per upgraded extension',
      f.updateRequests.length / n,
      '',
      undefined,
      `${f.updateRequests.length} in all: ${describeRequests(f.updateRequests)}`,
    ),
    measure(
      '  ClusterCatalog image reference changed -> new content served (catalogd)',
      s(f.update.servedMs),
      's',
      undefined,
      "catalogd's pull and ingest (forked ingest process) and status write; see the ingest benchmark",
    ),
    measure(
      '  HTTP requests catalogd served during the update',
      f.catalogdRequests,
      '',
      atMost(2 * n + 1),
      `target: 2 per package (its blobs, its olm.package blob) + 1 package list, however many reconciles; operator-controller's catalog client: ${listed(f.fetches)}; answered from its cache: ${listed(f.hits)}`,
    ),
    measure(
      `${n} extensions: kubectl apply -> all Installed=True`,
      s(allOf(clean)),
      's',
      undefined,
      `median of ${clean.length} runs (${runList(clean)} s); per extension median ${round(s(eachOf(clean)), 1)} s; first install (CRDs created) ${round(s(first.allMs), 1)} s`,
    ),
    measure(
      '  the same with 3 failing extensions applied alongside',
      s(allOf(faulty)),
      's',
      undefined,
      `median of ${faulty.length} runs (${runList(faulty)} s); per extension median ${round(s(eachOf(faulty)), 1)} s`,
    ),
    measure(
      '  slowdown of the healthy extensions by the failing ones (per-extension median)',
      round(slowdown, 1),
      '%',
      atMost(25),
      'target: within the run-to-run noise of this machine; failing: ServiceAccount without permissions, bundle the API server rejects, missing namespace',
    ),
    measure(
      `steady state, ${n} extensions: operator-controller API requests`,
      steadyRate,
      'req/s',
      atMost(5),
      `${f.steady.requests.length} in ${Math.round(f.steady.seconds)} s: ${describeRequests(f.steady.requests) || 'none'}; reconciles in the window: ${sum(f.steadyReconciles.reconciles)}`,
    ),
    measure(
      `steady state, ${n} extensions: operator-controller CPU`,
      cpuShare,
      '% of a core',
      atMost(20),
      `${round(f.steady.cpuSeconds, 2)} s user+system in ${Math.round(f.steady.seconds)} s (/proc/PID/stat)`,
    ),
    measure(
      `  operator-controller RSS with ${n} extensions (steady, no forced GC)`,
      mb(f.memory?.rss ?? Number.NaN),
      'MB',
      undefined,
      `anon ${mb(f.memory?.anon ?? Number.NaN)} MB`,
    ),
  ];
  const steps = (m: StepMetrics): Record<string, { ms: number; runs: number }> =>
    Object.fromEntries(Object.entries(m.steps).map(([k, v]) => [k, { ms: round(v.sum * 1000), runs: v.count }]));
  return {
    measurements,
    details: {
      extensions: n,
      installs: {
        first: { allMs: Math.round(first.allMs), kubectlMs: Math.round(first.kubectlMs) },
        rounds: rounds.map((r) => ({
          withFaults: r.withFaults,
          allMs: Math.round(r.run.allMs),
          eachMs: summarize(r.run.eachMs),
          kubectlMs: Math.round(r.run.kubectlMs),
          deleteMs: r.deleteMs === undefined ? undefined : Math.round(r.deleteMs),
        })),
        faults,
      },
      steady: {
        seconds: f.steady.seconds,
        requests: f.steady.requests.length,
        byKind: describeRequests(f.steady.requests),
        cpuSeconds: f.steady.cpuSeconds,
      },
      update: {
        servedMs: Math.round(f.update.servedMs),
        recordedMs: summarize(f.update.recordedMs),
        upgradedMs: summarize(f.update.upgradedMs),
        fetches: f.fetches,
        hits: f.hits,
        catalogdRequests: f.catalogdRequests,
        cpuSeconds: f.updateCpu,
        reconciles: f.updateSteps.reconciles,
        steps: steps(f.updateSteps),
      },
    },
  };
}

/** The many-extensions benchmark. */
export const scaleBenchmark: Benchmark = {
  name: 'scale',
  title: `operator-controller with ${EXTENSIONS} extensions: catalog update, failing neighbours, steady state (real control plane)`,
  run,
};
