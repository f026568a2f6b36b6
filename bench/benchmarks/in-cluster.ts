/**
 * The product as it ships, on a real node (issue #43, decision 0101): the project's image
 * (built from HEAD or found in the build cache, pkg/olmv1/images) and its size as a registry
 * holds it; a control plane with a local node (pkg/olmv1/localstack) and config/ deployed
 * through pkg/olmv1/in-cluster, timed in steps (node Ready, push to the registry on the
 * bridge address, apply, both Deployments Available); then the example catalog Serving and
 * the example operator Installed and Healthy, and each Pod's memory: RSS from its container's
 * memory cgroup (`total_rss` of memory.stat: anonymous memory only) and the working set from
 * the kubelet's /metrics/resource. For comparison, the same two components as host processes
 * (bench/lib/olm-stack.ts, their Node flags, emitted JavaScript) under the same workload on the
 * envtest control plane, RSS and its anonymous part from /proc: what the other benchmarks
 * measure, here for the same catalog and extension. Each side settles SETTLE_MS before it is
 * read. `OLMV1_BENCH_IN_CLUSTER_ROUNDS` deploys more than once (rows are medians). Skips with
 * the reason where no node can run (not root, containerd, runc, buildah or debootstrap missing).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { measurePushedImage } from '../../pkg/olmv1/images/index.ts';
import { SYSTEM_NAMESPACE } from '../../pkg/olmv1/in-cluster/index.ts';
import type { Benchmark, BenchContext, BenchOutcome } from '../lib/benchmark.ts';
import { kubectlOf, runExampleWorkload, type BenchKubectl } from '../lib/example-workload.ts';
import { startOlmStack } from '../lib/olm-stack.ts';
import { procMemory, type ProcMemory } from '../lib/proc.ts';
import { onNode, REPO, withProductOnNode, type NodeBench } from '../lib/product-on-node.ts';
import { measure, type Measurement } from '../lib/report.ts';
import { mb, median, round } from '../lib/stats.ts';

const SETTLE_MS = 15_000;

interface PodMemory {
  pod: string;
  component: string;
  leader: boolean;
  rss: number;
  mappedFile: number;
  workingSet: number;
}

interface Round {
  lockWaitMs: number;
  nodeMs: number;
  pushMs: number;
  applyMs: number;
  availableMs: number;
  servingMs: number;
  healthyMs: number;
  pods: PodMemory[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Each Pod of the system namespace: cgroup RSS and mapped files, kubelet working set, leadership. */
