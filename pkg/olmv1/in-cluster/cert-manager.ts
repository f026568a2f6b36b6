/**
 * cert-manager on the local node (issue #46): its images built here from the pinned module's
 * binaries and pushed to the node's registry, its CRDs from the same module, the objects of
 * addon-manifests.ts, then its three Deployments Available, its webhook answering (a
 * ClusterIssuer admitted: the API server reached it with the CA cainjector injected) and a
 * self-signed ClusterIssuer Ready.
 */
import { pushCertManagerImages, type CertManagerImages } from '../images/index.ts';
import { waitUntil, type CertManagerBinaries } from '../localstack/index.ts';
import { CERT_MANAGER_DEPLOYMENTS, CERT_MANAGER_NAMESPACE, certManagerManifests, selfSignedClusterIssuer } from './addon-manifests.ts';
import { waitForDeployments, type Kubectl } from './wait-available.ts';
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
  let t = Date.now();
  const lap = (): number => {
    const now = Date.now();
    const ms = now - t;
    t = now;
    return ms;
  };
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
