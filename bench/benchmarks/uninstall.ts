/**
 * Uninstall (issue 49): how long deleting ClusterExtensions takes until they and their objects
 * are gone, on the real control plane WITH kube-controller-manager (its garbage collector is
 * what removes upstream's objects; bench/lib/olm-stack.ts), ours and, when
 * OLMV1_BENCH_UPSTREAM_OPERATOR_CONTROLLER names its binary, upstream's
 * (bench/lib/upstream-operator-controller.ts) on the same API server, catalogd, registry and
 * installers, one after the other (never both running: both reconcile every ClusterExtension).
 *
 * Each controller gets packages of its own (CRDs kept by ours on uninstall would otherwise be
 * in the way of upstream's install): a bundle whose release holds 20 objects, installed and
 * uninstalled ROUNDS times under one name after a warm-up, and EXTENSIONS bundles of 5 objects,
 * one per namespace and ServiceAccount, installed in one kubectl apply and deleted at once,
 * MANY_ROUNDS times. Each uninstall is timed from the first DELETE (sent in process, all at once)
 * until the ClusterExtensions are gone and until every non-CRD object of theirs is gone
 * (bench/lib/uninstall-runs.ts); the rows are medians. Each controller's requests during the
 * uninstalls come from kube-apiserver's audit log, and the CPU time of the uninstall of
 * EXTENSIONS from /proc: the controller's, kube-apiserver's, etcd's and kube-controller-manager's
 * (whose garbage collector does upstream's deletes).
 *
 * Targets (issue 49): one extension uninstalled within 100 ms; EXTENSIONS within upstream's time
 * (its finalizer removal plus the garbage collector's deletion).
 */
import { join } from 'node:path';
import { copyFile } from 'node:fs/promises';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { type AuditEvent, type AuditLog, createAuditLog, describeRequests } from '../lib/audit-log.ts';
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
import { sleep } from '../lib/http-load.ts';
import { type OlmStack, startOlmStack } from '../lib/olm-stack.ts';
import { type Measurement, atMost, measure } from '../lib/report.ts';
import { findProcesses } from '../lib/proc.ts';
import { upstreams } from '../lib/request-counts.ts';
import { type ClusterWatch, type ProcessGroups, controlPlaneProcesses, eachLimited, watchCluster } from '../lib/scale-runs.ts';
import { median, round } from '../lib/stats.ts';
import { type ObjectWatch, type UninstallRun, installThenUninstall, releaseKinds, watchOwnedObjects } from '../lib/uninstall-runs.ts';
import { startUpstreamOperatorController, upstreamOperatorControllerBinary } from '../lib/upstream-operator-controller.ts';
import { loadBundleDir, renderRelease } from '../../test/support/bundle-flow.ts';

const env = (name: string): number | undefined => (process.env[name] === undefined ? undefined : Number(process.env[name]));
const ROUNDS = env('OLMV1_BENCH_UNINSTALL_ROUNDS') ?? 5;
const MANY_ROUNDS = env('OLMV1_BENCH_UNINSTALL_MANY_ROUNDS') ?? 2;
const EXTENSIONS = env('OLMV1_BENCH_UNINSTALL_EXTENSIONS') ?? 50;
/** Where to copy kube-apiserver's audit log once ours is done (for a closer look at its requests' timing). */
const AUDIT_COPY = process.env['OLMV1_BENCH_UNINSTALL_AUDIT'];
const BIG_OBJECTS = 20;
const SA = 'installer';
const SYSTEM_NAMESPACE = 'olmv1-system';
const TIMEOUT_MS = 300_000;

/** The packages of one controller. */
interface Side {
  big: PushedBundle;
  small: PushedBundle[];
}

