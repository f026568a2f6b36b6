/**
 * How the console names a ClusterCatalog and which source type it shows for it, and the rule both
 * the console and `olmv1 install` apply: an install from a Community catalog must be acknowledged
 * (pure; issue 71, OperatorHub's source badges and community warning; decision 0148). A ClusterCatalog has no
 * display name or publisher field, so the administrator sets two annotations on it; without
 * them, OpenShift's four default catalogs (told apart only by their names, as OperatorHub told
 * its CatalogSources apart) get their OperatorHub names and types, and any other catalog is
 * Custom under its own name. Annotation values are catalog-admin input: clipped, shown as text.
 */

/** The ClusterCatalog annotation with the name the console shows for it. */
export const CATALOG_DISPLAY_NAME_ANNOTATION = 'olm.operatorframework.io/display-name';
/** The ClusterCatalog annotation with its source type (OperatorHub's provider types; `Community` warns before an install). */
export const CATALOG_SOURCE_TYPE_ANNOTATION = 'olm.operatorframework.io/source-type';

/** OperatorHub's source (provider) types. */
const SOURCE_TYPES = ['Red Hat', 'Certified', 'Community', 'Marketplace', 'Custom'] as const;
type SourceType = (typeof SOURCE_TYPES)[number];

/** A catalog as the hub's badges and Source filter show it. */
export interface CatalogBadge {
  /** The ClusterCatalog's name. */
  name: string;
  displayName: string;
  sourceType: SourceType;
  /** True when an install from it must be acknowledged first (community or uncertified content). */
  needsAcknowledgement: boolean;
}

/** OpenShift's default ClusterCatalogs, as their CatalogSources were shown. */
const OPENSHIFT_DEFAULTS: Readonly<Record<string, { displayName: string; sourceType: SourceType }>> = {
  'openshift-redhat-operators': { displayName: 'Red Hat Operators', sourceType: 'Red Hat' },
  'openshift-certified-operators': { displayName: 'Certified Operators', sourceType: 'Certified' },
  'openshift-redhat-marketplace': { displayName: 'Red Hat Marketplace', sourceType: 'Marketplace' },
  'openshift-community-operators': { displayName: 'Community Operators', sourceType: 'Community' },
};

const MAX_DISPLAY_NAME = 63;

/** The badge of ClusterCatalog `name` with `annotations`. */
export function catalogBadge(name: string, annotations: Readonly<Record<string, string>> | undefined): CatalogBadge {
  const a = annotations ?? {};
  const fallback = OPENSHIFT_DEFAULTS[name];
  const shown = (a[CATALOG_DISPLAY_NAME_ANNOTATION] ?? '').replace(/\s+/g, ' ').trim();
  const displayName =
    shown === '' ? (fallback?.displayName ?? name) : shown.length > MAX_DISPLAY_NAME ? `${shown.slice(0, MAX_DISPLAY_NAME - 1)}…` : shown;
  const sourceType = parseSourceType(a[CATALOG_SOURCE_TYPE_ANNOTATION]) ?? fallback?.sourceType ?? 'Custom';
  return { name, displayName, sourceType, needsAcknowledgement: sourceType === 'Community' };
}

/** `Community`, `community`, `uncertified` (Community); `redhat`, `red-hat` (Red Hat); ...; anything else undefined. */
function parseSourceType(v: string | undefined): SourceType | undefined {
  const k = (v ?? '').toLowerCase().replace(/[\s_-]/g, '');
  if (k === 'uncertified') return 'Community';
  return SOURCE_TYPES.find((t) => t.toLowerCase().replace(/\s/g, '') === k);
}

/**
 * Why an install of `packageName` from the catalog of `badge` is refused without an
 * acknowledgement, or undefined when the catalog needs none (the install service's rule, for the
 * console's checkbox and `olmv1 install --accept-community` alike). A tenant's request, resolved
 * later by the tenant controller, says `resolves` as "may resolve to".
 */
export function communityRefusal(badge: CatalogBadge, packageName: string, resolves = 'resolves to'): string | undefined {
  if (!badge.needsAcknowledgement) return undefined;
  return (
    `package ${packageName} ${resolves} ClusterCatalog ${badge.name} (${JSON.stringify(badge.displayName)}), which the cluster's administrators ` +
    `mark as community content: its packages are not vetted or verified, and their support is the community's. ` +
    `Acknowledge it to install (olmv1 install --accept-community, or the console's checkbox)`
  );
}
