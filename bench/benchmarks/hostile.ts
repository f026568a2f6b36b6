/**
 * operator-controller's peak memory with four hostile bundles installed at once, on the real
 * control plane (the `extensions` stack: envtest's kube-apiserver + etcd and registry, catalogd
 * and operator-controller as child processes with their Deployments' Node settings).
 *
 * Four bundles of large generated CRDs, each just under the default unpacked-bytes cap of a
 * bundle image (bench/lib/hostile-bundles.ts), one package each in one catalog; a namespace,
 * ServiceAccount and the RBAC `olmv1 rbac` prints for each. Once operator-controller is ready
 * and idle, its kernel high-water mark (VmHWM) is reset; the four ClusterExtensions are applied
 * in one kubectl call, so its reconcile workers pull, parse, render and apply them at the
 * same time; its RSS is sampled every 20 ms until all four are installed. The peak is the larger
 * of VmHWM and the samples.
 *
 * operator-controller runs in a memory cgroup of its Deployment's limit (512 MiB,
 * bench/lib/memory-limit.ts), as in a cluster: Node sizes V8's heap from it, and the kernel
 * kills the process if it cannot stay under it. A process that dies before all are installed,
 * killed by the kernel or aborted by V8 at its heap limit, is reported as a crash (target 0:
 * in a cluster it is a crash loop). Where the machine offers no memory cgroup, or with
 * OLMV1_BENCH_HOSTILE_NO_LIMIT=1, it runs without one and the report says so (V8's heap limit
 * is then derived from the machine's memory, ~4 GB here, and the peak is the garbage V8 lets
 * accumulate under it).
 *
 * Then (unless OLMV1_BENCH_HOSTILE_UPGRADE=0) the four are upgraded at once to 1.0.1, whose
 * ConfigMaps all change: each reconcile reads the installed record, renders the new bundle and
 * replaces every object; its peak (VmHWM reset before) and crashes are reported the same way.
 *
 * Target: peak RSS <= 256 MB (half of the Deployment's 512 MiB limit), no crash.
 */
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { dump } from 'js-yaml';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { benchImageClient, clusterExtension, createCatalog, createInstaller, pushCatalog, type PushedBundle } from '../lib/extension-bundles.ts';
import { isInstalledAs } from '../lib/extension-runs.ts';
import { pushHostileBundle } from '../lib/hostile-bundles.ts';
import { sleep } from '../lib/http-load.ts';
import { connectInspector, forceGc, startHeapSampling } from '../lib/inspector.ts';
import { createMemoryLimit, type MemoryLimit } from '../lib/memory-limit.ts';
import { type OlmStack, scrapeStepMetrics, startOlmStack, type StepMetrics } from '../lib/olm-stack.ts';
import { mappingRss, procMemory, resetPeak, RssSampler } from '../lib/proc.ts';
import { atMost, measure, type Measurement } from '../lib/report.ts';
import { mb, round } from '../lib/stats.ts';
import { OPERATOR_CONTROLLER_MEMORY_LIMIT_BYTES } from '../../cmd/operator-controller/node-flags.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';

const BUNDLES = 4;
/** Unpacked bytes of each bundle: just under BUNDLE_IMAGE_LIMITS.maxUnpackedBytes (32 MiB). */
const BUNDLE_BYTES = 31 * 1024 * 1024;
const TIMEOUT_MS = 600_000;
const CE = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension' };

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const limit =
    process.env['OLMV1_BENCH_HOSTILE_NO_LIMIT'] === '1'
      ? undefined
      : await createMemoryLimit('olmv1-bench-hostile', OPERATOR_CONTROLLER_MEMORY_LIMIT_BYTES);
  ctx.log(
    limit === undefined ? 'operator-controller runs without a memory limit' : `operator-controller runs in ${limit.where} (${mb(limit.bytes)} MB)`,
  );
  const stack = await startOlmStack({ runtime: ctx.runtime, workDir: ctx.workDir, log: ctx.log, env: process.env });
  try {
    return await measureHostile(ctx, stack, limit);
  } finally {
    await stack.stop();
    await limit?.remove();
  }
}