async function publish(ctx: BenchContext, stack: OlmStack, prefixes: readonly string[]): Promise<Map<string, Side>> {
  const images = benchImageClient();
  try {
    const root = join(ctx.workDir, 'bundles');
    const sides = new Map<string, Side>();
    for (const p of prefixes) {
      const big = await pushGeneratedBundle(images, stack.registry, root, `${p}-big`, ['widgets', 'gadgets'], BIG_OBJECTS);
      const names = Array.from({ length: EXTENSIONS }, (_, i) => `${p}-${String(i).padStart(2, '0')}`);
      const small: PushedBundle[] = [];
      await eachLimited(names, 8, async (n) => small.push(await pushGeneratedBundle(images, stack.registry, root, n, ['widgets'])));
      small.sort((a, b) => a.pkg.localeCompare(b.pkg));
      sides.set(p, { big, small });
    }
    const all = [...sides.values()].flatMap((s) => [s.big, ...s.small]);
    const ref = `${stack.registry}/bench-catalogs/uninstall:latest`;
    await createCatalog(stack.kube.client, 'uninstall', ref, await pushCatalog(images, join(ctx.workDir, 'catalog'), ref, all));
    ctx.log(`creating ${all.length} namespaces with a ServiceAccount and the RBAC olmv1 rbac prints`);
    await eachLimited(all, 16, (b) => createInstaller(stack.kube.client, b, b.pkg, SA));
    // Upstream's Helm applier creates with POST, which the RBAC `olmv1 rbac` prints for our
    // server-side applies does not grant: its installers are cluster admins (its uninstall
    // makes no request as them: the garbage collector deletes).
    const upstream = sides.get('upstream');
    if (upstream !== undefined) await eachLimited([upstream.big, ...upstream.small], 16, (b) => clusterAdmin(stack, b.pkg));
    return sides;
  } finally {
    images.close();
  }
}

