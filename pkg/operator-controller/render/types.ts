/**
 * Public types of the registry+v1 renderer: options, the failure value, and the
 * certificate provider names.
 */
import { TerminalError } from '../../shared/errors/index.ts';
import type { ClusterProxy } from './cluster-proxy.ts';

/** Certificate providers for webhook serving certificates (upstream's two implementations). */
export type CertProviderName = 'cert-manager' | 'openshift-service-ca';

/** Inputs of `render`. */
export interface RenderOptions {
  /** `spec.namespace` of the ClusterExtension: where namespaced objects go. Required. */
  installNamespace: string;
  /**
   * Explicit target namespaces (upstream's `WithTargetNamespaces`, used when non-empty);
   * `[""]` means all namespaces. A `watchNamespace` from `config` takes precedence.
   * Default: `[""]` when the bundle supports AllNamespaces, otherwise none.
   */
  targetNamespaces?: readonly string[];
  /**
   * The decoded `spec.config.inline` object, or undefined when `spec.config` is not set.
   * Validated against the bundle's configuration schema (see bundle-config.ts).
   */
  config?: unknown;
  /** Certificate provider for webhook bundles; none means webhook bundles are refused. */
  certProvider?: CertProviderName;
  /** Whether webhook bundles are supported. Default: a certificate provider is set. */
  webhookSupport?: boolean;
  /** Feature gate SingleOwnNamespaceInstallSupport. Default true (see decision 0040). */
  singleOwnNamespaceSupport?: boolean;
  /** Feature gate DeploymentConfig. Default true (see decision 0040). */
  deploymentConfigSupport?: boolean;
  /**
   * The cluster-wide proxy, set as `HTTP_PROXY`, `HTTPS_PROXY`, `NO_PROXY` in every container
   * of the rendered Deployments unless `deploymentConfig.env` sets one of them (cluster-proxy.ts,
   * decision 0132). An input, never looked up here: the caller reads it (the OpenShift Proxy
   * object, or operator-controller's own proxy environment). Default: none.
   */
  clusterProxy?: ClusterProxy;
}

/** Condition reason of a terminal configuration failure. */
export const REASON_INVALID_CONFIGURATION = 'InvalidConfiguration';

/**
 * Why rendering refused a bundle. `message` is upstream's text. `terminal` failures (an
 * invalid `spec.config`) must not be retried: the controller reports them with `reason`
 * `InvalidConfiguration`; all others are retried with back-off upstream.
 */
export type RenderFailure = { terminal: true; reason: typeof REASON_INVALID_CONFIGURATION; message: string } | { terminal: false; message: string };

/** The failure as an Error: a `TerminalError` (reason InvalidConfiguration) when terminal. */
export function renderFailureToError(failure: RenderFailure): Error {
  if (failure.terminal) return new TerminalError(failure.message, { reason: failure.reason });
  return new Error(failure.message);
}
