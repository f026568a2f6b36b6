/**
 * The product as it ships, on a control plane with a real node (decision 0101): the project's
 * image pushed by digest to a registry on the node's bridge address (plain HTTP), serving
 * certificates in the Secrets config/ mounts, an overlay over a copy of config/ (overlay.ts)
 * applied server-side, then both Deployments Available (wait-available.ts).
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProjectImage, defaultImageCacheDir, pushProjectImage, type ProjectImage } from '../images/index.ts';
import {
  allowPlainHttpRegistry,
  runCommand,
  startRegistry,
  type CertManagerBinaries,
  type ControlPlane,
  type Registry,
  type RegistryBinaries,
} from '../localstack/index.ts';
import { deployCertManager, type CertManagerDeployment } from './addons.ts';
import { DEPLOYMENTS, issueServingCertificates, SYSTEM_NAMESPACE, writeOverlay } from './overlay.ts';
import { lapTimer, waitForDeployments, type Kubectl } from './wait-available.ts';

const NO_NODE = (what: string): string => `${what} needs a control plane started with a node (startControlPlane({ node: ... }))`;

/**
 * Starts a registry on `controlPlane`'s node bridge address (under `tmpRoot`), where the host,
 * containerd and Pods reach it, pulled from over plain HTTP. The caller stops it.
 */
export async function startNodeRegistry(controlPlane: ControlPlane, binaries: RegistryBinaries, tmpRoot: string): Promise<Registry> {
  const node = controlPlane.node;
  if (node === undefined) throw new Error(NO_NODE('startNodeRegistry'));
  const registry = await startRegistry({ binaries, address: node.hostIp, tmpRoot });
  try {
    await allowPlainHttpRegistry(node, registry.host);
  } catch (err) {
    await registry.stop();
    throw err;
  }
  return registry;
}

/** Options of {@link deployInCluster}. */
interface InClusterOptions {
  /** Started with `node`: the product runs as Pods there. */
  controlPlane: ControlPlane;
  /** The registry's binaries (EnvtestBinaries has them). */
  registryBinaries: RegistryBinaries;
  /** The git work tree: its Dockerfile and config/. */
  repoRoot: string;
  /** The committed tree the image is built from (default HEAD). */
  revision?: string;
  /** Environment of buildah, debootstrap and git. */
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** A CA bundle for the image build's stand-in base (ProjectImageOptions.extraCaFile). */
  extraCaFile?: string | undefined;
  /** The project image already built (e.g. before the node took the machine's lock); default: built here. */
  image?: ProjectImage;
  /** How long both Deployments may take to be Available (default 180 s). */
  availableTimeoutMs?: number;
  /** Deploy cert-manager first and let it issue both serving certificates (config/cert-manager). */
  certManager?: CertManagerBinaries;
  /** What the overlay adds: resources beside config/ and args per Deployment (e.g. feature gates), in the first rollout. */
  overlay?: OverlayExtras;
}

/** Additions to config/ in the overlay (overlay.ts). */
type OverlayExtras = Parameters<typeof writeOverlay>[4];

/** The deployed product. */
export interface InCluster {
  /** The registry on the node's bridge address (plain HTTP); Pods and the host reach it. */
  registry: Registry;
  /** The project image's digest reference the Deployments run. */
  imageRef: string;
  /** PEM of the CA that issued both serving certificates. */
  caCertPem: string;
  /** cert-manager, when InClusterOptions.certManager asked for it. */
  certManager?: CertManagerDeployment;
  /** The generated overlay (kustomization.yaml over `../config`). */
  overlayDir: string;
  /** kubectl against the control plane as its administrator. */
  kubectl: Kubectl;
  /** Milliseconds of each step. */
  timings: { image: number; push: number; apply: number; available: number };
  /** Stops the registry and removes the temp directory; the control plane is the caller's. */
  stop(): Promise<void>;
}

/**
 * Deploys config/ with the project's image onto `controlPlane`'s node and resolves once both
 * Deployments are Available. Throws, having stopped what it started, when there is no node, the
 * image does not build or push, kubectl refuses the manifests, or a Pod cannot start.
 */
export async function deployInCluster(options: InClusterOptions): Promise<InCluster> {
  if (options.controlPlane.node === undefined) throw new Error(NO_NODE('deployInCluster'));
  const info = options.controlPlane.info;
  const kubectl: Kubectl = async (args, input) =>
    (await runCommand(info.kubectl, ['--kubeconfig', info.kubeconfigPath, ...args], input === undefined ? {} : { input })).stdout;
  const work = await mkdtemp(join(tmpdir(), 'olmv1-in-cluster-'));
  let registry: Registry | undefined;
  const stop = async (): Promise<void> => {
    await registry?.stop();
    await rm(work, { recursive: true, force: true });
  };
  try {
    const timings = { image: 0, push: 0, apply: 0, available: 0 };
    const lap = lapTimer();
    registry = await startNodeRegistry(options.controlPlane, options.registryBinaries, work);
    const image =
      options.image ??
      (await buildProjectImage({
        repoRoot: options.repoRoot,
        ...(options.revision !== undefined ? { revision: options.revision } : {}),
        cacheDir: defaultImageCacheDir(options.env),
        env: options.env,
        log: options.log,
        extraCaFile: options.extraCaFile,
      }));
    timings.image = lap();
    const imageRef = await pushProjectImage(image, registry.host, [registry.host]);
    timings.push = lap();

    await cp(join(options.repoRoot, 'config'), join(work, 'config'), { recursive: true });
    const certManager =
      options.certManager === undefined
        ? undefined
        : await deployCertManager({ kubectl, registry: registry.host, binaries: options.certManager, log: options.log });
    // The console's certificate also names the node's bridge address, where its NodePort is.
    const bridgeIp = registry.host.slice(0, registry.host.lastIndexOf(':'));
    const certs = certManager === undefined ? await issueServingCertificates(join(work, 'pki'), [bridgeIp]) : undefined;
    const overlayDir = await writeOverlay(work, imageRef, [registry.host], certs?.ca.certPem, options.overlay);
    // The Secrets go into the namespace before the Deployments that mount them.
    await kubectl(['apply', '--server-side', '-f', join(work, 'config', 'namespace.yaml')]);
    if (certs !== undefined) await kubectl(['apply', '--server-side', '-f', '-'], certs.secrets);
    await kubectl(['apply', '--server-side', '-k', overlayDir]);
    timings.apply = lap();
    options.log(`config/ applied with ${imageRef}; waiting for ${DEPLOYMENTS.join(' and ')} to be Available`);
    await waitForDeployments(kubectl, SYSTEM_NAMESPACE, DEPLOYMENTS, options.availableTimeoutMs ?? 180_000);
    timings.available = lap();
    const caCertPem = certs?.ca.certPem ?? (await secretField(kubectl, 'catalogd-service-cert', 'ca.crt'));
    return { registry, imageRef, caCertPem, overlayDir, kubectl, timings, stop, ...(certManager === undefined ? {} : { certManager }) };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The decoded `key` of Secret `name` in the system namespace. */
async function secretField(kubectl: Kubectl, name: string, key: string): Promise<string> {
  const escaped = key.replace(/\./g, '\\.');
  const b64 = await kubectl(['get', 'secret', '-n', SYSTEM_NAMESPACE, name, '-o', `jsonpath={.data.${escaped}}`]);
  return Buffer.from(b64, 'base64').toString('utf8');
}
