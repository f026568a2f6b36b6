/**
 * Dependencies declared by bundles (issue #48, decision 0104): reading `olm.package.required`,
 * `olm.gvk.required` and `olm.constraint` (package, gvk, CEL with `semver_compare`, and the
 * compounds all/any/not) with bounds, checking them against what the cluster has (installed
 * extensions' bundles and the APIs the cluster serves), and finding what the catalogs offer
 * for an unmet one. Pure.
 */
export { DEFAULT_LIMITS } from './limits.ts';
export { REQUIREMENT_PROPERTY_TYPES, RequirementCache, bundleRequirements } from './requirements.ts';
export { dependencyChecker } from './check.ts';
export { providedGvks } from './evaluate.ts';
export { mentionedPackages, providersOf, type Provider, type ProviderCatalog } from './providers.ts';
export { providersNote, upgradeBreaksDependent } from './messages.ts';
export { brokenDependent, type Dependent } from './dependents.ts';
export { installedCandidate, servedApisCandidate } from './candidates.ts';
export type { Candidate, Gvk, Predicate, Requirement, Unmet } from './types.ts';
export { dependencyClosure } from './closure.ts';
export { ServerVersionCache, readServerVersion } from './server-version.ts';
