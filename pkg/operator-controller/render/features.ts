/**
 * The rendering of a ClusterExtension as operator-controller's feature gates make it: which
 * gates change rendering, the switches they give, and the options `render` gets for an
 * extension. The render step and `olmv1 upgrade plan` both make their options here, so a plan
 * renders exactly as the controller will (issue 70).
 */
import type { KubeObject } from '../bundle/index.ts';
import type { ClusterProxy } from './cluster-proxy.ts';
import type { CertProviderName, RenderOptions } from './types.ts';

/** operator-controller's feature gates that change what a bundle renders to (upstream's names). */
export interface RenderGates {
  WebhookProviderCertManager: boolean;
  WebhookProviderOpenshiftServiceCA: boolean;
  SingleOwnNamespaceInstallSupport: boolean;
  DeploymentConfig: boolean;
}

/** The rendering switches of `RenderOptions` the gates set. */
export interface RenderFeatures {
  certProvider?: CertProviderName;
  webhookSupport: boolean;
  singleOwnNamespaceSupport: boolean;
  deploymentConfigSupport: boolean;
}

/**
 * The switches of `gates`: cert-manager when WebhookProviderCertManager is on, else the
 * OpenShift service CA when its gate is on, else no provider (webhook bundles are refused).
 */
export function renderFeatures(gates: RenderGates): RenderFeatures {
  const certProvider = gates.WebhookProviderCertManager
    ? 'cert-manager'
    : gates.WebhookProviderOpenshiftServiceCA
      ? 'openshift-service-ca'
      : undefined;
  return {
    ...(certProvider === undefined ? {} : { certProvider }),
    webhookSupport: certProvider !== undefined,
    singleOwnNamespaceSupport: gates.SingleOwnNamespaceInstallSupport,
    deploymentConfigSupport: gates.DeploymentConfig,
  };
}

/** What of a ClusterExtension's spec rendering reads. */
interface RenderedSpec {
  namespace: string;
  config?: { inline?: unknown } | undefined;
}

/**
 * The options `render` gets for an extension: its `spec.namespace` and `spec.config.inline`,
 * the switches of the gates and the cluster-wide proxy (none: not set; decision 0132).
 */
export function extensionRenderOptions(spec: RenderedSpec, features: RenderFeatures, clusterProxy?: ClusterProxy): RenderOptions {
  return {
    installNamespace: spec.namespace,
    config: spec.config?.inline,
    ...(features.certProvider === undefined ? {} : { certProvider: features.certProvider }),
    webhookSupport: features.webhookSupport,
    singleOwnNamespaceSupport: features.singleOwnNamespaceSupport,
    deploymentConfigSupport: features.deploymentConfigSupport,
    ...(clusterProxy === undefined ? {} : { clusterProxy }),
  };
}

/**
 * The certificate provider `objects` (a deployed release) were rendered with, told by what each
 * provider adds: cert-manager's kinds, or the service CA's serving-cert annotation on a Service.
 * Undefined when they tell nothing (no webhook, or no provider).
 */
export function renderedCertProvider(objects: readonly KubeObject[]): CertProviderName | undefined {
  if (objects.some((o) => o.apiVersion.startsWith('cert-manager.io/'))) return 'cert-manager';
  if (objects.some((o) => o.kind === 'Service' && o.metadata.annotations?.['service.beta.openshift.io/serving-cert-secret-name'] !== undefined))
    return 'openshift-service-ca';
  return undefined;
}
