/**
 * The OLM v1 API (`olm.operatorframework.io/v1`) as TypeScript: zod schemas and types of
 * ClusterExtension and ClusterCatalog, the condition vocabulary, and the fixed names (labels,
 * finalizers, kinds) both controllers and the CLI use. The CRDs themselves are config/crd/.
 * Also the tenant kinds of `v1alpha1` (Extension, ExtensionPolicy; the TenantExtensions gate,
 * decision 0138), whose CRDs are config/crd/tenant/.
 */
export { AvailabilityMode, CatalogSourceType, ClusterCatalog, ClusterCatalogStatus, parseClusterCatalog } from './v1/cluster-catalog.ts';
export {
  BundleMetadata,
  ClusterExtension,
  ClusterExtensionSpec,
  ClusterExtensionStatus,
  CrdUpgradeSafetyEnforcement,
  UpgradeConstraintPolicy,
  parseClusterExtension,
} from './v1/cluster-extension.ts';
export {
  ClusterObjectSet,
  CollisionProtection,
  LifecycleState,
  ObjectSetConditionType,
  ObjectSetReason,
  parseClusterObjectSet,
  type Assertion,
  type ClusterObjectSetSpec,
  type ObjectSetObject,
  type ObjectSetPhase,
  type ObjectSourceRef,
  type ObservedPhase,
  type ProgressionProbe,
} from './v1/cluster-object-set.ts';
export {
  ClusterCatalogConditionType,
  ClusterCatalogReason,
  ClusterExtensionConditionType,
  ClusterExtensionReason,
  Condition,
  ConditionStatus,
  HealthConditionType,
  HealthReason,
  UpgradeConditionType,
  UpgradeReason,
  findCondition,
} from './v1/conditions.ts';
export {
  CLEANUP_CONTENT_MANAGER_CACHE_FINALIZER,
  CLEANUP_UNPACK_CACHE_FINALIZER,
  CLUSTER_CATALOG,
  CLUSTER_OBJECT_SET,
  CLUSTER_EXTENSION,
  CONFIGS_LOCATION_LABEL,
  DELETE_SERVER_CACHE_FINALIZER,
  FIELD_MANAGER,
  GROUP,
  APPROVED_BUNDLE_ANNOTATION,
  CATALOG_NAME_LABEL,
  ORPHAN_OBJECTS_ANNOTATION,
  UPDATE_POLICY_ANNOTATION,
  UpdatePolicy,
  KEPT_FOR_PACKAGE_ANNOTATION,
  PACKAGE_NAME_ANNOTATION,
  HELM_OWNERSHIP,
  OWNER_KIND_LABEL,
  OWNER_NAME_LABEL,
  UNINSTALL_FINALIZER,
  VERSION,
} from './v1/constants.ts';
export { formatKubeTime } from './v1/object-meta.ts';
export { formatPath } from './v1/parse.ts';
export { RELEASE_NAME_MESSAGE } from './v1/release-name.ts';
export { Extension, parseExtension } from './v1alpha1/extension.ts';
export { ExtensionPolicy, TenantInstallMode, TenantUpgrades, parseExtensionPolicy, type PolicyPackage } from './v1alpha1/extension-policy.ts';
export {
  EXTENSION,
  EXTENSION_POLICY,
  TENANT_BUNDLE_LABEL,
  TENANT_FIELD_MANAGER,
  TENANT_GENERATION_ANNOTATION,
  TENANT_NAME_LABEL,
  TENANT_NAMESPACE_LABEL,
  TENANT_UID_LABEL,
  TENANT_UNINSTALL_FINALIZER,
} from './v1alpha1/names.ts';