/** Binds ServiceAccount `SA` of namespace `ns` to the cluster-admin ClusterRole. */
async function clusterAdmin(stack: OlmStack, ns: string): Promise<void> {
  await stack.kube.client.apply(
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${ns}-${SA}-cluster-admin` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: SA, namespace: ns }],
    },
    { fieldManager: 'olmv1-bench', force: true },
  );
}

/** The rounds of one controller: the 20-object extension ROUNDS times (after a warm-up), then EXTENSIONS at once. */
async function rounds(
  ctx: BenchContext,
  stack: OlmStack,
  watch: ClusterWatch,
  objects: ObjectWatch,
  side: Side,
  label: string,
  settle: () => Promise<void>,
  counted: { audit: AuditLog; healthUrl?: string; who?: (e: AuditEvent) => boolean; cpu: ProcessGroups },
): Promise<{ one: UninstallRun[]; many: UninstallRun[] }> {
  const file = (n: string): string => join(ctx.workDir, `${label}-${n}.yaml`);
  const one: UninstallRun[] = [];
  for (let i = 0; i <= ROUNDS; i++) {
    const r = await installThenUninstall(stack, watch, objects, {
      manifests: [clusterExtension(side.big.pkg, side.big, side.big.pkg, SA)],
      bundles: new Map([[side.big.pkg, side.big.name]]),
      file: file('one'),
      timeoutMs: TIMEOUT_MS,
      settle,
      ...counted,
    });
    ctx.log(
      `${label}: ${i === 0 ? 'warm-up' : `round ${i}/${ROUNDS}`}: 1 extension (${r.objects} objects) gone in ${Math.round(r.extensionsGoneMs)} ms, objects in ${Math.round(r.objectsGoneMs)} ms; finalizers step ${Math.round(r.finalizersMs)} ms, ${r.requests.length} requests`,
    );
    if (i > 0) one.push(r);
  }
  const many: UninstallRun[] = [];
  for (let i = 0; i < MANY_ROUNDS; i++) {
    const r = await installThenUninstall(stack, watch, objects, {
      manifests: side.small.map((b) => clusterExtension(b.pkg, b, b.pkg, SA)),
      bundles: new Map(side.small.map((b) => [b.pkg, b.name])),
      file: file('many'),
      timeoutMs: TIMEOUT_MS,
      settle,
      ...counted,
    });
    ctx.log(
      `${label}: round ${i + 1}/${MANY_ROUNDS}: ${EXTENSIONS} extensions (${r.objects} objects) gone in ${Math.round(r.extensionsGoneMs)} ms, objects in ${Math.round(r.objectsGoneMs)} ms; finalizers steps ${Math.round(r.finalizersMs)} ms, ${r.requests.length} requests; ${cpuText(r)}`,
    );
    many.push(r);
  }
  return { one, many };
}

/** The control plane's processes and kube-controller-manager's, with the controller's `pid`. */
function cpuGroups(stack: OlmStack, pid: number): ProcessGroups {
  const kcm = findProcesses((cmd) => cmd.includes(stack.cp.dir) && (cmd.split(' ')[0] ?? '').endsWith('/kube-controller-manager'));
  return { controller: [pid], ...controlPlaneProcesses(stack), 'kube-controller-manager': kcm };
}

const cpuText = (r: UninstallRun): string =>
  `CPU ${Object.entries(r.cpu)
    .map(([k, v]) => `${k} ${round(v, 2)} s`)
    .join(', ')}`;

/** The median over `runs` of each group's CPU seconds, as `controller 1.2 s, ...`. */
const medianCpu = (runs: readonly UninstallRun[]): string =>
  Object.keys(runs[0]?.cpu ?? {})
    .map((k) => `${k} ${round(median(runs.map((r) => r.cpu[k] ?? Number.NaN)), 2)} s`)
    .join(', ');

const controllerCpu = (runs: readonly UninstallRun[]): number => round(median(runs.map((r) => r.cpu['controller'] ?? Number.NaN)), 2);

const med = (runs: readonly UninstallRun[], f: (r: UninstallRun) => number): number => round(median(runs.map(f)), 0);
const spread = (runs: readonly UninstallRun[]): string =>
  `runs ${runs.map((r) => Math.round(r.doneMs)).join(', ')} ms; ClusterExtension gone ${med(runs, (r) => r.extensionsGoneMs)} ms, objects ${med(runs, (r) => r.objectsGoneMs)} ms (medians)`;

/** Upstream's operator-controller, started over the stack; resolves to its stop. */
async function run(ctx: BenchContext): Promise<BenchOutcome> {
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
  try {
    await stack.startCatalogd();
    const upstreamBinary = upstreamOperatorControllerBinary();
    const prefixes = upstreamBinary === undefined ? ['ours'] : ['ours', 'upstream'];
    ctx.log(`pushing, per controller, a ${BIG_OBJECTS}-object bundle and ${EXTENSIONS} small ones (${prefixes.join(', ')}), and their catalog`);
    const sides = await publish(ctx, stack, prefixes);
    const ours = sides.get('ours') as Side;
    const rendered = renderRelease(await loadBundleDir(ours.big.dir), { installNamespace: ours.big.pkg }, ours.big.pkg);
    watch = await watchCluster(stack, SYSTEM_NAMESPACE);
    objects = await watchOwnedObjects(stack, releaseKinds(rendered));

    const oc = await stack.startOperatorController();
    const ourRuns = await rounds(ctx, stack, watch, objects, ours, 'ours', async () => void (await quiet(oc, 2_500)), {
      audit,
      healthUrl: oc.healthUrl,
      cpu: cpuGroups(stack, oc.child.pid),
    });
    await oc.child.stop();
    if (AUDIT_COPY !== undefined) await copyFile(join(ctx.workDir, 'audit.log'), AUDIT_COPY);

    let upRuns: { one: UninstallRun[]; many: UninstallRun[] } | undefined;
    const upSide = sides.get('upstream');
    if (upstreamBinary !== undefined && upSide !== undefined) {
      ctx.log("starting upstream's operator-controller (ours stopped)");
      const { pid, stop } = await startUpstreamOperatorController(upstreamBinary, stack.cp, ctx.workDir, stack.registry);
      // Its leader election: the first reconcile waits for the Lease.
      await sleep(3_000);
      try {
        upRuns = await rounds(ctx, stack, watch, objects, upSide, 'upstream', () => sleep(2_000), {
          audit,
          who: upstreams,
          cpu: cpuGroups(stack, pid),
        });
      } finally {
        await stop();
      }
    }

    const oneMs = med(ourRuns.one, (r) => r.doneMs);
    const manyMs = med(ourRuns.many, (r) => r.doneMs);
    const upManyMs = upRuns === undefined ? undefined : med(upRuns.many, (r) => r.doneMs);
    const measurements: Measurement[] = [
      measure(`ours: 1 extension (${ourRuns.one[0]?.objects ?? '?'} objects) delete -> all gone`, oneMs, 'ms', atMost(100), spread(ourRuns.one)),
      measure(
        `ours: ${EXTENSIONS} extensions (${ourRuns.many[0]?.objects ?? '?'} objects) delete -> all gone`,
        manyMs,
        'ms',
        upManyMs === undefined ? undefined : atMost(upManyMs),
        spread(ourRuns.many),
      ),
      measure(
        '  our finalizers step, uninstall of 1 (median)',
        med(ourRuns.one, (r) => r.finalizersMs),
        'ms',
        undefined,
        'the reconcile that deletes the objects and the records, from operator-controller /metrics',
      ),
      measure(
        '  our requests, uninstall of 1 (median)',
        med(ourRuns.one, (r) => r.requests.length),
        '',
        undefined,
        `the last round: ${describeRequests(ourRuns.one.at(-1)?.requests ?? [])}`,
      ),
      measure(
        `  our requests per extension, uninstall of ${EXTENSIONS} (median)`,
        round(median(ourRuns.many.map((r) => r.requests.length)) / EXTENSIONS, 1),
        '',
        undefined,
        `the last round: ${describeRequests(ourRuns.many.at(-1)?.requests ?? [])}`,
      ),
      measure(`  our CPU, uninstall of ${EXTENSIONS} (median)`, controllerCpu(ourRuns.many), 'CPU-s', undefined, medianCpu(ourRuns.many)),
    ];
    if (upRuns !== undefined) {
      measurements.push(
        measure(
          `upstream: 1 extension delete -> all gone (finalizers + garbage collector)`,
          med(upRuns.one, (r) => r.doneMs),
          'ms',
          undefined,
          spread(upRuns.one),
        ),
        measure(`upstream: ${EXTENSIONS} extensions delete -> all gone`, upManyMs ?? Number.NaN, 'ms', undefined, spread(upRuns.many)),
        measure(
          '  its requests, uninstall of 1 (median)',
          med(upRuns.one, (r) => r.requests.length),
          '',
          undefined,
          `the last round: ${describeRequests(upRuns.one.at(-1)?.requests ?? [])}`,
        ),
        measure(
          `  its requests per extension, uninstall of ${EXTENSIONS} (median)`,
          round(median(upRuns.many.map((r) => r.requests.length)) / EXTENSIONS, 1),
          '',
          undefined,
          `the last round: ${describeRequests(upRuns.many.at(-1)?.requests ?? [])}`,
        ),
        measure(`  its CPU, uninstall of ${EXTENSIONS} (median)`, controllerCpu(upRuns.many), 'CPU-s', undefined, medianCpu(upRuns.many)),
      );
    }
    const detail = (runs: readonly UninstallRun[]): object[] =>
      runs.map((r) => ({
        objects: r.objects,
        installMs: Math.round(r.install.allMs),
        extensionsGoneMs: Math.round(r.extensionsGoneMs),
        objectsGoneMs: Math.round(r.objectsGoneMs),
        finalizersStepMs: Math.round(r.finalizersMs),
        requests: r.requests.length,
        cpuSeconds: r.cpu,
      }));
    return {
      measurements,
      details: {
        ours: { one: detail(ourRuns.one), many: detail(ourRuns.many) },
        ...(upRuns === undefined ? {} : { upstream: { one: detail(upRuns.one), many: detail(upRuns.many) } }),
      },
    };
  } finally {
    objects?.stop();
    watch?.stop();
    await stack.stop();
  }
}

export const uninstallBenchmark: Benchmark = {
  name: 'uninstall',
  title: 'ClusterExtension uninstall of 1 and of 50, ours and upstream, with kube-controller-manager',
  run,
};