async function measureHostile(ctx: BenchContext, stack: OlmStack, limit: MemoryLimit | undefined): Promise<BenchOutcome> {
  const upgrade = process.env['OLMV1_BENCH_HOSTILE_UPGRADE'] !== '0';
  await stack.startCatalogd();
  const images = benchImageClient();
  const bundles: (PushedBundle & { bytes: number })[] = [];
  const versions: (PushedBundle & { bytes: number })[] = [];
  try {
    ctx.log(`pushing ${BUNDLES} bundles of ~${mb(BUNDLE_BYTES)} MB of YAML each (large CRDs, ConfigMaps)`);
    for (let i = 0; i < BUNDLES; i++) {
      for (const version of upgrade ? ['1.0.0', '1.0.1'] : ['1.0.0']) {
        const pushed = await pushHostileBundle(images, stack.registry, join(ctx.workDir, 'bundles'), `hostile-${i}`, BUNDLE_BYTES, version);
        versions.push(pushed);
        if (version === '1.0.0') bundles.push(pushed);
      }
    }
    const ref = `${stack.registry}/bench-catalogs/hostile:latest`;
    await createCatalog(stack.kube.client, 'hostile', ref, await pushCatalog(images, join(ctx.workDir, 'catalog'), ref, versions));
  } finally {
    images.close();
  }
  // RBAC for every version, as `olmv1 rbac` prints it for each (ClusterRole names carry the version).
  for (const b of versions) await createInstaller(stack.kube.client, b, b.pkg, 'installer');

  const oc = await stack.startOperatorController([], limit === undefined ? {} : { memoryLimit: limit });
  await sleep(3_000);
  const heapLimit = await heapSizeLimit(oc.child.pid, oc.inspectPort);
  const pid = oc.child.pid;
  const idle = procMemory(pid);
  if (idle === undefined) throw new Error('operator-controller is gone');
  const hwmReset = resetPeak(pid);
  const sampler = new RssSampler(20, pid);
  // Development aid: live allocations by stack at the end (after forced collections).
  const profileFile = process.env['OLMV1_BENCH_HOSTILE_HEAP_PROFILE'];
  const stopProfile = profileFile === undefined ? undefined : await startHeapSampling(pid, oc.inspectPort);
  // The profile so far, every second, to `<file>.latest`: what a process killed by its
  // limit held just before (the end-of-run profile is never taken then); and to
  // `<file>.peak` when the RSS is the highest seen at those seconds: what the peak held.
  let profiledPeak = 0;
  const latest =
    stopProfile === undefined
      ? undefined
      : setInterval(() => {
          const rss = procMemory(pid)?.rss ?? 0;
          stopProfile.current().then(
            async (p) => {
              const text = JSON.stringify(p);
              await writeFile(`${profileFile}.latest`, text);
              if (rss > profiledPeak) {
                profiledPeak = rss;
                await writeFile(`${profileFile}.peak`, text);
              }
            },
            () => undefined,
          );
        }, 1_000);
  const stopTrace = await startMemoryTrace(pid, oc.inspectPort, process.env['OLMV1_BENCH_HOSTILE_MEMORY_TRACE']);
  const applyVersion = async (version: string): Promise<string> => {
    const file = join(ctx.workDir, `hostile-${version}.yaml`);
    await writeFile(file, bundles.map((b) => `---\n${dump(pinned(clusterExtension(b.pkg, b, b.pkg, 'installer'), version))}`).join(''));
    await stack.kubectl(['apply', '-f', file]);
    return version;
  };
  ctx.log(`applying ${BUNDLES} ClusterExtensions at once; waiting until all are installed`);
  const start = performance.now();
  let installed;
  try {
    installed = await untilInstalledAs(stack, bundles, await applyVersion('1.0.0'), pid);
  } finally {
    sampler.stop();
    clearInterval(latest);
  }
  if (installed.died) return crashed(oc.child.stderr(), (await limit?.oomKills()) ?? 0, sampler, limit, performance.now() - start);
  const allMs = performance.now() - start;
  const installSteps = await scrapeStepMetrics(oc.healthUrl);
  const after = procMemory(pid);
  if (after === undefined) throw new Error('operator-controller is gone');
  const peak = Math.max(sampler.max, hwmReset ? after.hwm : 0);
  if (stopProfile !== undefined && profileFile !== undefined) {
    const { profile } = await stopProfile();
    await writeFile(profileFile, JSON.stringify(profile));
  }
  await forceGc(pid, oc.inspectPort);
  const collected = procMemory(pid);
  const heap = await heapUsed(pid, oc.inspectPort);
  const snapshotFile = process.env['OLMV1_BENCH_HOSTILE_HEAP_SNAPSHOT'];
  if (snapshotFile !== undefined) await writeHeapSnapshot(pid, oc.inspectPort, snapshotFile);
  if (collected === undefined) throw new Error('operator-controller is gone');
  const bytes = bundles.reduce((n, b) => n + b.bytes, 0);
  const cgroupPeak = await limit?.peakBytes();
  const upgradeRows: Measurement[] = [];
  const upgradeDetails: Record<string, unknown> = {};
  if (upgrade) {
    ctx.log(`upgrading the ${BUNDLES} to 1.0.1 at once (every ConfigMap changes); waiting until all are installed`);
    const reset = resetPeak(pid);
    const during = new RssSampler(20, pid);
    const t0 = performance.now();
    let result;
    try {
      result = await untilInstalledAs(stack, bundles, await applyVersion('1.0.1'), pid);
    } catch (err) {
      // The trace up to a timeout is what shows where the upgrade stood.
      await stopTrace();
      throw err;
    } finally {
      during.stop();
    }
    const ms = performance.now() - t0;
    const end = procMemory(pid);
    const upgradePeak = Math.max(during.max, reset && end !== undefined ? end.hwm : 0);
    const died = result.died ? crashCause(oc.child.stderr(), (await limit?.oomKills()) ?? 0, limit) : undefined;
    upgradeRows.push(
      measure(
        `  then all ${BUNDLES} upgraded at once: operator-controller crashes`,
        died === undefined ? 0 : 1,
        '',
        atMost(0),
        died === undefined ? limitNote(limit, heapLimit) : `${round(ms / 1000, 1)} s after the apply: ${died}`,
      ),
      measure('  peak RSS during the upgrade', mb(upgradePeak), 'MB', undefined, died === undefined ? 'VmHWM reset before it' : 'until it died'),
      ...(died === undefined
        ? [
            measure(
              `  kubectl apply -> all ${BUNDLES} Installed=True at 1.0.1`,
              round(ms / 1000, 1),
              's',
              undefined,
              'the old records read, every object changed',
            ),
          ]
        : []),
    );
    const upgradeSteps = died === undefined ? await scrapeStepMetrics(oc.healthUrl) : undefined;
    Object.assign(upgradeDetails, {
      upgradePeakMB: mb(upgradePeak),
      upgradeMs: Math.round(ms),
      upgradeCrash: died ?? null,
      // The upgrade's own step times: the totals since start less the install's.
      upgradeStepSeconds: upgradeSteps === undefined ? null : stepSeconds(upgradeSteps, installSteps),
    });
  }
  await stopTrace();
  return {
    measurements: [
      measure(
        `operator-controller peak RSS, ${BUNDLES} hostile bundles installed at once`,
        mb(peak),
        'MB',
        atMost(256),
        `VmHWM ${hwmReset ? `${mb(after.hwm)} MB` : 'not resettable'}, 20 ms samples ${mb(sampler.max)} MB; ${BUNDLES} x ${mb(bytes / BUNDLES)} MB of YAML (CRDs, ConfigMaps); ${limitNote(limit, heapLimit)}`,
      ),
      measure('  operator-controller crashes (kernel OOM kills, V8 heap exhaustion)', 0, '', atMost(0), limitNote(limit, heapLimit)),
      ...(cgroupPeak === undefined
        ? []
        : [
            measure(
              "  the memory cgroup's peak (page cache of the bundle cache included)",
              mb(cgroupPeak),
              'MB',
              undefined,
              "as the kubelet counts a container's memory",
            ),
          ]),
      measure('  idle before, 3 s after ready', mb(idle.rss), 'MB', undefined, `anon ${mb(idle.anon)} MB + file-backed ${mb(idle.file)} MB`),
      measure('  after all were installed', mb(after.rss), 'MB', undefined, `anon ${mb(after.anon)} MB + file-backed ${mb(after.file)} MB`),
      measure(
        '  then after forced GC (inspector)',
        mb(collected.rss),
        'MB',
        undefined,
        `anon ${mb(collected.anon)} MB: what stays live; V8 heap used ${mb(heap)} MB`,
      ),
      measure(
        `  kubectl apply -> all ${BUNDLES} Installed=True`,
        round(allMs / 1000, 1),
        's',
        undefined,
        `${bundles[0]?.objects ?? 0} files per bundle; ${reconcileNote(installSteps)}`,
      ),
      ...upgradeRows,
    ],
    details: {
      bundles: bundles.map((b) => ({ name: b.name, files: b.objects, bytes: b.bytes, layerBytes: b.layerBytes })),
      peakMB: mb(peak),
      hwmMB: mb(after.hwm),
      sampledMaxMB: mb(sampler.max),
      samples: sampler.count,
      idleMB: mb(idle.rss),
      afterMB: mb(after.rss),
      afterGcMB: mb(collected.rss),
      heapUsedAfterGcMB: mb(heap),
      allInstalledMs: Math.round(allMs),
      installStepSeconds: stepSeconds(installSteps),
      memoryLimit: limit === undefined ? null : { where: limit.where, bytes: limit.bytes },
      heapSizeLimitMB: mb(heapLimit),
      cgroupPeakMB: cgroupPeak === undefined ? null : mb(cgroupPeak),
      ...upgradeDetails,
    },
  };
}

