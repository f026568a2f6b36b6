/**
 * What the benchmarks of the product on a real node share (`in-cluster`, `webhook-serving`):
 * the skip where no node can run, the project image's build (or build cache hit), and a round
 * on a fresh control plane with a local node (pkg/olmv1/localstack) and config/ deployed
 * through pkg/olmv1/in-cluster, stopped afterwards whatever the round did.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildProjectImage, defaultImageCacheDir, type ProjectImage } from '../../pkg/olmv1/images/index.ts';
import { deployInCluster, type InCluster } from '../../pkg/olmv1/in-cluster/index.ts';
import {
  defaultCacheRoot,
  missingImageBuildPrerequisites,
  missingNodePrerequisites,
  resolveBinaries,
  resolveNodeBinaries,
  startControlPlane,
  type ControlPlane,
} from '../../pkg/olmv1/localstack/index.ts';
import type { BenchContext, BenchOutcome } from './benchmark.ts';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Why no node can run here (root, containerd, runc, buildah, debootstrap), or undefined. */
function unavailable(env: NodeJS.ProcessEnv): string | undefined {
  const problems = [...missingNodePrerequisites(), ...missingImageBuildPrerequisites(env)];
  return problems.length === 0 ? undefined : problems.join('; ');
}

/** The environment of a node benchmark and the project image of HEAD, found in the build cache or built. */
export interface NodeBench {
  env: NodeJS.ProcessEnv;
  buildImage(): Promise<ProjectImage>;
}

/**
 * Runs `measure` where a node can run, else skips with the reason. The node's and registry's
 * processes are unref'd (pkg/olmv1/localstack process.ts); a wait that only they can end would
 * otherwise let Node exit with the benchmark unsettled, so Node is kept alive meanwhile.
 */
export async function onNode(ctx: BenchContext, measure: (bench: NodeBench) => Promise<BenchOutcome>): Promise<BenchOutcome> {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${process.env['PATH'] ?? ''}:/usr/local/go/bin:/usr/sbin:/sbin` };
  const missing = unavailable(env);
  if (missing !== undefined) return { measurements: [], details: {}, skipped: `no local node on this machine: ${missing}` };
  const keepAlive = setInterval(() => {}, 60_000);
  try {
    const revision = execFileSync('git', ['-C', REPO, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const cacheDir = defaultImageCacheDir(env);
    const extraCaFile = env['NODE_EXTRA_CA_CERTS'] || undefined;
    return await measure({ env, buildImage: () => buildProjectImage({ repoRoot: REPO, revision, cacheDir, env, log: ctx.log, extraCaFile }) });
  } finally {
    clearInterval(keepAlive);
  }
}

/** When a round's control plane started, got the node lock (the wait is not counted) and had its node Ready. */
export interface RoundClock {
  started: number;
  locked: number;
  nodeReady: number;
}

/** One round: a control plane with a node, the product deployed on it, `use`d, then both stopped. */
export async function withProductOnNode<T>(
  ctx: BenchContext,
  bench: NodeBench,
  use: (product: InCluster, cp: ControlPlane, clock: RoundClock) => Promise<T>,
): Promise<T> {
  const { env } = bench;
  const binaries = await resolveBinaries({ kubebuilderAssets: env['KUBEBUILDER_ASSETS'], cacheRoot: defaultCacheRoot(env), env, log: ctx.log });
  const nodeBinaries = await resolveNodeBinaries({ cacheRoot: defaultCacheRoot(env), env, log: ctx.log });
  const started = performance.now();
  let locked = started;
  const cp = await startControlPlane({
    binaries: { ...binaries, node: nodeBinaries },
    node: { log: ctx.log, onLocked: async () => void (locked = performance.now()) },
  });
  try {
    const clock = { started, locked, nodeReady: performance.now() };
    // Found again once the node runs: another build on the machine may have pruned the image
    // from the shared build storage while this round waited for the node lock.
    const image = await bench.buildImage();
    const product = await deployInCluster({ controlPlane: cp, registryBinaries: binaries, repoRoot: REPO, image, env, log: ctx.log });
    try {
      return await use(product, cp, clock);
    } finally {
      await product.stop();
    }
  } finally {
    await cp.stop();
  }
}
