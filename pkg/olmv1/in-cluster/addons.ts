/**
 * The node's add-ons (issue #46): their images built here and pushed to the node's registry,
 * the objects of addon-manifests.ts applied, then their Deployments Available.
 *  - cert-manager, from the pinned module's binaries and CRDs; ready once its webhook admits a
 *    ClusterIssuer (the API server reached it with the CA cainjector injected) and a
 *    self-signed ClusterIssuer is Ready;
 *  - the service-CA stand-in (examples/service-ca-stand-in, docs/webhook-operators.md); ready
 *    once it holds its CA.
 */
import { join } from 'node:path';
import { pushCertManagerImages, pushServiceCaStandInImage, type CertManagerImages } from '../images/index.ts';
import { waitUntil, type CertManagerBinaries } from '../localstack/index.ts';
import {
  CERT_MANAGER_DEPLOYMENTS,
  CERT_MANAGER_NAMESPACE,
  certManagerManifests,
  selfSignedClusterIssuer,
  SERVICE_CA_DEPLOYMENT,
  SERVICE_CA_NAMESPACE,
  serviceCaManifests,
} from './addon-manifests.ts';
import { lapTimer, waitForDeployments, type Kubectl } from './wait-available.ts';
import { errorMessage } from '../../shared/errors/index.ts';

/** The self-signed ClusterIssuer deployCertManager makes Ready. */
export const SELF_SIGNED_CLUSTER_ISSUER = 'olmv1-selfsigned';

/** Options of {@link deployCertManager}. */
interface CertManagerOptions {
  kubectl: Kubectl;
  /** `host:port` of the node's registry (plain HTTP; containerd pulls from it). */
  registry: string;
  binaries: CertManagerBinaries;
  log: (line: string) => void;
  /** How long the Deployments and the webhook may take (default 180 s). */
  timeoutMs?: number;
}

/** What {@link deployCertManager} deployed, and how long each step took. */
export interface CertManagerDeployment {
  images: CertManagerImages;
  timings: { push: number; apply: number; available: number; webhook: number };
}

/**
 * Deploys cert-manager and resolves once its webhook admits objects and the ClusterIssuer
 * SELF_SIGNED_CLUSTER_ISSUER is Ready. Throws when a push or an apply is refused, a Pod cannot
 * start (with its events and logs, waitForDeployments), or the webhook never answers.
 */
export async function deployCertManager(options: CertManagerOptions): Promise<CertManagerDeployment> {
  const timeoutMs = options.timeoutMs ?? 180_000;
  const lap = lapTimer();
  const images = await pushCertManagerImages(options.binaries, options.registry, [options.registry]);
  const push = lap();
  await options.kubectl(['apply', '--server-side', '-f', options.binaries.crdsDir]);
  await options.kubectl(['wait', '--for=condition=Established', '--timeout=60s', '-f', options.binaries.crdsDir]);
  await options.kubectl(['apply', '--server-side', '-f', '-'], JSON.stringify(certManagerManifests(images)));
  const apply = lap();
  options.log(`cert-manager ${options.binaries.version} applied; waiting for ${CERT_MANAGER_DEPLOYMENTS.join(', ')} to be Available`);
  await waitForDeployments(options.kubectl, CERT_MANAGER_NAMESPACE, CERT_MANAGER_DEPLOYMENTS, timeoutMs);
  const available = lap();
  // Admission of a cert-manager object goes through its webhook: it succeeds once the webhook
  // serves and cainjector has put its CA into the webhook configurations.
  let lastError = '';
  await waitUntil(
    'cert-manager webhook to admit a ClusterIssuer',
    async () => {
      try {
        await options.kubectl(['apply', '--server-side', '-f', '-'], JSON.stringify(selfSignedClusterIssuer(SELF_SIGNED_CLUSTER_ISSUER)));
        return true;
      } catch (err) {
        lastError = errorMessage(err);
        return false;
      }
    },
    { timeoutMs, intervalMs: 1000 },
  ).catch((err: unknown) => {
    throw new Error(`cert-manager's webhook did not admit a ClusterIssuer: ${lastError}`, { cause: err });
  });
  await options.kubectl(['wait', '--for=condition=Ready', '--timeout=60s', `clusterissuer/${SELF_SIGNED_CLUSTER_ISSUER}`]);
  return { images, timings: { push, apply, available, webhook: lap() } };
}

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
