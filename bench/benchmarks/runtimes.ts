/**
 * Both runtimes against upstream's (issue 74): our operator-controller under the Helm runtime,
 * ours under BoxcutterRuntime, and, when OLMV1_BENCH_UPSTREAM_OPERATOR_CONTROLLER names its
 * binary (bench/lib/upstream-operator-controller.ts), upstream's with the same
 * `--feature-gates=BoxcutterRuntime=true`, one after the other on one control plane (audit log
 * on, kube-controller-manager running: upstream's uninstall leaves the objects to the garbage
 * collector), one catalogd and registry, config/crd/experimental applied (ClusterObjectSet).
 * Each side gets packages of its own (`rt-<side>-NNN` in 1.0.0 and 1.0.1, one namespace,
 * ServiceAccount and `olmv1 rbac` RBAC each, and `rt-<side>-one-N` for the single installs) in a ClusterCatalog of its
 * own, and runs bench/lib/runtime-runs.ts: one install and uninstall (median of ROUNDS), EXTENSIONS
 * at once, at rest, a catalog update upgrading all, all uninstalled until their objects are gone;
 * the CRDs our uninstalls keep are deleted before the next side, so every side starts with the
 * floor's CRDs alone (bench/lib/leftover-crds.ts).
 *
 * The floor, first: the rendered objects of generated bundles of the same shape (packages
 * `rt-floor-NNN`, never installed by a controller) applied by server-side apply straight to
 * kube-apiserver as the admin, every object of a bundle at once: one bundle (median of ROUNDS
 * bundles, after one not counted), then EXTENSIONS bundles at once.
 *
 * The control plane has no node: bench/lib/pods-ready.ts marks the extensions' Pods Ready as a
 * kubelet would, so that their Deployments become Available (BoxcutterRuntime waits for that;
 * the Helm runtime does not).
 *
 * Ours run without leader election (a second start would wait for the first one's Lease);
 * request counts leave Lease requests out on every side. Environment:
 * OLMV1_BENCH_RUNTIMES_EXTENSIONS (default 50), OLMV1_BENCH_RUNTIMES_ROUNDS (default 3),
 * OLMV1_BENCH_RUNTIMES_IDLE_SECONDS (default 60), OLMV1_BENCH_RUNTIMES_SIDES (default
 * `helm,boxcutter,upstream`: fewer to look at one side), OLMV1_BENCH_RUNTIMES_IDLE_PROFILE=FILE
 * (a CPU profile of ours under BoxcutterRuntime at rest), OLMV1_BENCH_RUNTIMES_MEMORY_LIMIT_MB
 * (ours in a memory cgroup of that size, as its Deployment's limit puts it: V8 sizes its heap
 * from the limit; default 512, the Deployment's; 0 for none), OLMV1_BENCH_RUNTIMES_TRACE=DIR
 * (each single install's and uninstall's requests as a timeline, a file a side and round, from
 * the audit log: bench/lib/request-timeline.ts). Upstream's runs as its Deployment ships it,
 * without a limit. `runtimes-1000` (on demand only): 1,000 extensions under ours with
 * BoxcutterRuntime alone, one round of the single install, without a limit unless given one.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { loadBundleDir, renderRelease } from '../../test/support/bundle-flow.ts';
import { type AuditLog, createAuditLog } from '../lib/audit-log.ts';
import { deleteLeftoverCrds } from '../lib/leftover-crds.ts';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { type PushedBundle, benchImageClient, createCatalog, createInstaller, pushCatalog, pushGeneratedBundle } from '../lib/extension-bundles.ts';
import { quiet } from '../lib/extension-runs.ts';
import { sleep } from '../lib/http-load.ts';
import { startCpuProfile } from '../lib/inspector.ts';
import { createMemoryLimit } from '../lib/memory-limit.ts';
import { OPERATOR_CONTROLLER_MEMORY_LIMIT_BYTES } from '../../cmd/operator-controller/node-flags.ts';
import { type OlmStack, startOlmStack } from '../lib/olm-stack.ts';
import { type Measurement, atMost, measure } from '../lib/report.ts';
import { markPodsReady } from '../lib/pods-ready.ts';
import { ours, upstreams } from '../lib/request-counts.ts';
import { type SideController, type SideGroup, type SideResult, runSide } from '../lib/runtime-runs.ts';
import { type FloorFigures, comparisonTable, figureRows } from '../lib/runtime-table.ts';
import { type ClusterWatch, eachLimited, watchCluster } from '../lib/scale-runs.ts';
import { median } from '../lib/stats.ts';
import { type ObjectWatch, releaseKinds, watchOwnedObjects } from '../lib/uninstall-runs.ts';
import { startUpstreamOperatorController, upstreamOperatorControllerBinary } from '../lib/upstream-operator-controller.ts';

const env = (name: string, fallback: number): number => (process.env[name] === undefined ? fallback : Number(process.env[name]));

/** How large a run is and which sides it runs. */
interface Scale {
  extensions: number;
  rounds: number;
  idleMs: number;
  /** The sides to run: helm, boxcutter, upstream. */
  sides: readonly string[];
  /** Where to write ours' CPU profile at rest under BoxcutterRuntime. */
  idleProfile: string | undefined;
  /** Ours' memory limit in MiB (0: none). */
  memoryLimitMB: number;
  /** A directory for each single install's request timeline (request-timeline.ts). */
  trace: string | undefined;
}

