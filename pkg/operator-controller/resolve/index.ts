/**
 * Bundle resolution for OLM v1, as a pure function of already-fetched catalog data:
 * which bundle of which catalog a ClusterExtension should run, with upstream's version
 * semantics (Masterminds ranges for `spec.version`, blang ranges for `skipRange` and release
 * ordering, both on top of pkg/shared/semver) and upstream's exact error texts. Also the catalog label selector and the
 * deprecation conditions derived from a resolution.
 */
export { bundleVersionRelease, PACKAGE_PROPERTY } from './bundle-version.ts';
export { DEPRECATION_UNKNOWN_MESSAGE, NO_BUNDLE_INSTALLED_MESSAGE, deprecationConditions, type DeprecationCondition } from './deprecation.ts';
export {
  SELECTOR_ERROR_PREFIX,
  parseLabelSelector,
  selectCatalogs,
  type LabelMatcher,
  type LabelSelector,
  type LabelSelectorRequirement,
  type Labels,
} from './label-selector.ts';
export {
  catalogCacheFailed,
  catalogCacheNotFound,
  catalogNilResolvedImage,
  catalogNilResolvedSource,
  catalogNotServed,
  getPackageFailed,
  listCatalogsFailed,
  packageGetFailed,
  packageLoadFailed,
  resolutionFailed,
  versionRangeInvalid,
  type ResolutionFailure,
} from './messages.ts';
export { packagePartition } from './partition.ts';
export { packageMissing, resolutionHints, similarNames } from './hints.ts';
export {
  compareVersionRelease,
  formatLegacyVersion,
  metadataFor,
  parseExplicitVersionRelease,
  parseLegacyVersionRelease,
  type ReleaseOptions,
  type VersionRelease,
} from './release.ts';
export { DEPENDENCY_PROPERTY_TYPES, checkVersionRange, resolve } from './resolver.ts';
export { parseSkipRange, type SkipRange } from './skip-range.ts';
export type { CatalogFetchFailure, CatalogInput, CatalogPackage, InstalledBundle, Resolution, ResolveInput } from './types.ts';
export { CONSTRAINT_PARSER_ERROR, parseVersionRange, rangeContains, type VersionRange } from './version-range.ts';
