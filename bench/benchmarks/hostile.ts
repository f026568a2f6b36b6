/**
 * operator-controller's peak memory with four hostile bundles installed at once, on the real
 * control plane (the `extensions` stack: envtest's kube-apiserver + etcd and registry, catalogd
 * and operator-controller as child processes with their Deployments' Node settings).
 *
 * Four bundles of large generated CRDs, each just under the default unpacked-bytes cap of a
 * bundle image (bench/lib/hostile-bundles.ts), one package each in one catalog; a namespace,
 * ServiceAccount and the RBAC `olmv1 rbac` prints for each. Once operator-controller is ready
 * and idle, its kernel high-water mark (VmHWM) is reset; the four ClusterExtensions are applied
 * in one kubectl call, so its four reconcile workers pull, parse, render and apply them at the
 * same time; its RSS is sampled every 20 ms until all four are installed. The peak is the larger
 * of VmHWM and the samples.
 *
 * Target: peak RSS <= 256 MB (half of the Deployment's 512 MiB limit).
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
import { startOlmStack } from '../lib/olm-stack.ts';
import { procMemory, resetPeak, RssSampler } from '../lib/proc.ts';
import { atMost, measure } from '../lib/report.ts';
import { mb, round } from '../lib/stats.ts';

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
  const stack = await startOlmStack({ runtime: ctx.runtime, workDir: ctx.workDir, log: ctx.log, env: process.env });
  try {
    await stack.startCatalogd();
    const images = benchImageClient();
    const bundles: (PushedBundle & { bytes: number })[] = [];
    try {
      ctx.log(`pushing ${BUNDLES} bundles of ~${mb(BUNDLE_BYTES)} MB of YAML each (large CRDs, ConfigMaps)`);
      for (let i = 0; i < BUNDLES; i++)
        bundles.push(await pushHostileBundle(images, stack.registry, join(ctx.workDir, 'bundles'), `hostile-${i}`, BUNDLE_BYTES));
      const ref = `${stack.registry}/bench-catalogs/hostile:latest`;
      await createCatalog(stack.kube.client, 'hostile', ref, await pushCatalog(images, join(ctx.workDir, 'catalog'), ref, bundles));
    } finally {
      images.close();
    }
    for (const b of bundles) await createInstaller(stack.kube.client, b, b.pkg, 'installer');

    const oc = await stack.startOperatorController();
    await sleep(3_000);
    const pid = oc.child.pid;
    const idle = procMemory(pid);
    if (idle === undefined) throw new Error('operator-controller is gone');
    const hwmReset = resetPeak(pid);
    const sampler = new RssSampler(20, pid);
    // Development aid: live allocations by stack at the end (after forced collections).
    const profileFile = process.env['OLMV1_BENCH_HOSTILE_HEAP_PROFILE'];
    const stopProfile = profileFile === undefined ? undefined : await startHeapSampling(pid, oc.inspectPort);
    const file = join(ctx.workDir, 'hostile.yaml');
    await writeFile(file, bundles.map((b) => `---\n${dump(clusterExtension(b.pkg, b, b.pkg, 'installer'))}`).join(''));
    ctx.log(`applying ${BUNDLES} ClusterExtensions at once; waiting until all are installed`);
    const start = performance.now();
    let pending = bundles.map((b) => b.pkg);
    let last = new Map<string, Condition | undefined>();
    try {
      await stack.kubectl(['apply', '-f', file]);
      while (pending.length > 0) {
        const list = await stack.kube.client.list(CE);
        last = new Map(
          list.items.map((o) => [
            o.metadata.name ?? '',
            ((o.status ?? {}) as { conditions?: Condition[] }).conditions?.find((c) => c.type === 'Progressing'),
          ]),
        );
        const byName = new Map(list.items.map((o) => [o.metadata.name ?? '', o]));
        pending = pending.filter((n) => !isInstalledAs(byName.get(n), `${n}.v1.0.0`));
        if (pending.length === 0) break;
        if (performance.now() - start > TIMEOUT_MS)
          throw new Error(`not installed within ${TIMEOUT_MS / 1000} s: ${pending.map((n) => `${n}: ${last.get(n)?.message ?? '?'}`).join('; ')}`);
        if (procMemory(pid) === undefined) throw new Error(`operator-controller exited; stderr: ${oc.child.stderr().slice(-2000)}`);
        await sleep(250);
      }
    } finally {
      sampler.stop();
    }
    const allMs = performance.now() - start;
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
    if (collected === undefined) throw new Error('operator-controller is gone');
    const bytes = bundles.reduce((n, b) => n + b.bytes, 0);
    return {
      measurements: [
        measure(
          `operator-controller peak RSS, ${BUNDLES} hostile bundles installed at once`,
          mb(peak),
          'MB',
          atMost(256),
          `VmHWM ${hwmReset ? `${mb(after.hwm)} MB` : 'not resettable'}, 20 ms samples ${mb(sampler.max)} MB; ${BUNDLES} x ${mb(bytes / BUNDLES)} MB of YAML (CRDs, ConfigMaps)`,
        ),
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
          `${bundles[0]?.objects ?? 0} files per bundle`,
        ),
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
      },
    };
  } finally {
    await stack.stop();
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

/** The hostile-bundles benchmark. */
export const hostileBenchmark: Benchmark = {
  name: 'hostile',
  title: 'operator-controller: peak RSS with four hostile bundles installed at once (real control plane)',
  run,
};
