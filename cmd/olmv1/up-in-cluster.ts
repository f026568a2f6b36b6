/**
 * `olmv1 up --node --in-cluster`: catalogd and operator-controller as Pods on the local node, as
 * the product ships: the project's image of the committed tree (HEAD) built (or found in the build
 * cache), pushed by digest to a registry on the node's bridge, config/ applied with it
 * (pkg/olmv1/in-cluster, the README's walk-through), each Deployment's args carrying its
 * `--feature-gates`. Stopping deletes what was applied and stops that registry.
 */
import { execFileSync } from 'node:child_process';
import { buildProjectImage, defaultImageCacheDir } from '../../pkg/olmv1/images/index.ts';
import { DEPLOYMENTS, SYSTEM_NAMESPACE, deployInCluster, type InCluster, type Kubectl } from '../../pkg/olmv1/in-cluster/index.ts';
import type { ControlPlane, RegistryBinaries } from '../../pkg/olmv1/localstack/index.ts';
import { featureGatesArgs, type ComponentGates } from './up-feature-gates.ts';

/** Which Deployment of config/manager runs which component. */
export const COMPONENT_DEPLOYMENTS = { catalogd: DEPLOYMENTS[0], operatorController: DEPLOYMENTS[1] } as const;

/**
 * The JSON patch adding `gates` to a Deployment's container args (pure); undefined without gates.
 * An arg appended after config/'s: the component reads every `--feature-gates`, the last setting
 * of a gate winning.
 */
export function featureGatesPatch(gates: readonly string[]): string | undefined {
  const args = featureGatesArgs(gates);
  if (args.length === 0) return undefined;
  return JSON.stringify(args.map((value) => ({ op: 'add', path: '/spec/template/spec/containers/0/args/-', value })));
}

/** What {@link deployProductOnNode} needs. */
interface ProductOnNodeOptions {
  controlPlane: ControlPlane;
  registryBinaries: RegistryBinaries;
  repoRoot: string;
  env: NodeJS.ProcessEnv;
  featureGates: ComponentGates;
  log: (line: string) => void;
}

/** The product on the node, with the revision its image was built from. */
interface ProductOnNode {
  product: InCluster;
  revision: string;
  /** Deletes what was applied (not waiting for finalizers) and stops the node's registry. */
  stop(): Promise<void>;
}

/** Builds the image of HEAD, deploys config/ with it and the gates, and waits for both Deployments. */
export async function deployProductOnNode(options: ProductOnNodeOptions): Promise<ProductOnNode> {
  const { env, log } = options;
  const revision = execFileSync('git', ['-C', options.repoRoot, 'rev-parse', 'HEAD'], { encoding: 'utf8', env }).trim();
  log(`building the project's image of ${revision.slice(0, 12)} (HEAD; the first build takes minutes, then it is cached)`);
  const image = await buildProjectImage({
    repoRoot: options.repoRoot,
    revision,
    cacheDir: defaultImageCacheDir(env),
    env,
    log,
    extraCaFile: env['NODE_EXTRA_CA_CERTS'] || undefined,
  });
  const product = await deployInCluster({
    controlPlane: options.controlPlane,
    registryBinaries: options.registryBinaries,
    repoRoot: options.repoRoot,
    revision,
    image,
    env,
    log,
  });
  const stop = async (): Promise<void> => {
    await product.kubectl(['delete', '-k', product.overlayDir, '--ignore-not-found', '--wait=false']).catch(() => undefined);
    await product.stop();
  };
  try {
    for (const [component, deployment] of Object.entries(COMPONENT_DEPLOYMENTS) as Array<[keyof ComponentGates, string]>) {
      const patch = featureGatesPatch(options.featureGates[component]);
      if (patch === undefined) continue;
      log(`adding ${featureGatesArgs(options.featureGates[component]).join(' ')} to Deployment ${deployment}'s args`);
      await product.kubectl(['patch', 'deployment', '-n', SYSTEM_NAMESPACE, deployment, '--type', 'json', '-p', patch]);
      await rolledOut(product.kubectl, deployment);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { product, revision, stop };
}

async function rolledOut(kubectl: Kubectl, deployment: string): Promise<void> {
  await kubectl(['rollout', 'status', 'deployment', '-n', SYSTEM_NAMESPACE, deployment, '--timeout=180s']);
}
