/**
 * `olmv1 up --node --in-cluster`: catalogd and operator-controller as Pods on the local node, as
 * the product ships: the project's image of the committed tree (HEAD) built (or found in the build
 * cache), pushed by digest to a registry on the node's bridge, config/ applied with it
 * (pkg/olmv1/in-cluster, the README's walk-through), each Deployment's args carrying its
 * `--feature-gates`, and, as the process mode has it, config/default-installer (the local control
 * plane is the user's own: extensions without a serviceAccount install as its cluster-admin
 * ServiceAccount, decision 0073). Stopping deletes what was applied and stops that registry.
 */
import { execFileSync } from 'node:child_process';
import { buildProjectImage, defaultImageCacheDir } from '../../pkg/olmv1/images/index.ts';
import {
  CONSOLE_SERVICE,
  DEPLOYMENTS,
  SYSTEM_NAMESPACE,
  deployInCluster,
  waitForDeployments,
  type InCluster,
} from '../../pkg/olmv1/in-cluster/index.ts';
import type { ControlPlane, RegistryBinaries } from '../../pkg/olmv1/localstack/index.ts';
import { boxcutterRuntimeOn, featureGatesArgs, tenantExtensionsOn, type ComponentGates } from './up-feature-gates.ts';

/** Which Deployment of config/manager runs which component. */
export const COMPONENT_DEPLOYMENTS = { catalogd: DEPLOYMENTS[0], operatorController: DEPLOYMENTS[1] } as const;

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
  /** The console (config/console) through its NodePort on the node's bridge, once Available; undefined when it did not start. */
  consoleUrl: string | undefined;
  /** Deletes what was applied (not waiting for finalizers) and stops the node's registry. */
  stop(): Promise<void>;
}

/** Builds the image of HEAD, deploys config/ with it and the gates (in the first rollout), and waits for both Deployments. */
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
    // With the BoxcutterRuntime: config/boxcutter (the ClusterObjectSet CRD, operator-controller's grants on it);
    // with TenantExtensions: config/tenant-extensions (the tenant CRDs, grants and roles).
    overlay: {
      deploymentArgs: deploymentGateArgs(options.featureGates, log),
      // The console, reached through a NodePort on the node's bridge (decision 0143).
      consoleNodePort: true,
      components: [
        '../config/default-installer',
        '../config/console',
        ...(boxcutterRuntimeOn(options.featureGates) ? ['../config/boxcutter'] : []),
        ...(tenantExtensionsOn(options.featureGates) ? ['../config/tenant-extensions'] : []),
      ],
    },
  });
  const stop = async (): Promise<void> => {
    await product.kubectl(['delete', '-k', product.overlayDir, '--ignore-not-found', '--wait=false']).catch(() => undefined);
    await product.stop();
  };
  return { product, revision, consoleUrl: await consoleUrl(product, log), stop };
}

/** `https://BRIDGE:NODEPORT/` of the console once its Deployment is Available; undefined (said in the log) otherwise. */
async function consoleUrl(product: InCluster, log: (line: string) => void): Promise<string | undefined> {
  try {
    await waitForDeployments(product.kubectl, SYSTEM_NAMESPACE, [CONSOLE_SERVICE], 120_000);
    const port = (
      await product.kubectl(['get', 'service', '-n', SYSTEM_NAMESPACE, CONSOLE_SERVICE, '-o', 'jsonpath={.spec.ports[0].nodePort}'])
    ).trim();
    const host = product.registry.host.slice(0, product.registry.host.lastIndexOf(':'));
    return `https://${host}:${port}/`;
  } catch (err) {
    log(`the console did not start: ${(err as Error).message}`);
    return undefined;
  }
}

/** Each Deployment's `--feature-gates` args (appended after config/'s: the last setting of a gate wins). */
function deploymentGateArgs(gates: ComponentGates, log: (line: string) => void): Partial<Record<(typeof DEPLOYMENTS)[number], string[]>> {
  const out: Partial<Record<(typeof DEPLOYMENTS)[number], string[]>> = {};
  for (const [component, deployment] of Object.entries(COMPONENT_DEPLOYMENTS) as Array<[keyof ComponentGates, (typeof DEPLOYMENTS)[number]]>) {
    const args = featureGatesArgs(gates[component]);
    if (args.length === 0) continue;
    log(`adding ${args.join(' ')} to Deployment ${deployment}'s args`);
    out[deployment] = args;
  }
  return out;
}
