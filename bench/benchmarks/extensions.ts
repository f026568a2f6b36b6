/**
 * operator-controller on the real control plane (envtest's kube-apiserver + etcd and registry,
 * the project's CRDs and admission policies), with catalogd and operator-controller running as
 * child processes from their entry points, so each one's memory is read from /proc.
 *
 * 1. One ClusterExtension for a bundle whose rendered release holds 20 objects, applied with
 *    the envtest kubectl and timed until Installed=True names the bundle; one warm-up install,
 *    then REPETITIONS more under the same name, deleting it and waiting until it is gone in
 *    between. What is warm then: the bundle image's blobs in the registry, catalogd's content
 *    and operator-controller's catalog content cache, the CRDs (kept on uninstall, so already
 *    established). Not warm: operator-controller's unpack cache is per extension and the
 *    uninstall finalizer removes the entry, so every repetition pulls the (small) image from
 *    the loopback registry again; the `pull` step row shows what that costs. Per-step times
 *    come from `controller_reconcile_step_duration_seconds` on operator-controller's /metrics.
 * 2. A fresh operator-controller; EXTENSIONS ClusterExtensions (one package each from the same
 *    catalog, each in its own namespace with its own ServiceAccount and RBAC from `olmv1 rbac`)
 *    applied in one kubectl call, timed until all are installed. Then operator-controller's RSS
 *    once settled and after forced collections (the inspector's HeapProfiler.collectGarbage,
 *    bench/lib/inspector.ts), against the floor: a process of the same libraries, idle
 *    (bench/children/operator-controller-floor.ts), treated the same way.
 *
 * Targets: install of a cached 20-object bundle <= 2 s (median);
 * operator-controller with 50 extensions within 40 MB above the library floor.
 */
import { OPERATOR_CONTROLLER_ENVIRONMENT, OPERATOR_CONTROLLER_NODE_FLAGS } from '../../cmd/operator-controller/node-flags.ts';
import { join } from 'node:path';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { spawnChild } from '../lib/child.ts';
import {
  type PushedBundle,
  benchImageClient,
  clusterExtension,
  createCatalog,
  createInstaller,
  pushCatalog,
  pushGeneratedBundle,
} from '../lib/extension-bundles.ts';
import { installMany, repeatInstall } from '../lib/extension-runs.ts';
import type { StepMetrics } from '../lib/olm-stack.ts';
import { type RollupMemory, forceGc, rollupMemory, settleRss } from '../lib/inspector.ts';
import { type OlmStack, startOlmStack } from '../lib/olm-stack.ts';
import { freePorts } from '../../test/envtest/index.ts';
import { atMost, measure, type Measurement } from '../lib/report.ts';
import { mb, round, summarize } from '../lib/stats.ts';
import { sleep } from '../lib/http-load.ts';

const REPETITIONS = 6;
const BIG_OBJECTS = 20;
const EXTENSIONS = 50;
const SETTLE_OC = { minMs: 10_000, maxMs: 40_000, windowMs: 5_000, toleranceBytes: 1e6 };
const SETTLE_FLOOR = { minMs: 4_000, maxMs: 15_000, windowMs: 3_000, toleranceBytes: 0.5e6 };
const STEPS = ['validate', 'installed', 'resolve', 'pull', 'render', 'preauthorize', 'preflight', 'apply'];

interface Readings {
  settled: RollupMemory;
  afterGc: RollupMemory;
  settleMs: number;
}

function read(pid: number, what: string): RollupMemory {
  const m = rollupMemory(pid);
  if (m === undefined) throw new Error(`${what} (pid ${pid}) is gone`);
  return m;
}

/** Settled memory, then memory after forced collections through the inspector. */
async function readings(pid: number, inspectPort: number, what: string, settle: typeof SETTLE_OC): Promise<Readings> {
  const settleMs = await settleRss(pid, settle);
  const settled = read(pid, what);
  await forceGc(pid, inspectPort);
  return { settled, afterGc: read(pid, what), settleMs };
}

