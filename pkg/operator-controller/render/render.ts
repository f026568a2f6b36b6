/**
 * registry+v1 bundle -> plain Kubernetes manifests (pure), following upstream's
 * `RegistryV1ManifestProvider.Get` + `registryv1.Renderer.Render`: pre-render gates,
 * `spec.config` validation (the only terminal failure), bundle validators, target namespaces,
 * generators, then a deterministic order. The CSV is never output; returned objects share
 * structure with the bundle: treat both as read-only.
 */
import type { ClusterServiceVersion, KubeObject, RegistryV1Bundle } from '../bundle/index.ts';
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { unmarshalBundleConfig, type BundleConfig, type DeploymentConfig } from './bundle-config.ts';
import { certProvider } from './cert-providers.ts';
import type { ClusterProxy } from './cluster-proxy.ts';
import { ownedApiServiceCount, supportedInstallModes, webhookDefinitions } from './csv-access.ts';
import { generateCrds, generateOthers } from './gen-crds.ts';
import { generateDeployments } from './gen-deployments.ts';
import { generateClusterRoles, generateRoles, generateServiceAccounts } from './gen-rbac.ts';
import { generateCertProviderObjects, generateWebhookConfigurations, generateWebhookServices } from './gen-webhooks.ts';
import { sortObjects } from './order.ts';
import { defaultTargetNamespaces, validateTargetNamespaces } from './target-namespaces.ts';
import { REASON_INVALID_CONFIGURATION, type CertProviderName, type RenderFailure, type RenderOptions } from './types.ts';
import { validateBundle } from './validators.ts';

/** Renders `bundle` for an install into `options.installNamespace`; see the module comment. */
export function render(bundle: RegistryV1Bundle, options: RenderOptions): Result<KubeObject[], RenderFailure> {
  const refuse = (message: string) => err<RenderFailure>({ terminal: false, message });
  const provider = options.certProvider === undefined ? undefined : certProvider(options.certProvider);
  const singleOwn = options.singleOwnNamespaceSupport ?? true;
  const gate = checkPreRenderGates(bundle.csv, {
    webhookSupport: options.webhookSupport ?? provider !== undefined,
    hasCertProvider: provider !== undefined,
    singleOwnNamespaceSupport: singleOwn,
  });
  if (gate !== undefined) return refuse(gate);

  const modes = supportedInstallModes(bundle.csv);
  let config: BundleConfig = {};
  if (singleOwn || options.config !== undefined) {
    const parsed = unmarshalBundleConfig(options.config, {
      supportedModes: modes,
      installNamespace: options.installNamespace,
      deploymentConfigEnabled: options.deploymentConfigSupport ?? true,
    });
    if (!parsed.ok) return err({ terminal: true, reason: REASON_INVALID_CONFIGURATION, message: parsed.error });
    config = parsed.value;
  }

  let targets: readonly string[] | undefined = options.targetNamespaces;
  if (config.watchNamespace !== undefined) targets = [config.watchNamespace];
  return renderBundle(bundle, {
    installNamespace: options.installNamespace,
    ...(targets === undefined ? {} : { targetNamespaces: targets }),
    ...(options.certProvider === undefined ? {} : { certProvider: options.certProvider }),
    ...(config.deploymentConfig === undefined ? {} : { deploymentConfig: config.deploymentConfig }),
    ...(options.clusterProxy === undefined ? {} : { clusterProxy: options.clusterProxy }),
  });
}

/** Inputs of `renderBundle` (upstream `Renderer.Render` options). */
export interface RenderBundleOptions {
  installNamespace: string;
  /** Used when non-empty; otherwise the bundle's default (see target-namespaces.ts). */
  targetNamespaces?: readonly string[];
  certProvider?: CertProviderName;
  deploymentConfig?: DeploymentConfig;
  /** The cluster-wide proxy set in the Deployments' containers (cluster-proxy.ts). */
  clusterProxy?: ClusterProxy;
}

/**
 * Upstream's `registryv1.Renderer.Render`: validators, target namespaces, generators,
 * without the gates and configuration handling of `render` (so, for example, a webhook
 * bundle renders without a certificate provider). All failures are non-terminal.
 */
export function renderBundle(bundle: RegistryV1Bundle, options: RenderBundleOptions): Result<KubeObject[], RenderFailure> {
  const refuse = (message: string) => err<RenderFailure>({ terminal: false, message });
  const invalid = validateBundle(bundle);
  if (invalid !== undefined) return refuse(invalid);

  const modes = supportedInstallModes(bundle.csv);
  const targets =
    options.targetNamespaces !== undefined && options.targetNamespaces.length > 0 ? [...options.targetNamespaces] : defaultTargetNamespaces(modes);
  const badTargets = validateTargetNamespaces(modes, options.installNamespace, targets);
  if (badTargets !== undefined) return refuse(badTargets);

  const ns = options.installNamespace;
  const provider = options.certProvider === undefined ? undefined : certProvider(options.certProvider);
  const crds = generateCrds(bundle, ns, provider);
  if (!crds.ok) return refuse(crds.error);
  const others = generateOthers(bundle, ns);
  if (!others.ok) return refuse(others.error);
  const objects: KubeObject[] = [
    ...generateServiceAccounts(bundle, ns),
    ...generateRoles(bundle, ns, targets),
    ...generateClusterRoles(bundle, ns, targets),
    ...crds.value,
    ...others.value,
    ...generateDeployments(bundle, {
      installNamespace: ns,
      targetNamespaces: targets,
      ...(provider === undefined ? {} : { provider }),
      ...(options.deploymentConfig === undefined ? {} : { deploymentConfig: options.deploymentConfig }),
      ...(options.clusterProxy === undefined ? {} : { clusterProxy: options.clusterProxy }),
    }),
    ...generateWebhookConfigurations(bundle, ns, targets, provider),
    ...generateWebhookServices(bundle, ns, provider),
    ...generateCertProviderObjects(bundle, ns, provider),
  ];
  return ok(sortObjects(objects));
}

/** Which optional features are on. */
interface GateOptions {
  webhookSupport: boolean;
  hasCertProvider: boolean;
  singleOwnNamespaceSupport: boolean;
}

/** The first pre-render gate the CSV fails, in upstream's order, as upstream's message (never terminal), or undefined. */
export function checkPreRenderGates(csv: ClusterServiceVersion, opts: GateOptions): string | undefined {
  if (ownedApiServiceCount(csv) > 0) {
    // "Defintions" is upstream's spelling.
    return 'unsupported bundle: apiServiceDefintions are not supported';
  }
  if (webhookDefinitions(csv).length > 0) {
    if (!opts.webhookSupport) return 'unsupported bundle: webhookDefinitions are not supported';
    if (!opts.hasCertProvider) return 'unsupported bundle: webhookDefinitions are not supported: certificate provider is nil';
  }
  const modes = supportedInstallModes(csv);
  if (!opts.singleOwnNamespaceSupport && !modes.has('AllNamespaces')) {
    return 'unsupported bundle: bundle does not support AllNamespaces install mode';
  }
  if (!modes.has('AllNamespaces') && !modes.has('SingleNamespace') && !modes.has('OwnNamespace')) {
    return 'unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes';
  }
  return undefined;
}
