/**
 * CEL rules of `olm.constraint` on @bufbuild/cel (decision 0104), in OLM classic's environment:
 * the variable `properties` (the candidate's `{type, value}` maps) and `semver_compare(a, b)`
 * (also `semverCompare`: blang/semver's Compare of both sides read tolerantly). Compiling
 * checks syntax, functions, size and a static cost estimate (cost.ts, decision 0110) without
 * running the rule; each evaluation is estimated on the candidate's own sizes and paid for from
 * the resolution's budget (budget.ts) before it runs. @bufbuild/cel has no step hook, so the
 * estimate is the only bound on a run.
 */
import { celEnv, celError, celFunc, CelScalar, listType, mapType, parse, plan, type CelEnv } from '@bufbuild/cel';
import { err, ok, type Result } from '../../shared/errors/index.ts';
import type { Property } from '../../shared/fbc/types.ts';
import type { CostBudget } from './budget.ts';
import { estimateRule, measureProperties, resultIsNotBool, type CandidateSize, type RuleEstimate } from './cost.ts';
import type { DependencyLimits } from './limits.ts';
import { compareSemver, parseTolerant } from '../../shared/semver/index.ts';
import { celShape } from '../celshape/index.ts';

/** Why an evaluation was not run, in words naming the limit. */
interface Refused {
  readonly refused: string;
}

/** A compiled rule: its text, its shape, its estimate on the reference candidate, and its evaluation. */
export interface CelRule {
  readonly rule: string;
  readonly nodes: number;
  readonly comprehensionDepth: number;
  readonly estimate: RuleEstimate;
  /**
   * Whether a candidate with `properties` satisfies the rule, paid for from `budget`. An
   * evaluation error or a non-boolean result does not satisfy it (as in OLM classic); a rule
   * whose estimate on this candidate is over the limits, or over what is left of the budget,
   * is not run (`Refused`, also noted on the budget).
   */
  readonly test: (properties: readonly Property[], budget: CostBudget) => boolean | Refused;
}

// The parser's special forms: not functions of the environment, evaluated by the planner.
const SPECIAL_FORMS = new Set(['_&&_', '_||_', '_?_:_', '@not_strictly_false', '_[_]', '@in']);
function environment(): CelEnv {
  const compare = (a: unknown, b: unknown): bigint => {
    const c = semverCompare(a, b);
    if (!c.ok) throw celError(c.error);
    return BigInt(c.value);
  };
  return celEnv({
    variables: { properties: listType(mapType(CelScalar.STRING, CelScalar.DYN)) },
    funcs: [
      celFunc('semver_compare', [CelScalar.DYN, CelScalar.DYN], CelScalar.INT, compare),
      celFunc('semverCompare', [CelScalar.DYN, CelScalar.DYN], CelScalar.INT, compare),
    ],
  });
}

const fmt = (n: number): string => (Number.isFinite(n) ? String(n) : 'unbounded');

/** The limit `estimate` breaks, in words, or undefined. */
function overLimit(estimate: RuleEstimate, limits: DependencyLimits): string | undefined {
  if (estimate.cost > limits.maxRuleCost) return `estimated cost ${fmt(estimate.cost)} exceeds the limit of ${limits.maxRuleCost}`;
  if (estimate.heap > limits.maxRuleMemory) return `estimated memory ${fmt(estimate.heap)} exceeds the limit of ${limits.maxRuleMemory}`;
  return undefined;
}

/**
 * Compiles `rule`, without running it. Errors (as text, for the message naming the bundle and
 * property): a syntax error, a function the environment does not have, a rule over the size
 * limits or over the cost limits on the reference candidate, or a rule whose result can only
 * be something other than a boolean.
 */
