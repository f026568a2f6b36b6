/**
 * registry+v1 bundles -> plain Kubernetes manifests (pure), plus the RBAC an extension's
 * ServiceAccount needs to install them. See render.ts for the pipeline and
 * docs/decisions/0040-0042 for where this deliberately differs from upstream.
 */
export { unmarshalBundleConfig, type BundleConfig, type BundleConfigOptions, type DeploymentConfig } from './bundle-config.ts';
export { certNamesFor, type CertNames } from './cert-providers.ts';
export { HELM_INSTALL_ORDER, compareObjects, sortObjects } from './order.ts';
export { deepHashJson, encodePermission, objectNameForBaseAndSuffix, permissionObjectName } from './naming.ts';
export { computeInstallRbac, type InstallRbac, type InstallRbacOptions } from './rbac-for-install.ts';
export { computeInstallRules, type InstallRules, type InstallRulesOptions, type PolicyRule, type ScopeRules } from './rbac-for-install.ts';
export {
  foreignRoleBindings,
  formatEscalationWarning,
  rbacEscalationWarnings,
  ruleDangers,
  ruleText,
  type EscalationScope,
  type EscalationWarning,
  type ForeignRoleBinding,
  type RuleDanger,
} from './rbac-escalation.ts';
export { render, renderBundle, type RenderBundleOptions } from './render.ts';
export { groupOf, staticKindScopes, type KindScopes, type ResourceMapping } from './resource-mapping.ts';
export { checkPreRenderGates, type GateOptions } from './gates.ts';
export { isNamespacedKind, isSupportedKind } from './supported-kinds.ts';
export { REASON_INVALID_CONFIGURATION, renderFailureToError, type CertProviderName, type RenderFailure, type RenderOptions } from './types.ts';
export { objectToYaml, objectsToYaml, toYaml } from './yaml-output.ts';
export { watchNamespaceHint, withWatchNamespaceHint, type WatchNamespaceAudience } from './watch-namespace-hint.ts';