/** `runtimes`' scale from the environment (see the module comment). */
function scaleFromEnv(extensions: number, sides: string, memoryLimitMB = OPERATOR_CONTROLLER_MEMORY_LIMIT_BYTES / 2 ** 20): Scale {
  return {
    extensions: env('OLMV1_BENCH_RUNTIMES_EXTENSIONS', extensions),
    rounds: env('OLMV1_BENCH_RUNTIMES_ROUNDS', 3),
    idleMs: env('OLMV1_BENCH_RUNTIMES_IDLE_SECONDS', 60) * 1000,
    sides: (process.env['OLMV1_BENCH_RUNTIMES_SIDES'] ?? sides).split(','),
    idleProfile: process.env['OLMV1_BENCH_RUNTIMES_IDLE_PROFILE'],
    trace: process.env['OLMV1_BENCH_RUNTIMES_TRACE'],
    memoryLimitMB: env('OLMV1_BENCH_RUNTIMES_MEMORY_LIMIT_MB', memoryLimitMB),
  };
}

// A bound on a stuck phase: 50 minutes at 1,000, which upstream's installs there do not finish within on
// a 2-core machine; the timeout's missing count is then their figure (decision 0162).
const timeoutMs = (s: Scale): number => Math.max(600_000, s.extensions * 3_000);
const SA = 'installer';
const GATE = '--feature-gates=BoxcutterRuntime=true';
const EXPERIMENTAL_CRDS = fileURLToPath(new URL('../../config/crd/experimental', import.meta.url));
const FIELD_MANAGER = 'olmv1-bench-floor';

const pad = (i: number): string => String(i).padStart(3, '0');

