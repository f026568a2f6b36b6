/**
 * Fixed names of the OLM v1 API: group, version, kinds and resources, and the label,
 * annotation and finalizer keys both controllers and the CLI put on objects.
 *
 * Every value here is an API contract shared with upstream OLM v1 (objects written by one
 * implementation must be understood by the other), so none may change.
 */

/** API group of ClusterExtension and ClusterCatalog. */
export const GROUP = 'olm.operatorframework.io';

/** The only served and stored version of both kinds. */
export const VERSION = 'v1';

/** `apiVersion` of both kinds. */
export const API_VERSION = `${GROUP}/${VERSION}`;

/**
 * Names of one cluster-scoped kind of this group: everything needed to build a REST path
 * (`/apis/<group>/<version>/<plural>/<name>`), a list or watch request, or an owner reference.
 */
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

/**
 * Label on every object installed for a ClusterExtension: the owner's kind, always
 * `ClusterExtension`. With OWNER_NAME_LABEL it selects the objects of one extension.
 */
export const OWNER_KIND_LABEL = 'olm.operatorframework.io/owner-kind';

/** Label on every object installed for a ClusterExtension: the extension's name. */
export const OWNER_NAME_LABEL = 'olm.operatorframework.io/owner-name';

/**
 * ClusterCatalog finalizer: while present, deleting the catalog first removes its served
 * content and unpack cache. catalogd adds it while the catalog is Available and removes it while
 * `availabilityMode` is Unavailable.
 */
export const DELETE_SERVER_CACHE_FINALIZER = 'olm.operatorframework.io/delete-server-cache';

/** ClusterExtension finalizer: on deletion, remove the extension's bundle unpack cache. */
export const CLEANUP_UNPACK_CACHE_FINALIZER = 'olm.operatorframework.io/cleanup-unpack-cache';

/**
 * ClusterExtension finalizer: on deletion, stop the watches that track the extension's
 * installed objects for drift.
 */
export const CLEANUP_CONTENT_MANAGER_CACHE_FINALIZER = 'olm.operatorframework.io/cleanup-contentmanager-cache';

/**
 * OCI image config label of a catalog image: the directory inside the image that holds the
 * file-based catalog (usually `/configs`). An image without it is not a catalog image.
 */
export const CONFIGS_LOCATION_LABEL = 'operators.operatorframework.io.index.configs.v1';

/**
 * ClusterExtension finalizer (ours; upstream relies on garbage collection instead): on
 * deletion, uninstall the release as the extension's ServiceAccount, keeping CRDs, then
 * remove its records (decision 0045).
 */
export const UNINSTALL_FINALIZER = 'olm.operatorframework.io/uninstall';

/**
 * ClusterExtension annotation: with the value `true`, uninstall removes only operator-
 * controller's own records and caches and leaves every installed object in place (for when
 * the ServiceAccount or its permissions are gone).
 */
export const ORPHAN_OBJECTS_ANNOTATION = 'olm.operatorframework.io/orphan-objects';

/**
 * ClusterExtension annotation: when upgrades to another bundle happen (decision 0096). `Automatic`
 * (also when absent: upstream's behaviour) installs whatever the resolution picks; `Manual`
 * holds every upgrade until it is approved; `AutomaticPatch` installs patch releases of the
 * installed major.minor and holds the rest. Under every policy but `Automatic`, an upgrade whose
 * bundle grants more permissions than the installed one is held until approved. Any other value
 * holds upgrades as `Manual` does and says so in status.
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
 * ClusterExtension annotation: the name of the one bundle (e.g. `foo.v1.1.0`) an upgrade held by
 * the update policy may move to (decision 0096). An approval naming any other bundle than the
 * one the resolution picks approves nothing, so a stale approval never installs something else.
 */
export const APPROVED_BUNDLE_ANNOTATION = 'olm.operatorframework.io/approved-bundle';

/** Server-side apply field manager operator-controller uses for every object it applies. */
export const FIELD_MANAGER = 'olm.operatorframework.io/clusterextension-controller';

/**
 * Annotation operator-controller puts on a CustomResourceDefinition that an uninstall kept
 * (decision 0049): the package whose extension installed it. The next install of that
 * package, whatever its ClusterExtension is named, takes the CRD back (decision 0049); any
 * other extension meets it as an object it does not own.
 */
export const KEPT_FOR_PACKAGE_ANNOTATION = 'olm.operatorframework.io/kept-for-package';

/**
 * Ownership metadata Helm stamps on the objects of a release (upstream operator-controller's
 * Helm applier): an object carrying all three for an extension's release name and install
 * namespace belongs to that extension.
 */
export const HELM_OWNERSHIP = {
  managedByLabel: 'app.kubernetes.io/managed-by',
  managedByValue: 'Helm',
  releaseNameAnnotation: 'meta.helm.sh/release-name',
  releaseNamespaceAnnotation: 'meta.helm.sh/release-namespace',
} as const;