async function podMemory(kubectl: BenchKubectl, nodeName: string): Promise<PodMemory[]> {
  const metrics = await kubectl(['get', '--raw', `/api/v1/nodes/${nodeName}/proxy/metrics/resource`]);
  type Obj = {
    metadata: { name: string; labels?: Record<string, string> };
    spec?: { holderIdentity?: string };
    status?: { containerStatuses?: Array<{ containerID: string }> };
  };
  const list = async (kind: string): Promise<Obj[]> =>
    (JSON.parse(await kubectl(['get', kind, '-n', SYSTEM_NAMESPACE, '-o', 'json'])) as { items: Obj[] }).items;
  const holders = (await list('leases')).map((l) => (l.spec?.holderIdentity ?? '').split('_')[0]);
  const out: PodMemory[] = [];
  for (const pod of await list('pods')) {
    const name = pod.metadata.name;
    const id = (pod.status?.containerStatuses?.[0]?.containerID ?? '').replace(/^containerd:\/\//, '');
    const dir =
      execFileSync('find', ['/sys/fs/cgroup/memory', '-maxdepth', '4', '-type', 'd', '-name', id], { encoding: 'utf8' }).trim().split('\n')[0] ?? '';
    const stat = readFileSync(join(dir, 'memory.stat'), 'utf8');
    const field = (f: string): number => Number(new RegExp(`^${f} (\\d+)$`, 'm').exec(stat)?.[1] ?? Number.NaN);
    const line = metrics.split('\n').find((l) => l.startsWith('container_memory_working_set_bytes{') && l.includes(`pod="${name}"`));
    out.push({
      pod: name,
      component: pod.metadata.labels?.['app.kubernetes.io/name'] ?? name,
      leader: holders.includes(name),
      rss: field('total_rss'),
      mappedFile: field('total_mapped_file'),
      workingSet: Number(line?.split(' ')[1] ?? Number.NaN),
    });
  }
  return out;
}

/** One deployment on a fresh control plane with a node; returns its times and the Pods' memory. */
async function deployRound(ctx: BenchContext, bench: NodeBench, n: number) {
  return withProductOnNode(ctx, bench, async (product, cp, clock) => {
    const work = await runExampleWorkload({
      kubectl: product.kubectl,
      repo: REPO,
      registry: product.registry.host,
      workDir: ctx.workDir,
      env: bench.env,
      healthy: true,
    });
    ctx.log(
      `round ${n}: catalog Serving in ${round(work.servingMs / 1000, 1)} s, extension Healthy ${round((work.healthyMs ?? 0) / 1000, 1)} s after its apply; settling`,
    );
    await sleep(SETTLE_MS);
    const pods = await podMemory(product.kubectl, cp.node?.name ?? '');
    const sizes = n === 1 ? await measurePushedImage(product.imageRef, [product.registry.host]) : undefined;
    const r: Round = {
      lockWaitMs: clock.locked - clock.started,
      nodeMs: clock.nodeReady - clock.locked,
      pushMs: product.timings.push,
      applyMs: product.timings.apply,
      availableMs: product.timings.available,
      servingMs: work.servingMs,
      healthyMs: work.healthyMs ?? Number.NaN,
      pods,
    };
    return { round: r, sizes };
  });
}

/** catalogd and operator-controller as host processes under the same workload: their /proc memory. */
async function hostProcesses(ctx: BenchContext, env: NodeJS.ProcessEnv): Promise<{ catalogd: ProcMemory; operatorController: ProcMemory }> {
  const stack = await startOlmStack({ runtime: ctx.runtime, workDir: ctx.workDir, log: ctx.log, env });
  try {
    const catalogd = await stack.startCatalogd();
    const oc = await stack.startOperatorController();
    await runExampleWorkload({ kubectl: kubectlOf(stack.cp), repo: REPO, registry: stack.registry, workDir: ctx.workDir, env, healthy: false });
    await sleep(SETTLE_MS);
    const c = procMemory(catalogd.child.pid);
    const o = procMemory(oc.child.pid);
    if (c === undefined || o === undefined) throw new Error('a host process exited before its memory was read');
    return { catalogd: c, operatorController: o };
  } finally {
    await stack.stop();
  }
}

async function measureAll(ctx: BenchContext, bench: NodeBench): Promise<BenchOutcome> {
  const { env } = bench;
  const rounds = Number(process.env['OLMV1_BENCH_IN_CLUSTER_ROUNDS'] ?? '1');
  const image = await bench.buildImage();
  ctx.log(`project image ${image.tag} ${image.cached ? 'found' : 'built'} in ${image.seconds} s`);
  ctx.log('catalogd and operator-controller as host processes (envtest control plane)');
  const host = await hostProcesses(ctx, env);
  const all: Round[] = [];
  let sizes: Awaited<ReturnType<typeof measurePushedImage>> | undefined;
  for (let n = 1; n <= rounds; n++) {
    ctx.log(`round ${n} of ${rounds}: control plane with a node, config/ deployed`);
    const out = await deployRound(ctx, bench, n);
    all.push(out.round);
    sizes ??= out.sizes;
  }
  if (sizes === undefined) throw new Error('the image was not measured');
  const s = (pick: (r: Round) => number): number => median(all.map(pick)) / 1000;
  const waited = all.some((r) => r.lockWaitMs > 1000)
    ? `; waited ${all.map((r) => round(r.lockWaitMs / 1000, 1)).join(', ')} s for the node lock first (not counted)`
    : '';
  const m: Measurement[] = [
    measure(
      'project image, compressed (registry)',
      mb(sizes.compressedBytes),
      'MB',
      undefined,
      `${sizes.layers} layers; ${image.cached ? 'found in the build cache' : `built in ${image.seconds} s`}`,
    ),
    measure('project image, unpacked (layers decompressed)', mb(sizes.uncompressedBytes), 'MB'),
    measure(
      'control plane + node Ready',
      s((r) => r.nodeMs),
      's',
      undefined,
      `median of ${rounds}${waited}`,
    ),
    measure(
      'push of the image to the registry on the bridge address',
      s((r) => r.pushMs),
      's',
    ),
    measure(
      'apply: namespace, Secrets, overlay (server-side -k)',
      s((r) => r.applyMs),
      's',
    ),
    measure(
      'both Deployments Available, from the apply',
      s((r) => r.availableMs),
      's',
    ),
    measure(
      'control plane start to both Available',
      s((r) => r.nodeMs + r.pushMs + r.applyMs + r.availableMs),
      's',
      undefined,
      'node + push + apply + Available',
    ),
    measure(
      'example catalog Serving (pulled by a catalogd Pod)',
      s((r) => r.servingMs),
      's',
    ),
    measure(
      'example operator Installed + Healthy, from its apply',
      s((r) => r.healthyMs),
      's',
    ),
  ];
  const hostNote = (p: ProcMemory): string => `as a host process: RSS ${mb(p.rss)} MB, ${mb(p.anon)} MB of it anonymous`;
  const last = all[all.length - 1]?.pods ?? [];
  for (const [component, hostMem] of [
    ['catalogd', host.catalogd],
    ['operator-controller', host.operatorController],
  ] as const) {
    m.push(
      measure(
        `${component} as a host process: RSS (/proc, anonymous + file-backed)`,
        mb(hostMem.rss),
        'MB',
        undefined,
        `anonymous ${mb(hostMem.anon)} MB, file-backed ${mb(hostMem.file)} MB`,
      ),
    );
    const pods = last.filter((p) => p.component === component).sort((a, b) => Number(b.leader) - Number(a.leader));
    for (const p of pods) {
      const role = component === 'catalogd' ? (p.leader ? ', leader' : ', follower') : '';
      m.push(
        measure(
          `${component} Pod${role}: RSS (cgroup total_rss, anonymous)`,
          mb(p.rss),
          'MB',
          undefined,
          `working set ${mb(p.workingSet)} MB, mapped files ${mb(p.mappedFile)} MB; ${hostNote(hostMem)}`,
        ),
      );
    }
  }
  return {
    measurements: m,
    details: {
      image: { tag: image.tag, cached: image.cached, buildSeconds: image.seconds, ...sizes, config: undefined },
      rounds: all.map((r) => ({ ...r, pods: r.pods.map((p) => ({ ...p, rssMB: mb(p.rss), workingSetMB: mb(p.workingSet) })) })),
      host: { catalogd: host.catalogd, operatorController: host.operatorController },
      settleMs: SETTLE_MS,
    },
  };
}

export const inClusterBenchmark: Benchmark = {
  name: 'in-cluster',
  title: 'the product on a real node: image size, deploy time, Pod memory next to host processes',
  run: (ctx) => onNode(ctx, (bench) => measureAll(ctx, bench)),
};
