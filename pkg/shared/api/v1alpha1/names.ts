/**
 * Fixed names of the tenant API (`olm.operatorframework.io/v1alpha1`, the TenantExtensions
 * feature, decision 0138): the namespaced `Extension` request, the cluster-scoped
 * `ExtensionPolicy`, and the labels and finalizer the tenant controller puts on what it makes.
 */
import { GROUP } from '../v1/constants.ts';

/** The version of both tenant kinds (alpha: may change without conversion). */
const V1ALPHA1 = 'v1alpha1';

/** `apiVersion` of both tenant kinds. */
export const TENANT_API_VERSION = `${GROUP}/${V1ALPHA1}`;

/** Names of one tenant kind. */
interface TenantResourceNames {
  readonly group: typeof GROUP;
  readonly version: typeof V1ALPHA1;
  readonly apiVersion: typeof TENANT_API_VERSION;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly crdName: string;
  readonly namespaced: boolean;
}

/** Names of the Extension kind (namespaced): a tenant's request to install a package into its namespace. */
export const EXTENSION = {
  group: GROUP,
  version: V1ALPHA1,
  apiVersion: TENANT_API_VERSION,
  kind: 'Extension',
  listKind: 'ExtensionList',
  plural: 'extensions',
  singular: 'extension',
  crdName: `extensions.${GROUP}`,
  namespaced: true,
} as const satisfies TenantResourceNames;

/** Names of the ExtensionPolicy kind (cluster-scoped): what namespaces may install. */
export const EXTENSION_POLICY = {
  group: GROUP,
  version: V1ALPHA1,
  apiVersion: TENANT_API_VERSION,
  kind: 'ExtensionPolicy',
  listKind: 'ExtensionPolicyList',
  plural: 'extensionpolicies',
  singular: 'extensionpolicy',
  crdName: `extensionpolicies.${GROUP}`,
  namespaced: false,
} as const satisfies TenantResourceNames;

/** Label on what the tenant controller makes for an Extension: the request's namespace. */
export const TENANT_NAMESPACE_LABEL = 'olm.operatorframework.io/extension-namespace';

/** Label on what the tenant controller makes for an Extension: the request's name. */
export const TENANT_NAME_LABEL = 'olm.operatorframework.io/extension-name';

/**
 * Label on what the tenant controller makes for an Extension: the request's uid. With the two
 * labels above it proves the object was made for this very request (not an earlier one of the
 * same name) before the controller writes or deletes it.
 */
export const TENANT_UID_LABEL = 'olm.operatorframework.io/extension-uid';

/** Label on an installer's Roles and bindings: the bundle they were computed for. */
export const TENANT_BUNDLE_LABEL = 'olm.operatorframework.io/installer-for-bundle';

/** Annotation on the ClusterExtension: the Extension's generation its spec was written for. */
export const TENANT_GENERATION_ANNOTATION = 'olm.operatorframework.io/extension-generation';

/** Extension finalizer: deleting the request uninstalls its ClusterExtension, then removes the installer made for it. */
export const TENANT_UNINSTALL_FINALIZER = 'olm.operatorframework.io/tenant-uninstall';

/** Server-side apply field manager of the tenant controller. */
export const TENANT_FIELD_MANAGER = 'olm.operatorframework.io/extension-controller';
