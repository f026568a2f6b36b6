/**
 * Dependencies declared by bundles (issue #48, decision 0104): reading `olm.package.required`,
 * `olm.gvk.required` and `olm.constraint` (package, gvk, CEL with `semver_compare`, and the
 * compounds all/any/not) with bounds, and checking them against what the cluster has
 * (installed extensions' bundles and the APIs the cluster serves). Pure.
 */
export { DEFAULT_LIMITS, type DependencyLimits } from './limits.ts';
export { REQUIREMENT_PROPERTY_TYPES, bundleRequirements } from './requirements.ts';
export { checkRequirements, providedGvks, satisfies } from './evaluate.ts';
export { describeConstraint, formatGvk } from './describe.ts';
export type { Candidate, Requirement, Unmet, Verdict } from './types.ts';
export { installedCandidate, servedApisCandidate, type InstalledExtension } from './candidates.ts';
