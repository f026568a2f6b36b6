/**
 * Benchmark `watch-idle`: what operator-controller's drift watches cost at rest, next to the
 * floor under them. `scale-1000` measures operator-controller with 1,000 extensions idle at
 * 0.58-0.62 CPU-s a minute against upstream's 0.03 and puts it on the drift watches' bookmarks
 * (5,000 watches, one per extension, resource and namespace, as each extension's
 * ServiceAccount: decision 0066). This separates the watches from the rest and from Node:
 *
 * - `drift`: DriftWatches alone (bench/children/drift-watches.ts) tracking N releases of five
 *   kinds each (ConfigMap, Secret, ServiceAccount, Role, RoleBinding in the release's own
 *   namespace, labelled as operator-controller labels them): 5 x N watches as one ServiceAccount;
 * - `floor`: the same 5 x N watches as bare HTTP/2 streams (bench/children/watch-floor.ts),
 *   bytes counted and dropped;
 * - `node`: a Node process with one timer and nothing else.
 *
 * All three run at once with operator-controller's Node flags and environment, settle, and are
 * measured over the same window (CPU from /proc/PID/stat, RSS and anonymous memory at its end);
 * the floor also counts the watch events (bookmarks) it received. The real control plane
 * (envtest's kube-apiserver and etcd). OLMV1_BENCH_WATCH_IDLE_EXTENSIONS (default 1000),
 * OLMV1_BENCH_WATCH_IDLE_SECONDS (default 120) and OLMV1_BENCH_WATCH_IDLE_SETTLE_SECONDS (default
 * 300) size it; OLMV1_BENCH_WATCH_IDLE_PROFILE=FILE writes
 * a CPU profile of the drift child over the window (its sampling counts in the drift row),
 * OLMV1_BENCH_WATCH_IDLE_HEAP_PROFILE=FILE a sampling heap profile of it from before the watches
 * start to the end of the window (live allocations by stack, after forced collections).
 */
import { writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { OPERATOR_CONTROLLER_ENVIRONMENT, OPERATOR_CONTROLLER_NODE_FLAGS } from '../../cmd/operator-controller/node-flags.ts';
import { OWNER_KIND_LABEL, OWNER_NAME_LABEL } from '../../pkg/shared/api/index.ts';
import { TokenGetter, type KubeClient, type KubeObject } from '../../pkg/shared/kube/index.ts';
import type { WatchedRelease } from '../children/drift-watches.ts';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { type BenchChild, type ChildMessage, forkChild, spawnChild } from '../lib/child.ts';
import { startCpuProfile, startHeapSampling } from '../lib/inspector.ts';
import { startOlmStack } from '../lib/olm-stack.ts';
import { freePorts } from '../../test/envtest/index.ts';
import { procCpuSeconds, procMemory } from '../lib/proc.ts';
import { measure } from '../lib/report.ts';

const EXTENSIONS = Number(process.env['OLMV1_BENCH_WATCH_IDLE_EXTENSIONS'] ?? '1000');
const WINDOW_S = Number(process.env['OLMV1_BENCH_WATCH_IDLE_SECONDS'] ?? '120');
const PROFILE = process.env['OLMV1_BENCH_WATCH_IDLE_PROFILE'];
const HEAP_PROFILE = process.env['OLMV1_BENCH_WATCH_IDLE_HEAP_PROFILE'];
/**
 * From the watches open to the window. Opening 5,000 watches leaves garbage that V8 collects
 * for minutes afterwards (an allocation-driven mark-compact about a minute in, then the memory
 * reducer's, ~100 s apart): with 20 s, as until 2026-11-27, those collections were most of the
 * difference to the floor (bench/results/idle.md).
 */
const SETTLE_MS = Number(process.env['OLMV1_BENCH_WATCH_IDLE_SETTLE_SECONDS'] ?? '300') * 1000;
const SA = { namespace: 'bench-watch', name: 'watcher' };
/** The five kinds of each release, with their list paths. */
const KINDS = [
  { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', base: '/api/v1' },
  { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', base: '/api/v1' },
  { apiVersion: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', base: '/api/v1' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', plural: 'roles', base: '/apis/rbac.authorization.k8s.io/v1' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', plural: 'rolebindings', base: '/apis/rbac.authorization.k8s.io/v1' },
] as const;

const extensionName = (i: number): string => `watch-${String(i).padStart(4, '0')}`;

/** The release objects of extension `name` in namespace `name`, labelled as operator-controller labels them. */
function releaseObjects(name: string): KubeObject[] {
  const metadata = { name: `${name}-obj`, namespace: name, labels: { [OWNER_KIND_LABEL]: 'ClusterExtension', [OWNER_NAME_LABEL]: name } };
  return KINDS.map(({ apiVersion, kind }) => {
    const obj: KubeObject = { apiVersion, kind, metadata: structuredClone(metadata) };
    if (kind === 'Role') obj['rules'] = [];
    if (kind === 'RoleBinding') {
      obj['roleRef'] = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${name}-obj` };
      obj['subjects'] = [{ kind: 'ServiceAccount', name: `${name}-obj`, namespace: name }];
    }
    return obj;
  });
}

/** Runs `fn` over `items`, `width` at a time. */
async function pool<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

async function setUp(client: KubeClient, names: readonly string[]): Promise<void> {
  const apply = (obj: KubeObject): Promise<unknown> => client.apply(obj, { fieldManager: 'olmv1-bench', force: true });
  await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: SA.namespace } });
  await apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA.name, namespace: SA.namespace } });
  await apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'bench-watcher' },
    rules: [
      { apiGroups: [''], resources: ['configmaps', 'secrets', 'serviceaccounts'], verbs: ['list', 'watch'] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['list', 'watch'] },
    ],
  } as KubeObject);
  await apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'bench-watcher' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'bench-watcher' },
    subjects: [{ kind: 'ServiceAccount', name: SA.name, namespace: SA.namespace }],
  } as KubeObject);
  await pool(names, 16, async (name) => {
    await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    for (const obj of releaseObjects(name)) await apply(obj);
  });
}

/** The floor's watch paths: the drift watches' requests (one per kind and namespace, the owner selector). */
function watchPaths(names: readonly string[]): string[] {
  return names.flatMap((name) =>
    KINDS.map(({ base, plural }) => {
      const q = new URLSearchParams({
        watch: '1',
        labelSelector: `${OWNER_KIND_LABEL}=ClusterExtension,${OWNER_NAME_LABEL}=${name}`,
        allowWatchBookmarks: 'true',
        timeoutSeconds: '3600',
      });
      return `${base}/namespaces/${name}/${plural}?${q.toString()}`;
    }),
  );
}

/** The drift child's collections so far (bench/children/drift-watches.ts). */
interface GcStats extends ChildMessage {
  minor: number;
  major: number;
  ms: number;
}

interface Sample {
  cpu: number;
  at: number;
}

function sample(pid: number): Sample {
  const cpu = procCpuSeconds(pid);
  if (cpu === undefined) throw new Error(`process ${pid} is gone`);
  return { cpu, at: performance.now() };
}

const perMinute = (a: Sample, b: Sample): number => ((b.cpu - a.cpu) * 60_000) / (b.at - a.at);

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const stack = await startOlmStack({ runtime: ctx.runtime, workDir: ctx.workDir, log: ctx.log, env: process.env });
  const children: BenchChild[] = [];
  try {
    const names = Array.from({ length: EXTENSIONS }, (_, i) => extensionName(i));
    ctx.log(`creating ${EXTENSIONS} namespaces with one object of each of ${KINDS.length} kinds`);
    await setUp(stack.kube.client, names);
    const token = await new TokenGetter({ client: stack.kube.client }).get(SA.namespace, SA.name);
    const execArgv = [...OPERATOR_CONTROLLER_NODE_FLAGS];
    const env = { ...OPERATOR_CONTROLLER_ENVIRONMENT };
    const [inspectPort = 0] = await freePorts(1);
    const drift = forkChild(ctx.runtime.entry('bench/children/drift-watches.ts'), {
      execArgv: [...execArgv, `--inspect-port=127.0.0.1:${inspectPort}`],
      env,
    });
    const floor = forkChild(ctx.runtime.entry('bench/children/watch-floor.ts'), { execArgv, env });
    const node = spawnChild(['-e', 'setInterval(() => undefined, 60_000)'], { execArgv, env });
    children.push(drift, floor, node);

    ctx.log(`opening ${EXTENSIONS * KINDS.length} drift watches and as many bare streams`);
    const releases: WatchedRelease[] = names.map((name) => ({ extension: name, namespace: name, objects: releaseObjects(name) }));
    // The child answers `gc` once it runs: only then may SIGUSR1 open its inspector.
    drift.send({ type: 'gc' });
    await drift.next<GcStats>('gc');
    const stopHeapProfile = HEAP_PROFILE === undefined ? undefined : await startHeapSampling(drift.pid, inspectPort);
    drift.send({ type: 'track', kubeconfig: stack.cp.kubeconfigPath, serviceAccount: SA, releases });
    floor.send({ type: 'watch', server: stack.cp.server, caPem: stack.cp.caPem, token, paths: watchPaths(names) });
    const synced = await drift.next<{ type: string; streams: number; connections: number }>('synced', 600_000);
    const opened = await floor.next<{ type: string; sessions: number }>('open', 600_000);
    ctx.log(`open: drift ${synced.streams} streams on ${synced.connections} sessions, floor on ${opened.sessions}; settling ${SETTLE_MS / 1000} s`);
    await sleep(SETTLE_MS);

    floor.send({ type: 'count' });
    const events0 = (await floor.next<{ type: string; events: number }>('count')).events;
    const stopProfile = PROFILE === undefined ? undefined : await startCpuProfile(drift.pid, inspectPort);
    drift.send({ type: 'gc' });
    const gc0 = await drift.next<GcStats>('gc');
    const before = children.map((c) => sample(c.pid));
    ctx.log(`measuring ${WINDOW_S} s at rest`);
    await sleep(WINDOW_S * 1000);
    const after = children.map((c) => sample(c.pid));
    drift.send({ type: 'gc' });
    const gc1 = await drift.next<GcStats>('gc');
    if (stopHeapProfile !== undefined && HEAP_PROFILE !== undefined) {
      const heap = await stopHeapProfile();
      await writeFile(HEAP_PROFILE, JSON.stringify(heap.profile));
      ctx.log(`wrote the drift child's heap profile to ${HEAP_PROFILE} (V8 heap used ${Math.round(heap.usedSize / 1048576)} MB)`);
    }
    if (stopProfile !== undefined && PROFILE !== undefined) {
      await writeFile(PROFILE, JSON.stringify(await stopProfile()));
      ctx.log(`wrote the drift child's CPU profile to ${PROFILE}`);
    }
    floor.send({ type: 'count' });
    const counted = await floor.next<{ type: string; events: number; failure: string | null }>('count');
    if (counted.failure !== null) throw new Error(`the floor's watches failed: ${counted.failure}`);
    const memory = children.map((c) => procMemory(c.pid));
    const [driftCpu = 0, floorCpu = 0, nodeCpu = 0] = before.map((b, i) => perMinute(b, after[i] as Sample));
    const eventsPerMinute = ((counted.events - events0) * 60) / WINDOW_S;
    const watches = EXTENSIONS * KINDS.length;
    const mb = (bytes: number | undefined): number => Math.round((bytes ?? 0) / 104_857.6) / 10;
    const [dm, fm, nm] = memory;
    const overFloor = floorCpu > 0 ? driftCpu / floorCpu : Number.NaN;
    return {
      measurements: [
        measure(
          `${watches} drift watches at rest (DriftWatches alone, ${EXTENSIONS} releases x ${KINDS.length} kinds): CPU a minute`,
          driftCpu,
          's',
          undefined,
          `${Math.round(overFloor * 10) / 10}x the floor below; ${Math.round(((driftCpu - nodeCpu) / watches) * 1e9) / 1e3} µs of CPU per watch a minute above an idle Node process; RSS ${mb(dm?.rss)} MB (anon ${mb(dm?.anon)} MB); ${synced.streams} HTTP/2 streams on ${synced.connections} sessions; in the window ${gc1.minor - gc0.minor} scavenges and ${gc1.major - gc0.major} mark-compact steps, ${Math.round(gc1.ms - gc0.ms)} ms on the main thread`,
        ),
        measure(
          `  floor: the same ${watches} watches as bare HTTP/2 streams (bytes counted, nothing decoded): CPU a minute`,
          floorCpu,
          's',
          undefined,
          `${Math.round(eventsPerMinute)} watch events a minute received (bookmarks: ${Math.round((eventsPerMinute / watches) * 100) / 100} per watch); RSS ${mb(fm?.rss)} MB (anon ${mb(fm?.anon)} MB); ${opened.sessions} sessions`,
        ),
        measure(
          '  floor: an idle Node process (one timer): CPU a minute',
          nodeCpu,
          's',
          undefined,
          `RSS ${mb(nm?.rss)} MB (anon ${mb(nm?.anon)} MB); all three with operator-controller's Node flags and environment, measured in the same ${WINDOW_S} s`,
        ),
      ],
      details: {
        extensions: EXTENSIONS,
        watches,
        windowSeconds: WINDOW_S,
        cpuPerMinute: { drift: driftCpu, floor: floorCpu, node: nodeCpu },
        eventsPerMinute,
        memory,
      },
    };
  } finally {
    // SIGTERM ends all three (the IPC children's `stop` message is for a graceful end only).
    await Promise.allSettled(children.map((c) => c.stop()));
    await stack.stop();
  }
}

export const watchIdleBenchmark: Benchmark = {
  name: 'watch-idle',
  title: "operator-controller's drift watches at rest (1,000 extensions x 5 kinds) against bare HTTP/2 streams and an idle Node process",
  run,
};
