/**
 * The service-CA stand-in on the local node (issue #46, docs/webhook-operators.md): built from
 * examples/service-ca-stand-in into an image pushed to the node's registry, the objects of
 * addon-manifests.ts applied, then its Deployment Available (it holds its CA).
 */
import { join } from 'node:path';
import { pushServiceCaStandInImage } from '../images/index.ts';
import { SERVICE_CA_DEPLOYMENT, SERVICE_CA_NAMESPACE, serviceCaManifests } from './addon-manifests.ts';
import { waitForDeployments, type Kubectl } from './wait-available.ts';

/** Options of {@link deployServiceCaStandIn}. */
interface ServiceCaOptions {
  kubectl: Kubectl;
  /** `host:port` of the node's registry (plain HTTP; containerd pulls from it). */
  registry: string;
  /** The repository's root (the stand-in's source is under `examples/`). */
  repoRoot: string;
  /** Scratch directory for the binary. */
  workDir: string;
  /** Environment of the Go toolchain. */
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** How long the Deployment may take to become Available (default 120 s). */
  timeoutMs?: number;
}

/** What {@link deployServiceCaStandIn} deployed, and how long each step took. */
interface ServiceCaDeployment {
  image: string;
  timings: { build: number; available: number };
}

/**
 * Deploys the stand-in and resolves once its Deployment is Available. Throws when the build or
 * the push fails, an apply is refused, or its Pod cannot start (with its events and logs).
 */
export async function deployServiceCaStandIn(options: ServiceCaOptions): Promise<ServiceCaDeployment> {
  const started = Date.now();
  const image = await pushServiceCaStandInImage({
    sourceDir: join(options.repoRoot, 'examples', 'service-ca-stand-in'),
    registry: options.registry,
    insecureRegistries: [options.registry],
    workDir: options.workDir,
    env: options.env,
  });
  const build = Date.now() - started;
  await options.kubectl(['apply', '--server-side', '-f', '-'], JSON.stringify(serviceCaManifests(image)));
  options.log(`service-CA stand-in ${image} applied; waiting for it to be Available`);
  await waitForDeployments(options.kubectl, SERVICE_CA_NAMESPACE, [SERVICE_CA_DEPLOYMENT], options.timeoutMs ?? 120_000);
  return { image, timings: { build, available: Date.now() - started - build } };
}
