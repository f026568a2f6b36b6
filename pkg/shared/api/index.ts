/**
 * The OLM v1 API (`olm.operatorframework.io/v1`) as TypeScript: zod schemas and types of
 * ClusterExtension and ClusterCatalog, the condition vocabulary, and the fixed names (labels,
 * finalizers, kinds) both controllers and the CLI use. The CRDs themselves are config/crd/.
 */
export {
  AvailabilityMode,
  CatalogSource,
  CatalogSourceType,
  ClusterCatalog,
  ClusterCatalogSpec,
  ClusterCatalogStatus,
  ClusterCatalogUrls,
  ImageSource,
  ResolvedCatalogSource,
  parseClusterCatalog,
} from './v1/cluster-catalog.ts';
export {
  BundleMetadata,
  CatalogFilter,
  ClusterExtension,
  ClusterExtensionConfig,
  ClusterExtensionInstallConfig,
  ClusterExtensionInstallStatus,
  ClusterExtensionSource,
  ClusterExtensionSpec,
  ClusterExtensionStatus,
  ConfigType,
  CrdUpgradeSafetyEnforcement,
  ServiceAccountReference,
  SourceType,
  UpgradeConstraintPolicy,
  parseClusterExtension,
} from './v1/cluster-extension.ts';
export {
  CLUSTER_CATALOG_CONDITION_TYPES,
  CLUSTER_CATALOG_REASONS,
  CLUSTER_EXTENSION_CONDITION_TYPES,
  CLUSTER_EXTENSION_REASONS,
  ClusterCatalogConditionType,
  ClusterCatalogReason,
  ClusterExtensionConditionType,
  ClusterExtensionReason,
  Condition,
  ConditionStatus,
  findCondition,
} from './v1/conditions.ts';
export {
  API_VERSION,
  CLEANUP_CONTENT_MANAGER_CACHE_FINALIZER,
  CLEANUP_UNPACK_CACHE_FINALIZER,
  CLUSTER_CATALOG,
  CLUSTER_EXTENSION,
  CONFIGS_LOCATION_LABEL,
  DELETE_SERVER_CACHE_FINALIZER,
  FIELD_MANAGER,
  GROUP,
  METADATA_NAME_LABEL,
  ORPHAN_OBJECTS_ANNOTATION,
  KEPT_FOR_PACKAGE_ANNOTATION,
  HELM_OWNERSHIP,
  OWNER_KIND_LABEL,
  OWNER_NAME_LABEL,
  RELEASE_LABELS,
  UNINSTALL_FINALIZER,
  VERSION,
  type ResourceNames,
} from './v1/constants.ts';
export { LabelSelector, LabelSelectorOperator, LabelSelectorRequirement, ObjectMeta, formatKubeTime } from './v1/object-meta.ts';
export { formatPath, parseObject } from './v1/parse.ts';
export { RELEASE_NAME_MAX_LENGTH, RELEASE_NAME_MESSAGE, RELEASE_NAME_PATTERN, releaseNameError } from './v1/release-name.ts';