/** Each step's seconds and count in `m`, less those in `since` when given. */
function stepSeconds(m: StepMetrics, since?: StepMetrics): Record<string, { sum: number; count: number }> {
  return Object.fromEntries(
    Object.entries(m.steps).map(([k, v]) => [
      k,
      { sum: round(v.sum - (since?.steps[k]?.sum ?? 0), 2), count: v.count - (since?.steps[k]?.count ?? 0) },
    ]),
  );
}

/** How many reconciles ran and how many reached the apply step. */
function reconcileNote(m: StepMetrics): string {
  const results = Object.entries(m.reconciles)
    .filter(([, n]) => n > 0)
    .map(([r, n]) => `${n} ${r}`)
    .join(', ');
  return `reconciles: ${results || 'none'}; apply steps ${m.steps['apply']?.count ?? 0}`;
}

function limitNote(limit: MemoryLimit | undefined, heapLimit: number): string {
  const heap = `V8 heap limit ${mb(heapLimit)} MB`;
  return limit === undefined
    ? `no memory limit (${heap}, Node's default from the machine's memory)`
    : `in a ${mb(limit.bytes)} MB memory cgroup (${heap})`;
}

/**
 * The outcome when operator-controller died before all were installed: killed by the kernel
 * under its limit, or aborted by V8 at its heap limit (a crash loop in a cluster).
 */