async function publishSide(ctx: BenchContext, stack: OlmStack, label: string, scale: Scale): Promise<SideGroup> {
  const images = benchImageClient();
  try {
    const root = join(ctx.workDir, `bundles-${label}`);
    const pkgs = Array.from({ length: scale.extensions }, (_, i) => `rt-${label}-${pad(i)}`);
    const pushed = new Map<string, PushedBundle>();
    const versions = pkgs.flatMap((pkg) => ['1.0.0', '1.0.1'].map((version) => ({ pkg, version })));
    await eachLimited(versions, 8, async ({ pkg, version }) =>
      pushed.set(`${pkg}@${version}`, await pushGeneratedBundle(images, stack.registry, root, pkg, ['widgets'], undefined, { version })),
    );
    const ones: PushedBundle[] = [];
    for (let i = 0; i <= scale.rounds; i++) ones.push(await pushGeneratedBundle(images, stack.registry, root, `rt-${label}-one-${i}`, ['widgets']));
    const v1 = pkgs.map((pkg) => pushed.get(`${pkg}@1.0.0`) as PushedBundle);
    const v2 = pkgs.map((pkg) => pushed.get(`${pkg}@1.0.1`) as PushedBundle);
    const catalog = `runtimes-${label}`;
    const repo = `${stack.registry}/bench-catalogs/${catalog}`;
    const first = await pushCatalog(images, join(ctx.workDir, `${catalog}-v1`), `${repo}:v1`, [...ones, ...v1]);
    await pushCatalog(images, join(ctx.workDir, `${catalog}-v2`), `${repo}:v2`, [...ones, ...v1, ...v2]);
    await createCatalog(stack.kube.client, catalog, `${repo}:v1`, first);
    await eachLimited([...ones, ...v1, ...v2], 16, (b) => createInstaller(stack.kube.client, b, b.pkg, SA));
    // Upstream's Helm path creates with POST, which `olmv1 rbac`'s RBAC (for server-side apply)
    // does not grant; under BoxcutterRuntime it applies as itself. Its installers may do anything.
    if (label === 'upstream') {
      await stack.kube.client.apply(
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: `${catalog}-installers` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [...ones, ...v1].map((b) => ({ kind: 'ServiceAccount', name: SA, namespace: b.pkg })),
        } as KubeObject,
        { fieldManager: 'olmv1-bench', force: true },
      );
    }
    return { label, catalog, ones, v1, v2, updateRef: `${repo}:v2` };
  } finally {
    images.close();
  }
}

/** The rendered objects of `count` generated bundles of the sides' shape, their namespaces created. */
async function floorObjects(ctx: BenchContext, stack: OlmStack, count: number): Promise<KubeObject[][]> {
  const images = benchImageClient();
  try {
    const root = join(ctx.workDir, 'bundles-floor');
    const out: KubeObject[][] = [];
    for (let i = 0; i < count; i++) {
      const pkg = `rt-floor-${pad(i)}`;
      const b = await pushGeneratedBundle(images, stack.registry, root, pkg, ['widgets']);
      await stack.kube.client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: pkg } }, { fieldManager: 'olmv1-bench', force: true });
      out.push(renderRelease(await loadBundleDir(b.dir), { installNamespace: pkg }, pkg));
    }
    return out;
  } finally {
    images.close();
  }
}

/** Applies every object of `bundle` at once; resolves when all are applied. */
async function applyAtOnce(stack: OlmStack, bundle: readonly KubeObject[]): Promise<void> {
  await Promise.all(bundle.map((o) => stack.kube.client.apply(o, { fieldManager: FIELD_MANAGER, force: true })));
}

/** Resolves once `read` of `obj` satisfies `done`, reading every 5 ms. */
async function until(stack: OlmStack, obj: KubeObject, done: (live: KubeObject) => boolean): Promise<void> {
  const ref = {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    name: obj.metadata.name ?? '',
    ...(obj.metadata.namespace === undefined ? {} : { namespace: obj.metadata.namespace }),
  };
  for (;;) {
    if (done(await stack.kube.client.get(ref))) return;
    await sleep(5);
  }
}

