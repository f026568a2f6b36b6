/**
 * A ClusterExtension's metadata.name is the name of its Helm release, and Helm (like upstream
 * OLM v1's applier) accepts as release name only a DNS-1123 subdomain of at most 53
 * characters. The CRD refuses other names when an object is created (the root rule of
 * config/crd/olm.operatorframework.io_clusterextensions.yaml); these are the same limit and
 * message, for code that meets an object admitted before that rule existed and must say why it
 * can never install. release-name.test.ts checks that they agree.
 *
 * parseClusterExtension does not apply this check (pkg/shared/api checks shape only, decision 0071):
 * an object that fails to parse cannot reach its finalizers, so such an extension could not be
 * deleted. Nor does a refused name mean "no release records": earlier versions stored releases
 * under names of up to 63 characters, so an extension named with 54 to 63 may have one to
 * uninstall.
 */

/** Helm's longest release name. */
export const RELEASE_NAME_MAX_LENGTH = 53;

/** Helm's release-name pattern (a DNS-1123 subdomain), as the CRD rule writes it. */
export const RELEASE_NAME_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

/** The CRD rule's message, word for word. */
export const RELEASE_NAME_MESSAGE =
  'name becomes the Helm release name, so it must be no longer than 53 characters and a valid DNS1123 subdomain. It must contain only lowercase alphanumeric characters, hyphens (-) or periods (.), start and end with an alphanumeric character';