async function floor(ctx: BenchContext, kind: 'libraries' | 'modules'): Promise<Readings> {
  const [inspectPort = 0] = await freePorts(1);
  const child = spawnChild([ctx.runtime.entry('bench/children/operator-controller-floor.ts'), kind], {
    execArgv: [...OPERATOR_CONTROLLER_NODE_FLAGS, `--inspect-port=127.0.0.1:${inspectPort}`],
    env: OPERATOR_CONTROLLER_ENVIRONMENT,
  });
  try {
    await child.waitForStderr(/^ready \d+$/m, 60_000);
    return await readings(child.pid, inspectPort, `floor (${kind})`, SETTLE_FLOOR);
  } finally {
    await child.stop();
  }
}

async function publish(ctx: BenchContext, stack: OlmStack): Promise<{ big: PushedBundle; small: PushedBundle[] }> {
  const images = benchImageClient();
  try {
    const root = join(ctx.workDir, 'bundles');
    ctx.log(`pushing a ${BIG_OBJECTS}-object bundle and ${EXTENSIONS} small ones, and their catalog`);
    const big = await pushGeneratedBundle(images, stack.registry, root, 'bench-big', ['widgets', 'gadgets'], BIG_OBJECTS);
    const small: PushedBundle[] = [];
    for (let i = 0; i < EXTENSIONS; i++)
      small.push(await pushGeneratedBundle(images, stack.registry, root, `bench-pkg-${String(i).padStart(2, '0')}`, ['widgets']));
    const ref = `${stack.registry}/bench-catalogs/bench:latest`;
    const digest = await pushCatalog(images, join(ctx.workDir, 'catalog'), ref, [big, ...small]);
    await createCatalog(stack.kube.client, 'bench', ref, digest);
    ctx.log(`creating ${EXTENSIONS + 1} namespaces with a ServiceAccount and the RBAC olmv1 rbac prints`);
    for (const b of [big, ...small]) await createInstaller(stack.kube.client, b, b.pkg, 'installer');
    return { big, small };
  } finally {
    images.close();
  }
}

