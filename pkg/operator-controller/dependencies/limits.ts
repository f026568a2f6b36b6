/**
 * The bounds on what a bundle may declare and on the work spent checking it, so that a
 * hostile or careless catalog costs bounded time and memory (each breach is reported naming
 * the bundle and the property).
 */

import type { CandidateSize } from './cost.ts';

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
   * Estimated cost (interpreter steps, cost.ts) of one rule on one candidate, computed before
   * it runs: on a small reference candidate (`ruleCandidate`) when the rule is compiled (a rule
   * over it is refused), and on each candidate's own sizes before each evaluation (a candidate
   * over it does not satisfy the rule, and the refusal is named in the unmet dependency).
   */
  readonly maxRuleCost: number;
  /** Estimated allocation (values, about 16 string characters each) of one rule on one candidate, checked as the cost is. */
  readonly maxRuleMemory: number;
  /** Estimated cost all CEL evaluations of one resolution (or one search for providers) may spend together. */
  readonly maxResolutionCost: number;
  /** Values in one candidate's properties past which its sizes are not measured and CEL rules are not run on it. */
  readonly maxCandidateValues: number;
  /** The reference candidate a rule is estimated on when it is compiled. */
  readonly ruleCandidate: CandidateSize;
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
  maxRuleCost: 1_000_000,
  maxRuleMemory: 100_000,
  maxResolutionCost: 10_000_000,
  maxCandidateValues: 100_000,
  ruleCandidate: Object.freeze({ items: 8, width: 8, chars: 64, total: 64, text: 512 }),
});
