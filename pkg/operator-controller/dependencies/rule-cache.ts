/**
 * Compiled CEL rules by their text (decision 0110): many bundles of a catalog, and every
 * bundle of every catalog revision, repeat the same few rules, so each distinct text is
 * parsed and estimated once. Bounded: the least recently used rule goes first.
 */
import type { Result } from '../../shared/errors/index.ts';
import { compileRule, type CelRule } from './cel.ts';
import type { DependencyLimits } from './limits.ts';

const DEFAULT_SIZE = 1024;

export class RuleCache {
  readonly #max: number;
  readonly #rules = new Map<string, { limits: DependencyLimits; compiled: Result<CelRule, string> }>();

  constructor(max = DEFAULT_SIZE) {
    this.#max = max;
  }

  /** How many rules are kept. */
  get size(): number {
    return this.#rules.size;
  }

  /** `compileRule(rule, limits)`, from the cache when this text was compiled with these limits. */
  compile(rule: string, limits: DependencyLimits): Result<CelRule, string> {
    const hit = this.#rules.get(rule);
    if (hit !== undefined && hit.limits === limits) {
      this.#rules.delete(rule);
      this.#rules.set(rule, hit);
      return hit.compiled;
    }
    const compiled = compileRule(rule, limits);
    this.#rules.delete(rule);
    this.#rules.set(rule, { limits, compiled });
    if (this.#rules.size > this.#max) {
      const oldest = this.#rules.keys().next();
      if (oldest.done !== true) this.#rules.delete(oldest.value);
    }
    return compiled;
  }
}