function memNote(m: RollupMemory): string {
  return `anon ${mb(m.anon)} MB (smaps Anonymous ${mb(m.rollupAnonymous)}) + file-backed ${mb(m.file)} MB`;
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const stack = await startOlmStack({ runtime: ctx.runtime, workDir: ctx.workDir, log: ctx.log, env: process.env });
  try {
    const catalogd = await stack.startCatalogd();
    const { big, small } = await publish(ctx, stack);

    ctx.log(`installing ${big.name} (${big.objects} objects): 1 warm-up + ${REPETITIONS} timed repetitions`);
    const oc1 = await stack.startOperatorController();
    const row1 = await repeatInstall(stack, oc1, {
      manifest: clusterExtension('bench-big', big, big.pkg, 'installer'),
      file: join(ctx.workDir, 'bench-big.yaml'),
      bundleName: big.name,
      repetitions: REPETITIONS + 1,
      log: ctx.log,
    });
    await oc1.child.stop();
    const [warmUp, ...timed] = row1.reps;
    const install = summarize(timed.map((r) => r.installMs));
    const stepMs = (step: string): number => summarize(timed.map((r) => (r.metrics.steps[step]?.sum ?? 0) * 1000)).p50;
    const stepCount = (step: string): number => summarize(timed.map((r) => r.metrics.steps[step]?.count ?? 0)).p50;
    const sumMs = (m: StepMetrics): number => Object.values(m.steps).reduce((n, v) => n + v.sum * 1000, 0);
    const hitPullMs = summarize(
      timed.map((r) => ((r.reReconcile.steps['pull']?.sum ?? Number.NaN) * 1000) / (r.reReconcile.steps['pull']?.count ?? Number.NaN)),
    ).p50;

    ctx.log(`fresh operator-controller; installing ${EXTENSIONS} extensions at once`);
    const oc2 = await stack.startOperatorController();
    await sleep(3_000);
    const idle = read(oc2.child.pid, 'operator-controller');
    const many = await installMany(stack, oc2, {
      manifests: small.map((b) => clusterExtension(b.pkg, b, b.pkg, 'installer')),
      bundles: new Map(small.map((b) => [b.pkg, b.name])),
      file: join(ctx.workDir, 'extensions.yaml'),
      timeoutMs: 180_000,
    });
    ctx.log(`all installed in ${Math.round(many.allInstalledMs)} ms; waiting for operator-controller's RSS to settle`);
    const oc = await readings(oc2.child.pid, oc2.inspectPort, 'operator-controller', SETTLE_OC);
    const catalogdMem = read(catalogd.child.pid, 'catalogd');
    ctx.log('measuring the floor: the same libraries, idle; then with the composition root imported');
    const libs = await floor(ctx, 'libraries');
    const modules = await floor(ctx, 'modules');

    const above = mb(oc.afterGc.rss) - mb(libs.afterGc.rss);
    const reconciles = (r: Record<string, number>): string =>
      Object.entries(r)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ');
    const measurements: Measurement[] = [
      measure(
        `kubectl apply -> Installed=True, ${row1.releaseObjects}-object bundle (median of ${timed.length})`,
        install.p50 / 1000,
        's',
        atMost(2),
        `min ${round(install.min / 1000)} s, max ${round(install.max / 1000)} s; first install ${round((warmUp?.installMs ?? Number.NaN) / 1000)} s`,
      ),
      measure('  kubectl apply process (until created)', summarize(timed.map((r) => r.kubectlMs)).p50, 'ms', undefined, 'part of the figure above'),
      ...STEPS.map((s) => measure(`  step ${s} (until Installed)`, stepMs(s), 'ms', undefined, `${stepCount(s)} run(s)`)),
      measure(
        '  reconciles after Installed, nothing changed',
        summarize(timed.map((r) => Object.values(r.followUp.reconciles).reduce((n, v) => n + v, 0))).p50,
        '',
        undefined,
        `median; their steps took ${round(summarize(timed.map((r) => sumMs(r.followUp))).p50, 1)} ms (apply ${round(summarize(timed.map((r) => (r.followUp.steps['apply']?.sum ?? 0) * 1000)).p50, 1)} ms)`,
      ),
      measure(
        '  step pull on a later reconcile of the installed extension (cache hit)',
        hitPullMs,
        'ms',
        undefined,
        `after an annotation change; all steps of that reconcile: ${round(summarize(timed.map((r) => sumMs(r.reReconcile))).p50, 1)} ms`,
      ),
      measure('  uninstall: delete -> gone', summarize(timed.map((r) => r.uninstallMs)).p50, 'ms', undefined, 'median; not in the figure above'),
      measure(
        `${EXTENSIONS} extensions: kubectl apply -> all Installed=True`,
        many.allInstalledMs / 1000,
        's',
        undefined,
        `kubectl ${round(many.kubectlMs / 1000)} s; reconciles: ${reconciles(many.metrics.reconciles)}`,
      ),
      measure(
        `operator-controller RSS above the floor, ${EXTENSIONS} extensions`,
        above,
        'MB',
        atMost(40),
        `${mb(oc.afterGc.rss)} - ${mb(libs.afterGc.rss)} MB, both after forced GC (inspector); anon ${round(mb(oc.afterGc.anon) - mb(libs.afterGc.anon), 1)} MB above`,
      ),
      measure(
        '  the same without forced GC (both settled)',
        round(mb(oc.settled.rss) - mb(libs.settled.rss), 1),
        'MB',
        undefined,
        `${mb(oc.settled.rss)} - ${mb(libs.settled.rss)} MB; anon ${round(mb(oc.settled.anon) - mb(libs.settled.anon), 1)} MB above`,
      ),
      measure(`  operator-controller RSS, ${EXTENSIONS} extensions, after forced GC`, mb(oc.afterGc.rss), 'MB', undefined, memNote(oc.afterGc)),
      measure(
        '  same, settled without forced GC',
        mb(oc.settled.rss),
        'MB',
        undefined,
        `settled after ${Math.round(oc.settleMs / 1000)} s; ${memNote(oc.settled)}`,
      ),
      measure(`  peak while installing the ${EXTENSIONS}`, mb(many.peak.rss), 'MB', undefined, `anon ${mb(many.peak.anon)} MB; 100 ms samples`),
      measure('  operator-controller idle, no extensions, fresh', mb(idle.rss), 'MB', undefined, `${memNote(idle)}; 3 s after ready, no GC`),
      measure(
        'floor: pino, prom-client, zod, js-yaml, kube client, node:http; idle',
        mb(libs.afterGc.rss),
        'MB',
        undefined,
        `after forced GC; ${memNote(libs.afterGc)}`,
      ),
      measure(
        '  the same with cmd/operator-controller/run.ts imported',
        mb(modules.afterGc.rss),
        'MB',
        undefined,
        `after forced GC; ${memNote(modules.afterGc)}`,
      ),
      measure(`catalogd RSS serving the ${EXTENSIONS + 1}-package catalog`, mb(catalogdMem.rss), 'MB', undefined, memNote(catalogdMem)),
    ];
    return {
      measurements,
      details: {
        bundle: { name: big.name, renderedObjects: big.objects, releaseObjects: row1.releaseObjects, layerBytes: big.layerBytes },
        smallBundle: { renderedObjects: small[0]?.objects, layerBytes: small[0]?.layerBytes },
        repetitions: row1.reps.map((r, i) => ({
          warmUp: i === 0,
          installMs: Math.round(r.installMs),
          kubectlMs: Math.round(r.kubectlMs),
          uninstallMs: Math.round(r.uninstallMs),
          stepsMs: Object.fromEntries(Object.entries(r.metrics.steps).map(([s, v]) => [s, { ms: round(v.sum * 1000), runs: v.count }])),
          reconciles: r.metrics.reconciles,
          followUpStepsMs: Object.fromEntries(Object.entries(r.followUp.steps).map(([s, v]) => [s, { ms: round(v.sum * 1000), runs: v.count }])),
          followUpReconciles: r.followUp.reconciles,
          reReconcileStepsMs: Object.fromEntries(
            Object.entries(r.reReconcile.steps).map(([s, v]) => [s, { ms: round(v.sum * 1000), runs: v.count }]),
          ),
        })),
        many: {
          extensions: EXTENSIONS,
          allInstalledMs: Math.round(many.allInstalledMs),
          kubectlMs: Math.round(many.kubectlMs),
          peakRssMB: mb(many.peak.rss),
          stepsMs: Object.fromEntries(Object.entries(many.metrics.steps).map(([s, v]) => [s, { ms: round(v.sum * 1000), runs: v.count }])),
          reconciles: many.metrics.reconciles,
        },
        memoryMB: Object.fromEntries(
          Object.entries({
            ocIdle: idle,
            ocSettled: oc.settled,
            ocAfterGc: oc.afterGc,
            floorAfterGc: libs.afterGc,
            floorSettled: libs.settled,
            modulesAfterGc: modules.afterGc,
            catalogd: catalogdMem,
          }).map(([k, m]) => [k, { rss: mb(m.rss), anon: mb(m.anon), file: mb(m.file), smapsAnonymous: mb(m.rollupAnonymous), pss: mb(m.pss) }]),
        ),
      },
    };
  } finally {
    await stack.stop();
  }
}

/** The operator-controller benchmark. */
export const extensionsBenchmark: Benchmark = {
  name: 'extensions',
  title: 'operator-controller: install latency and RSS with 50 extensions (real control plane)',
  run,
};