export function compileRule(rule: string, limits: DependencyLimits): Result<CelRule, string> {
  if (rule.trim() === '') return err('cel rule is empty');
  if (rule.length > limits.maxRuleLength) return err(`cel rule is longer than ${limits.maxRuleLength} characters`);
  const env = environment();
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(rule);
  } catch (e) {
    return err(`cel rule does not compile: ${e instanceof Error ? e.message : String(e)}`);
  }
  const shape = celShape(parsed.expr, (fn) => SPECIAL_FORMS.has(fn) || env.funcs.find(fn) !== undefined);
  if (shape.unknown.length > 0) return err(`cel rule does not compile: undeclared reference to ${[...new Set(shape.unknown)].join(', ')}`);
  if (shape.nodes > limits.maxRuleNodes) return err(`cel rule has ${shape.nodes} expression nodes, more than ${limits.maxRuleNodes}`);
  if (shape.depth > limits.maxComprehensionDepth) {
    return err(`cel rule nests ${shape.depth} comprehensions, more than ${limits.maxComprehensionDepth}`);
  }
  const expr = parsed.expr;
  if (expr === undefined) return err('cel rule is empty');
  const estimated = estimateRule(expr, limits.ruleCandidate);
  if (!estimated.ok) return err(`cel rule is refused: ${estimated.error}`);
  const over = overLimit(estimated.value, limits);
  if (over !== undefined) return err(`cel rule's ${over}`);
  if (resultIsNotBool(expr)) return err('cel expressions must have type Bool');
  const run = plan(env, parsed);
  // Estimates by candidate sizes (many candidates share them), verdicts by properties list:
  // CEL is pure, and catalog content is cached per digest, so the same candidates come back
  // from one resolution to the next.
  const bySize = new Map<string, Result<RuleEstimate, string>>();
  const verdicts = new WeakMap<readonly Property[], boolean | Refused>();
  const estimateOn = (size: CandidateSize): Result<RuleEstimate, string> => {
    const key = `${size.items}/${size.width}/${size.chars}/${size.total}/${size.text}`;
    let e = bySize.get(key);
    if (e === undefined) {
      e = estimateRule(expr, size);
      if (bySize.size >= 256) bySize.clear();
      bySize.set(key, e);
    }
    return e;
  };
  const test = (properties: readonly Property[], budget: CostBudget): boolean | Refused => {
    const known = verdicts.get(properties);
    if (known !== undefined) {
      if (typeof known !== 'boolean') budget.refusal = known.refused;
      return known;
    }
    const size = measureProperties(properties, limits.maxCandidateValues);
    const estimate = size === undefined ? undefined : estimateOn(size);
    const over =
      size === undefined
        ? `its properties hold more than ${limits.maxCandidateValues} values`
        : estimate === undefined || !estimate.ok
          ? 'no estimate'
          : overLimit(estimate.value, limits);
    if (over !== undefined) {
      const refused = { refused: `CEL rule not evaluated: ${over}` };
      verdicts.set(properties, refused);
      budget.refusal = refused.refused;
      return refused;
    }
    // Measuring the candidate is paid too (a quarter step per value walked).
    const cost = (estimate?.ok === true ? estimate.value.cost : 0) + Math.ceil((size?.total ?? 0) / 4);
    if (!budget.spend(cost)) {
      // Not kept: the next resolution has a budget of its own.
      budget.refusal = `CEL rule not evaluated: the resolution's estimated CEL cost exceeds the limit of ${budget.limit}`;
      return { refused: budget.refusal };
    }
    let result: unknown;
    try {
      result = run({ properties: properties as never });
    } catch {
      // An exhausted stack on a deeply concatenated list is an evaluation error as any other.
      result = false;
    }
    const v = result === true;
    verdicts.set(properties, v);
    return v;
  };
  return ok({ rule, nodes: shape.nodes, comprehensionDepth: shape.depth, estimate: estimated.value, test });
}

/** Renders a CEL value the way Go's `fmt.Sprint` renders the decoded JSON value it stands for. */
function sprint(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v) ?? String(v);
}

/** `semver_compare(a, b)`; an unreadable side is an evaluation error naming the value. */
function semverCompare(a: unknown, b: unknown): Result<number, string> {
  const va = parseTolerant(sprint(a));
  if (!va.ok) return err(`unable to parse '${sprint(a)}' to semver format`);
  const vb = parseTolerant(sprint(b));
  if (!vb.ok) return err(`unable to parse '${sprint(b)}' to semver format`);
  return ok(compareSemver(va.value, vb.value));
}
