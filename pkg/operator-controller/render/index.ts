/**
 * registry+v1 bundles -> plain Kubernetes manifests (pure), plus the RBAC an extension's
 * ServiceAccount needs to install them. See render.ts for the pipeline and
 * docs/decisions/0040-0042 for where this deliberately differs from upstream.
 */
export { bundleInstaller, type BundleInstaller } from './installer-rbac.ts';
export { computeInstallRules, policyRules, type PolicyRule } from './rbac-for-install.ts';
export {
  foreignRoleBindings,
  formatEscalationWarning,
  rbacEscalationWarnings,
  ruleDangers,
  ruleText,
  type EscalationWarning,
} from './rbac-escalation.ts';
export { checkPreRenderGates, render, renderBundle, type RenderBundleOptions } from './render.ts';
export { renderedClusterProxy, type ClusterProxy } from './cluster-proxy.ts';
export { extensionRenderOptions, renderFeatures, renderedCertProvider, type RenderFeatures, type RenderGates } from './features.ts';
export { isSupportedKind, staticKindScopes, type KindScopes } from './resource-mapping.ts';
export { renderFailureToError, type CertProviderName, type RenderFailure, type RenderOptions } from './types.ts';
export { objectsToYaml, toYaml } from './yaml-output.ts';
export { watchNamespaceHint } from './target-namespaces.ts';