function crashed(stderr: string, kills: number, sampler: RssSampler, limit: MemoryLimit | undefined, ms: number): BenchOutcome {
  sampler.stop();
  return {
    measurements: [
      measure(`operator-controller peak RSS, ${BUNDLES} hostile bundles installed at once`, mb(sampler.max), 'MB', atMost(256), 'until it died'),
      measure(
        '  operator-controller crashes (kernel OOM kills, V8 heap exhaustion)',
        1,
        '',
        atMost(0),
        `${round(ms / 1000, 1)} s after the apply: ${crashCause(stderr, kills, limit)}`,
      ),
    ],
    details: { oomKills: kills, sampledMaxMB: mb(sampler.max), diedAfterMs: Math.round(ms) },
  };
}

/** Why operator-controller died: the kernel's OOM kills, else V8's fatal error line, else the end of its stderr. */
function crashCause(stderr: string, kills: number, limit: MemoryLimit | undefined): string {
  if (kills > 0) return `killed by the kernel (${kills} OOM kills in ${limit?.where ?? ''})`;
  return /FATAL ERROR: [^\n]*/.exec(stderr)?.[0] ?? `exited: ${stderr.slice(-300)}`;
}

/** `ce` with its catalog source pinned to `version`. */
function pinned(ce: KubeObject, version: string): KubeObject {
  const spec = ce['spec'] as { source: { catalog: Record<string, unknown> } };
  spec.source.catalog['version'] = version;
  return ce;
}

/**
 * Waits until every one of `bundles`' extensions is Installed=True at `version`, or until
 * operator-controller (`pid`) is gone; throws after TIMEOUT_MS with each pending one's
 * Progressing message.
 */
