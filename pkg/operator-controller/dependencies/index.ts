/**
 * Dependencies declared by bundles (issue #48, decision 0104): reading them with bounds,
 * checking them against what the cluster has, and finding what the catalogs offer. Pure.
 */
export { DEFAULT_LIMITS } from './limits.ts';
export { REQUIREMENT_PROPERTY_TYPES, RequirementCache, bundleRequirements } from './requirements.ts';
export { brokenDependent, dependencyChecker, type Dependent } from './check.ts';
export { installedCandidate, providedGvks, servedApisCandidate } from './evaluate.ts';
export { mentionedPackages, providersOf, type Provider, type ProviderCatalog } from './providers.ts';
export { providersNote, upgradeBreaksDependent } from './messages.ts';
export type { Candidate, Gvk, Predicate, Requirement, Unmet } from './types.ts';
export { dependencyClosure } from './closure.ts';
export { ServerVersionCache, readServerVersion } from './kube-version.ts';
export { compileRule } from './cel.ts';
export { CostBudget } from './budget.ts';
export { estimateRule, measureProperties } from './cost.ts';
