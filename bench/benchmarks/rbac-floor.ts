/**
 * Benchmark `rbac-floor`: what a request made as a ServiceAccount costs kube-apiserver as the
 * cluster's ClusterRoleBindings grow, without operator-controller. Every extension brings its
 * installer's bindings (`olmv1 rbac` prints a ClusterRoleBinding per bundle version, and the
 * release's own cluster RBAC adds one), and every request operator-controller makes as an
 * installer is authorized by kube-apiserver's RBAC authorizer, which visits the cluster's
 * ClusterRoleBindings to find the subject's rules; creating a role or binding also runs the
 * escalation check over the subject's rules. `scale-10000` found kube-apiserver saturating both
 * cores with the installs' requests as ServiceAccounts slowing as extensions were added
 * (bench/results/scale.md, 2026-11-26): this measures that floor alone.
 *
 * On the real control plane (envtest's kube-apiserver and etcd): one ServiceAccount allowed to
 * read ConfigMaps in its namespace and to create ClusterRoles (with those rules), and for each
 * size in OLMV1_BENCH_RBAC_FLOOR_BINDINGS (default 0,5000,20000) that many unrelated
 * ClusterRoleBindings (of `view`, each to a ServiceAccount of its own), then REQUESTS (default
 * 100) of each request kind one after the other as the ServiceAccount: a GET of a ConfigMap, a
 * SelfSubjectRulesReview of its namespace (operator-controller's pre-authorization makes two per
 * install and upgrade), and a server-side dry-run apply of a ClusterRole (each install's dry run
 * of its ClusterRole). Reported per size and kind: median and p90 latency, and kube-apiserver's
 * CPU per request (/proc/PID/stat over the requests of that kind).
 */
import { percentile } from '../lib/stats.ts';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { startOlmStack } from '../lib/olm-stack.ts';
import { controlPlaneProcesses, cpuMeter, eachLimited } from '../lib/scale-runs.ts';
import { measure, type Measurement } from '../lib/report.ts';
import { TokenGetter, createScopedClientFactory, type KubeClient, type KubeObject } from '../../pkg/shared/kube/index.ts';

const SIZES = (process.env['OLMV1_BENCH_RBAC_FLOOR_BINDINGS'] ?? '0,5000,20000').split(',').map(Number);
const REQUESTS = Number(process.env['OLMV1_BENCH_RBAC_FLOOR_REQUESTS'] ?? 100);
const NS = 'rbac-floor';
const SA = 'installer';
const RBAC = 'rbac.authorization.k8s.io/v1';
const FIELD_MANAGER = 'olmv1-bench';

/** The rules the ServiceAccount holds and the ClusterRole it dry-runs grants (no escalation). */
const RULES = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }];

async function setUp(admin: KubeClient): Promise<void> {
  const apply = (obj: KubeObject): Promise<unknown> => admin.apply(obj, { fieldManager: FIELD_MANAGER, force: true });
  await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA, namespace: NS } });
  await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: NS }, data: { a: 'b' } } as KubeObject);
  await apply({
    apiVersion: RBAC,
    kind: 'ClusterRole',
    metadata: { name: 'rbac-floor-installer' },
    rules: [...RULES, { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['create', 'patch', 'get'] }],
  } as KubeObject);
  await apply({
    apiVersion: RBAC,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'rbac-floor-installer' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'rbac-floor-installer' },
    subjects: [{ kind: 'ServiceAccount', name: SA, namespace: NS }],
  } as KubeObject);
}

/** Unrelated ClusterRoleBindings `rbac-floor-<i>` for i in [from, to). */
async function addBindings(admin: KubeClient, from: number, to: number): Promise<void> {
  const indexes = Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
  await eachLimited(indexes, 32, (i) =>
    admin.create({
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: `rbac-floor-${i}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'ServiceAccount', name: `other-${i}`, namespace: 'elsewhere' }],
    } as KubeObject),
  );
}

/** The request kinds, each one request as the ServiceAccount. */
const KINDS: Record<string, (sa: KubeClient) => Promise<unknown>> = {
  'GET configmap': (sa) => sa.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'settings' }),
  'create selfsubjectrulesreview': (sa) =>
    sa.create({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', metadata: {}, spec: { namespace: NS } } as KubeObject),
  'dry-run apply clusterrole': (sa) =>
    sa.apply({ apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: 'rbac-floor-dry-run' }, rules: RULES } as KubeObject, {
      fieldManager: FIELD_MANAGER,
      force: true,
      dryRun: true,
    }),
};

interface KindFigures {
  medianMs: number;
  p90Ms: number;
  apiserverCpuMs: number;
}

async function measureKind(
  sa: KubeClient,
  call: (sa: KubeClient) => Promise<unknown>,
  apiserver: () => Record<string, number>,
): Promise<KindFigures> {
  for (let i = 0; i < 10; i++) await call(sa);
  const times: number[] = [];
  const start = apiserver()['kube-apiserver'] ?? 0;
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    await call(sa);
    times.push(performance.now() - t0);
  }
  const cpu = (apiserver()['kube-apiserver'] ?? 0) - start;
  times.sort((a, b) => a - b);
  return { medianMs: percentile(times, 50), p90Ms: percentile(times, 90), apiserverCpuMs: (cpu * 1000) / REQUESTS };
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const stack = await startOlmStack({ runtime: ctx.runtime, workDir: ctx.workDir, log: ctx.log, env: process.env });
  const scoped = createScopedClientFactory({
    base: stack.kube.connection,
    mapper: stack.kube.mapper,
    tokens: new TokenGetter({ client: stack.kube.client }),
  });
  try {
    const admin = stack.kube.client;
    await setUp(admin);
    const sa = scoped.forServiceAccount(NS, SA);
    const figures: Record<string, Record<string, KindFigures>> = {};
    const measurements: Measurement[] = [];
    let bindings = 0;
    for (const size of [...SIZES].sort((a, b) => a - b)) {
      ctx.log(`adding ClusterRoleBindings ${bindings} -> ${size}`);
      await addBindings(admin, bindings, size);
      bindings = Math.max(bindings, size);
      const apiserver = cpuMeter(controlPlaneProcesses(stack));
      const bySize: Record<string, KindFigures> = {};
      for (const [kind, call] of Object.entries(KINDS)) {
        const f = await measureKind(sa, call, apiserver);
        bySize[kind] = f;
        ctx.log(
          `${size} bindings, ${kind}: median ${f.medianMs.toFixed(1)} ms, p90 ${f.p90Ms.toFixed(1)} ms, kube-apiserver ${f.apiserverCpuMs.toFixed(1)} ms CPU each`,
        );
        measurements.push(
          measure(
            `${kind} as a ServiceAccount, ${size} ClusterRoleBindings`,
            f.medianMs,
            'ms',
            undefined,
            `median of ${REQUESTS}, p90 ${f.p90Ms.toFixed(1)} ms; kube-apiserver CPU ${f.apiserverCpuMs.toFixed(1)} ms a request`,
          ),
        );
      }
      figures[String(size)] = bySize;
    }
    return { measurements, details: { requests: REQUESTS, figures } };
  } finally {
    scoped.close();
    await stack.stop();
  }
}

/** kube-apiserver's cost per request made as a ServiceAccount, by the number of ClusterRoleBindings. */
export const rbacFloorBenchmark: Benchmark = {
  name: 'rbac-floor',
  title: `kube-apiserver per request as a ServiceAccount with ${SIZES.join(', ')} ClusterRoleBindings (authorizer floor)`,
  run,
};