async function untilInstalledAs(stack: OlmStack, bundles: readonly PushedBundle[], version: string, pid: number): Promise<{ died: boolean }> {
  const start = performance.now();
  let pending = bundles.map((b) => b.pkg);
  for (;;) {
    const list = await stack.kube.client.list(CE);
    const byName = new Map(list.items.map((o) => [o.metadata.name ?? '', o]));
    pending = pending.filter((n) => !isInstalledAs(byName.get(n), `${n}.v${version}`));
    if (pending.length === 0) return { died: false };
    if (procMemory(pid) === undefined) return { died: true };
    if (performance.now() - start > TIMEOUT_MS) {
      const progressing = (n: string) =>
        ((byName.get(n)?.status ?? {}) as { conditions?: Condition[] }).conditions?.find((c) => c.type === 'Progressing')?.message ?? '?';
      throw new Error(`not installed at ${version} within ${TIMEOUT_MS / 1000} s: ${pending.map((n) => `${n}: ${progressing(n)}`).join('; ')}`);
    }
    await sleep(250);
  }
}

/** V8's heap size limit of `pid` (what Node derived from the memory it found at start). */
async function heapSizeLimit(pid: number, port: number): Promise<number> {
  const session = await connectInspector(pid, port);
  try {
    const answer = (await session.call('Runtime.evaluate', {
      expression: "process.getBuiltinModule('node:v8').getHeapStatistics().heap_size_limit",
      returnByValue: true,
    })) as { result: { value: number } };
    return answer.result.value;
  } finally {
    session.close();
  }
}

/** V8's used heap of `pid`, read through its inspector. */
async function heapUsed(pid: number, port: number): Promise<number> {
  const session = await connectInspector(pid, port);
  try {
    return ((await session.call('Runtime.getHeapUsage')) as { usedSize: number }).usedSize;
  } finally {
    session.close();
  }
}

/**
 * Development aid: a heap snapshot of `pid` written by the process itself to `file` (its own
 * collection first). It needs about the heap's size again, so the run should be without the
 * memory limit (OLMV1_BENCH_HOSTILE_NO_LIMIT=1).
 */
async function writeHeapSnapshot(pid: number, port: number, file: string): Promise<void> {
  const session = await connectInspector(pid, port);
  try {
    await session.call('Runtime.evaluate', {
      expression: `process.getBuiltinModule('node:v8').writeHeapSnapshot(${JSON.stringify(file)})`,
      returnByValue: true,
    });
  } finally {
    session.close();
  }
}

/**
 * Development aid: every 500 ms until stopped, operator-controller's `process.memoryUsage()`
 * (V8's heap, external memory, ArrayBuffers) beside its RSS, as JSON lines in `file`: whether a
 * peak is V8's heap or memory outside it. Nothing when `file` is undefined.
 */
/**
 * What each trace line holds from inside the process: process.memoryUsage(), and from V8's
 * heap statistics the memory V8 itself took with malloc (parser and compiler zones: outside
 * the heap and external memory, inside RSS), its peak, and the heap's committed physical size.
 */
const TRACE_EXPRESSION = `(() => {
  const h = process.getBuiltinModule('node:v8').getHeapStatistics();
  return JSON.stringify({ ...process.memoryUsage(), v8Malloced: h.malloced_memory, v8PeakMalloced: h.peak_malloced_memory, heapPhysical: h.total_physical_size });
})()`;

async function startMemoryTrace(pid: number, port: number, file: string | undefined): Promise<() => Promise<void>> {
  if (file === undefined) return async () => undefined;
  const session = await connectInspector(pid, port);
  const lines: string[] = [];
  const t0 = performance.now();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    const rss = procMemory(pid)?.rss;
    const mappings = mappingRss(pid);
    session
      .call('Runtime.evaluate', { expression: TRACE_EXPRESSION, returnByValue: true })
      .then(
        (r) => {
          const usage = JSON.parse((r as { result: { value: string } }).result.value) as Record<string, number>;
          lines.push(JSON.stringify({ s: round((performance.now() - t0) / 1000, 1), procRss: rss, ...usage, mappings }));
        },
        () => undefined,
      )
      .finally(() => (busy = false));
  }, 500);
  return async () => {
    clearInterval(timer);
    session.close();
    await writeFile(file, lines.join('\n'));
  };
}

/** The hostile-bundles benchmark. */
export const hostileBenchmark: Benchmark = {
  name: 'hostile',
  title: 'operator-controller: peak RSS with four hostile bundles installed at once (real control plane)',
  run,
};
