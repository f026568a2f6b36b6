/**
 * Bundle resolution for OLM v1, a pure function of already-fetched catalog data, with
 * upstream's version semantics and exact error texts; also the catalog label selector and the
 * deprecation conditions derived from a resolution.
 */
export { bundleVersionRelease } from './bundle-version.ts';
export { isEmptyPartition } from './candidates.ts';
export { deprecationConditions, type DeprecationCondition } from './deprecation.ts';
export { parseLabelSelector, selectCatalogs, type LabelSelector } from './label-selector.ts';
export { catalogCacheFailed, catalogNilResolvedImage, catalogNilResolvedSource, catalogNotServed } from './messages.ts';
export { packagePartition } from './partition.ts';
export { packageMissing, resolutionHints } from './hints.ts';
export { compareVersionRelease, metadataFor, type VersionRelease } from './release.ts';
export { DEPENDENCY_PROPERTY_TYPES, checkVersionRange, resolve } from './resolver.ts';
export { upgradeSuccessors, type Successor } from './successors.ts';
export type { CatalogInput, CatalogPackage, ResolveInput } from './types.ts';
export { parseVersionRange, rangeContains } from './version-range.ts';