/** True when the object's condition `type` is True (for its current generation, where it says). */
const conditionTrue =
  (type: string) =>
  (live: KubeObject): boolean => {
    const status = live['status'] as { conditions?: { type: string; status: string }[]; observedGeneration?: number } | undefined;
    if (status?.observedGeneration !== undefined && status.observedGeneration < (live.metadata.generation ?? 0)) return false;
    return (status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
  };

/**
 * Rolls `bundle` out by hand as a rollout orders it, no controller between: its CRDs by
 * server-side apply until Established, then the rest until its Deployments are Available (the
 * bench marks their Pods Ready). What BoxcutterRuntime's install waits for beyond the floor.
 */
async function rollOut(stack: OlmStack, bundle: readonly KubeObject[]): Promise<void> {
  const crds = bundle.filter((o) => o.kind === 'CustomResourceDefinition');
  const rest = bundle.filter((o) => o.kind !== 'CustomResourceDefinition');
  await applyAtOnce(stack, crds);
  await Promise.all(crds.map((c) => until(stack, c, conditionTrue('Established'))));
  await applyAtOnce(stack, rest);
  await Promise.all(rest.filter((o) => o.kind === 'Deployment').map((d) => until(stack, d, conditionTrue('Available'))));
}

async function measureFloor(ctx: BenchContext, stack: OlmStack, scale: Scale): Promise<FloorFigures & { raw: object }> {
  const [warmUp = [], ...bundles] = await floorObjects(ctx, stack, 1 + 2 * scale.rounds + scale.extensions);
  // The client's discovery of the kinds is not the API server's work.
  await applyAtOnce(stack, warmUp);
  const timed = async (bs: readonly KubeObject[][], each: (b: KubeObject[]) => Promise<void>): Promise<number[]> => {
    const times: number[] = [];
    for (const b of bs) {
      const t0 = performance.now();
      await each(b);
      times.push(performance.now() - t0);
    }
    return times;
  };
  const ones = await timed(bundles.slice(0, scale.rounds), (b) => applyAtOnce(stack, b));
  const rollouts = await timed(bundles.slice(scale.rounds, 2 * scale.rounds), (b) => rollOut(stack, b));
  const t0 = performance.now();
  await Promise.all(bundles.slice(2 * scale.rounds).map((b) => applyAtOnce(stack, b)));
  const manyMs = performance.now() - t0;
  ctx.log(
    `floor: 1 bundle (${bundles[0]?.length ?? 0} objects) ${ones.map((t) => Math.round(t)).join(', ')} ms; rolled out ${rollouts.map((t) => Math.round(t)).join(', ')} ms; ${scale.extensions} at once ${Math.round(manyMs)} ms`,
  );
  return {
    oneMs: median(ones),
    manyMs,
    rolloutMs: median(rollouts),
    raw: { oneMs: ones, rolloutMs: rollouts, manyMs, objectsPerBundle: bundles[0]?.length ?? 0 },
  };
}

async function oursSide(
  stack: OlmStack,
  watch: ClusterWatch,
  objects: ObjectWatch,
  audit: AuditLog,
  ctx: BenchContext,
  g: SideGroup,
  args: readonly string[],
  scale: Scale,
): Promise<SideResult> {
  const limit = scale.memoryLimitMB > 0 ? await createMemoryLimit(`olmv1-bench-runtimes-${g.label}`, scale.memoryLimitMB * 2 ** 20) : undefined;
  ctx.log(
    `${g.label}: operator-controller runs ${limit === undefined ? `without a memory limit${scale.memoryLimitMB > 0 ? ' (no cgroup could be made here)' : ''}` : `in ${limit.where} (${scale.memoryLimitMB} MiB)`}`,
  );
  const oc = await stack.startOperatorController(args, limit === undefined ? {} : { memoryLimit: limit });
  try {
    const c: SideController = {
      pid: oc.child.pid,
      settle: async () => void (await quiet(oc, 2_500)),
      who: ours,
      profile: () => startCpuProfile(oc.child.pid, oc.inspectPort),
    };
    return await runSide(stack, watch, objects, audit, g, c, {
      workDir: ctx.workDir,
      idleMs: scale.idleMs,
      timeoutMs: timeoutMs(scale),
      log: ctx.log,
      ...(scale.idleProfile === undefined || g.label !== 'boxcutter' ? {} : { idleProfile: scale.idleProfile }),
      ...(scale.trace === undefined ? {} : { traceDir: scale.trace }),
    });
  } finally {
    await oc.child.stop();
    if (limit !== undefined) {
      const kills = await limit.oomKills();
      if (kills > 0) ctx.log(`${g.label}: the kernel killed operator-controller ${kills} times in its memory limit`);
      await limit.remove();
    }
  }
}

function measurements(sides: readonly SideResult[], floor: FloorFigures, { rounds, extensions }: Scale): Measurement[] {
  const upstream = sides.find((s) => s.figures.label === 'upstream');
  const out: Measurement[] = [
    measure('floor: 1 bundle, server-side apply straight to kube-apiserver', floor.oneMs, 'ms', undefined, `median of ${rounds}`),
    measure(`floor: ${extensions} bundles at once`, floor.manyMs / 1000, 's'),
    ...(floor.rolloutMs === undefined
      ? []
      : [
          measure(
            'rollout floor: 1 bundle, CRDs until Established, then the rest until Available',
            floor.rolloutMs,
            'ms',
            undefined,
            `median of ${rounds}`,
          ),
        ]),
  ];
  for (const side of sides) {
    for (const { figure, unit, value } of figureRows(extensions)) {
      const target = side.figures.label === 'boxcutter' && upstream !== undefined ? atMost(value(upstream.figures)) : undefined;
      out.push(measure(`${side.figures.label}: ${figure}`, value(side.figures), unit, target));
    }
    out.push(
      measure(
        `${side.figures.label}: 1 install / floor`,
        side.figures.oneInstallMs / floor.oneMs,
        'x',
        side.figures.label === 'boxcutter' ? atMost(1.5) : undefined,
      ),
      measure(`${side.figures.label}: ${extensions} installs / floor`, side.figures.manyInstallMs / floor.manyMs, 'x'),
      ...(floor.rolloutMs === undefined
        ? []
        : [
            measure(
              `${side.figures.label}: 1 install / rollout floor`,
              side.figures.oneInstallMs / floor.rolloutMs,
              'x',
              side.figures.label === 'boxcutter' ? atMost(1.5) : undefined,
            ),
          ]),
    );
  }
  return out;
}

async function run(ctx: BenchContext, scale: Scale): Promise<BenchOutcome> {
  const binary = upstreamOperatorControllerBinary();
  const audit = await createAuditLog(ctx.workDir);
  const stack = await startOlmStack({
    runtime: ctx.runtime,
    workDir: ctx.workDir,
    log: ctx.log,
    env: process.env,
    apiServerExtraArgs: audit.args,
    controllerManager: true,
  });
  let watch: ClusterWatch | undefined;
  let objects: ObjectWatch | undefined;
  let pods: { stop: () => void; marked: () => number } | undefined;
  try {
    await stack.kubectl([
      'apply',
      '--server-side',
      '--force-conflicts',
      '-f',
      join(EXPERIMENTAL_CRDS, 'olm.operatorframework.io_clusterobjectsets.yaml'),
    ]);
    await stack.kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd/clusterobjectsets.olm.operatorframework.io']);
    // No node: the bench marks the extensions' Pods Ready, or no Deployment becomes Available.
    pods = await markPodsReady(stack.kube.client, (ns) => ns.startsWith('rt-'));
    await stack.startCatalogd();
    const floor = await measureFloor(ctx, stack, scale);
    const labels = ['helm', 'boxcutter', 'upstream'].filter((l) => scale.sides.includes(l) && (l !== 'upstream' || binary !== undefined));
    ctx.log(
      `publishing ${scale.extensions} packages (1.0.0 and 1.0.1) and ${scale.rounds + 1} single ones per side (${labels.join(', ')}), their catalogs and installers`,
    );
    const groups = new Map<string, SideGroup>();
    for (const label of labels) groups.set(label, await publishSide(ctx, stack, label, scale));
    const first = groups.get(labels[0] ?? '') as SideGroup;
    watch = await watchCluster(stack, 'olmv1-system');
    objects = await watchOwnedObjects(
      stack,
      releaseKinds(renderRelease(await loadBundleDir(first.ones[0]?.dir ?? ''), { installNamespace: 'x' }, 'x')),
    );

    const sides: SideResult[] = [];
    // Every side starts with the floor's CRDs alone (leftover-crds.ts).
    const leftovers = async (label: string): Promise<void> => {
      const n = await deleteLeftoverCrds(stack.kube.client, `rt-${label}-`, timeoutMs(scale));
      ctx.log(`${label}: the ${n} CRDs its uninstalls kept deleted before the next side`);
    };
    const helm = groups.get('helm');
    if (helm !== undefined) {
      sides.push(await oursSide(stack, watch, objects, audit, ctx, helm, [], scale));
      await leftovers('helm');
    }
    const boxcutter = groups.get('boxcutter');
    if (boxcutter !== undefined) {
      sides.push(await oursSide(stack, watch, objects, audit, ctx, boxcutter, [GATE], scale));
      await leftovers('boxcutter');
    }
    const upGroup = groups.get('upstream');
    if (binary !== undefined && upGroup !== undefined) {
      ctx.log("starting upstream's operator-controller with the BoxcutterRuntime gate (ours stopped)");
      const up = await startUpstreamOperatorController(binary, stack.cp, ctx.workDir, stack.registry, [GATE]);
      try {
        // Its leader election: the first reconcile waits for the Lease.
        await sleep(3_000);
        const c: SideController = { pid: up.pid, settle: () => sleep(2_000), who: upstreams };
        sides.push(
          await runSide(stack, watch, objects, audit, upGroup, c, {
            workDir: ctx.workDir,
            idleMs: scale.idleMs,
            timeoutMs: timeoutMs(scale),
            log: ctx.log,
            ...(scale.trace === undefined ? {} : { traceDir: scale.trace }),
          }),
        );
      } finally {
        await up.stop();
      }
    }
    const table = comparisonTable(
      sides.map((s) => s.figures),
      scale.extensions,
      floor,
      ['boxcutter', 'upstream'],
    );
    for (const line of table) ctx.log(line);
    return {
      measurements: measurements(sides, floor, scale),
      details: {
        extensions: scale.extensions,
        rounds: scale.rounds,
        idleSeconds: scale.idleMs / 1000,
        table,
        floor: floor.raw,
        sides: Object.fromEntries(sides.map((s) => [s.figures.label, { figures: s.figures, ...s.raw }])),
        podsMarkedReady: pods.marked(),
        upstream: binary ?? 'not run (OLMV1_BENCH_UPSTREAM_OPERATOR_CONTROLLER unset)',
      },
    };
  } finally {
    pods?.stop();
    objects?.stop();
    watch?.stop();
    await stack.stop();
  }
}

const DEFAULT_SCALE = scaleFromEnv(50, 'helm,boxcutter,upstream');

export const runtimesBenchmark: Benchmark = {
  name: 'runtimes',
  title: `Helm runtime, BoxcutterRuntime and upstream's BoxcutterRuntime: 1 and ${DEFAULT_SCALE.extensions} installs, upgrade, uninstall, CPU, RSS, requests, at rest, against the server-side-apply floor`,
  run: (ctx) => run(ctx, DEFAULT_SCALE),
};

/**
 * `runtimes-1000`, on demand only (`--only runtimes-1000`; not in a run of every benchmark):
 * 1,000 extensions under our BoxcutterRuntime alone (the environment above still applies:
 * OLMV1_BENCH_RUNTIMES_SIDES=boxcutter,upstream adds upstream's), one round of the single install.
 */
const SCALE_1000: Scale = { ...scaleFromEnv(1000, 'boxcutter', 0), rounds: env('OLMV1_BENCH_RUNTIMES_ROUNDS', 1) };

export const runtimes1000Benchmark: Benchmark = {
  name: 'runtimes-1000',
  title: `BoxcutterRuntime with ${SCALE_1000.extensions} extensions: installs, upgrade, uninstall, CPU, RSS, requests, at rest (on demand)`,
  onDemand: true,
  run: (ctx) => run(ctx, SCALE_1000),
};
