/**
 * The bounds on what a bundle may declare and on the work spent checking it, so that a
 * hostile or careless catalog costs bounded time and memory (each breach is reported naming
 * the bundle and the property).
 */

/** Bounds on declared requirements and on CEL rules. */
export interface DependencyLimits {
  /** Requirement properties per bundle. */
  readonly maxRequirements: number;
  /** Bytes of one property's JSON value: OLM's own `olm.constraint` limit is 131072 (2 << 16). */
  readonly maxValueBytes: number;
  /** Nesting of `all` / `any` / `not`. */
  readonly maxDepth: number;
  /** Constraints (simple and compound) in one property. */
  readonly maxNodes: number;
  /** Characters of one CEL rule. */
  readonly maxRuleLength: number;
  /** Expression nodes of one parsed CEL rule. */
  readonly maxRuleNodes: number;
  /** Nesting of comprehensions (`exists`, `all`, `map`, ...) in one CEL rule. */
  readonly maxComprehensionDepth: number;
  /**
   * Estimated steps of one rule on one candidate: rule nodes x (list length + 1) ^
   * comprehension depth. A candidate past it does not satisfy the rule, and the rule is
   * reported as too costly.
   */
  readonly maxRuleCost: number;
}

/** The bounds used unless a caller gives others. */
export const DEFAULT_LIMITS: DependencyLimits = Object.freeze({
  maxRequirements: 64,
  maxValueBytes: 2 << 16,
  maxDepth: 16,
  maxNodes: 512,
  maxRuleLength: 4096,
  maxRuleNodes: 1024,
  maxComprehensionDepth: 3,
  maxRuleCost: 2_000_000,
});
