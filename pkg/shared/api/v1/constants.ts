/**
 * Fixed names of the OLM v1 API: group, version, kinds and resources, and the label, annotation
 * and finalizer keys both controllers and the CLI put on objects. API contracts shared with
 * upstream OLM v1 (each must read the other's objects): none may change.
 */

/** API group of ClusterExtension and ClusterCatalog. */
export const GROUP = 'olm.operatorframework.io';

/** The only served and stored version of both kinds. */
export const VERSION = 'v1';

/** `apiVersion` of both kinds. */
export const API_VERSION = `${GROUP}/${VERSION}`;

/** Names of one cluster-scoped kind of this group: for REST paths, watches, owner references. */
export interface ResourceNames {
  readonly group: typeof GROUP;
  readonly version: typeof VERSION;
  readonly apiVersion: typeof API_VERSION;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  /** `metadata.name` of the CustomResourceDefinition that serves the kind. */
  readonly crdName: string;
}

/** Names of the ClusterExtension kind. */
export const CLUSTER_EXTENSION = {
  group: GROUP,
  version: VERSION,
  apiVersion: API_VERSION,
  kind: 'ClusterExtension',
  listKind: 'ClusterExtensionList',
  plural: 'clusterextensions',
  singular: 'clusterextension',
  crdName: `clusterextensions.${GROUP}`,
} as const satisfies ResourceNames;

/** Names of the ClusterCatalog kind. */
export const CLUSTER_CATALOG = {
  group: GROUP,
  version: VERSION,
  apiVersion: API_VERSION,
  kind: 'ClusterCatalog',
  listKind: 'ClusterCatalogList',
  plural: 'clustercatalogs',
  singular: 'clustercatalog',
  crdName: `clustercatalogs.${GROUP}`,
} as const satisfies ResourceNames;

/** Names of the ClusterObjectSet kind (BoxcutterRuntime, experimental: config/crd/experimental). */
export const CLUSTER_OBJECT_SET = {
  group: GROUP,
  version: VERSION,
  apiVersion: API_VERSION,
  kind: 'ClusterObjectSet',
  listKind: 'ClusterObjectSetList',
  plural: 'clusterobjectsets',
  singular: 'clusterobjectset',
  crdName: `clusterobjectsets.${GROUP}`,
} as const satisfies ResourceNames;

/** Label on every object installed for a ClusterExtension: its kind (`ClusterExtension`). */
export const OWNER_KIND_LABEL = 'olm.operatorframework.io/owner-kind';

/** Label on every object installed for a ClusterExtension: the extension's name. */
export const OWNER_NAME_LABEL = 'olm.operatorframework.io/owner-name';

/**
 * ClusterCatalog finalizer: deleting the catalog first removes its served content and unpack
 * cache. Present while the catalog is Available, removed while `availabilityMode` is Unavailable.
 */
export const DELETE_SERVER_CACHE_FINALIZER = 'olm.operatorframework.io/delete-server-cache';

/** ClusterExtension finalizer: on deletion, remove the extension's bundle unpack cache. */
export const CLEANUP_UNPACK_CACHE_FINALIZER = 'olm.operatorframework.io/cleanup-unpack-cache';

/** ClusterExtension finalizer: on deletion, stop the drift watches of the extension's objects. */
export const CLEANUP_CONTENT_MANAGER_CACHE_FINALIZER = 'olm.operatorframework.io/cleanup-contentmanager-cache';

/** OCI image config label of a catalog image: its file-based catalog's directory. */
export const CONFIGS_LOCATION_LABEL = 'operators.operatorframework.io.index.configs.v1';

/**
 * ClusterExtension finalizer (ours; upstream relies on garbage collection): on deletion,
 * uninstall the release, keeping CRDs, then remove its records (decision 0045).
 */
export const UNINSTALL_FINALIZER = 'olm.operatorframework.io/uninstall';

/**
 * ClusterExtension annotation: `true` makes uninstall remove only operator-controller's records
 * and caches, leaving installed objects in place (for when the ServiceAccount is gone).
 */
export const ORPHAN_OBJECTS_ANNOTATION = 'olm.operatorframework.io/orphan-objects';

/**
 * ClusterExtension annotation: when upgrades happen (decision 0096). `Automatic` (also when
 * absent, as upstream) installs what the resolution picks; `Manual` holds every upgrade until
 * approved; `AutomaticPatch` installs patch releases of the installed major.minor and holds the
 * rest. Except under `Automatic`, an upgrade granting more permissions is held until approved.
 * Any other value holds upgrades as `Manual` and says so in status.
 */
export const UPDATE_POLICY_ANNOTATION = 'olm.operatorframework.io/update-policy';

/** Values of UPDATE_POLICY_ANNOTATION. */
export const UpdatePolicy = {
  Automatic: 'Automatic',
  Manual: 'Manual',
  AutomaticPatch: 'AutomaticPatch',
} as const;

/** One of Automatic, Manual, AutomaticPatch. */
export type UpdatePolicy = (typeof UpdatePolicy)[keyof typeof UpdatePolicy];

/**
 * ClusterExtension annotation: the one bundle (e.g. `foo.v1.1.0`) a held upgrade may move to
 * (decision 0096); naming another than the resolution's pick approves nothing.
 */
export const APPROVED_BUNDLE_ANNOTATION = 'olm.operatorframework.io/approved-bundle';

/** ClusterCatalog label catalogd's webhook keeps equal to its name: what ClusterExtensions select catalogs by name with. */
export const CATALOG_NAME_LABEL = 'olm.operatorframework.io/metadata.name';

/** Server-side apply field manager operator-controller uses for every object it applies. */
export const FIELD_MANAGER = 'olm.operatorframework.io/clusterextension-controller';

/**
 * Annotation on a CustomResourceDefinition an uninstall kept (decision 0049): its package. The
 * next install of that package, whatever its extension's name, takes the CRD back; any other
 * extension meets it as an object it does not own.
 */
export const KEPT_FOR_PACKAGE_ANNOTATION = 'olm.operatorframework.io/kept-for-package';

/** Annotation naming the package of a release record or ClusterObjectSet revision (upstream's `labels.PackageNameKey`). */
export const PACKAGE_NAME_ANNOTATION = 'olm.operatorframework.io/package-name';

/**
 * Ownership metadata Helm stamps on a release's objects (upstream's Helm applier): an object
 * carrying all three for an extension's release name and namespace belongs to that extension.
 */
export const HELM_OWNERSHIP = {
  managedByLabel: 'app.kubernetes.io/managed-by',
  managedByValue: 'Helm',
  releaseNameAnnotation: 'meta.helm.sh/release-name',
  releaseNamespaceAnnotation: 'meta.helm.sh/release-namespace',
} as const;
