/**
 * CEL rules of `olm.constraint` on @bufbuild/cel (decision 0104), in OLM classic's environment:
 * the variable `properties` (the candidate's `{type, value}` maps) and `semver_compare(a, b)`
 * (also `semverCompare`: blang/semver's Compare of both sides read tolerantly). Compiling
 * checks syntax, functions and size; evaluation is bounded by a cost estimate (limits.ts).
 */
import { celEnv, celError, celFunc, CelScalar, isCelError, listType, mapType, parse, plan, type CelEnv } from '@bufbuild/cel';
import { err, ok, type Result } from '../../shared/errors/index.ts';
import type { Property } from '../../shared/fbc/types.ts';
import type { DependencyLimits } from './limits.ts';
import { compareSemver, parseTolerant } from '../../shared/semver/index.ts';

type ParsedExpr = ReturnType<typeof parse>['expr'];

/** A compiled rule: its text, its shape for the cost estimate, and its evaluation. */
export interface CelRule {
  readonly rule: string;
  readonly nodes: number;
  readonly comprehensionDepth: number;
  /**
   * Whether a candidate with `properties` satisfies the rule. An evaluation error or a
   * non-boolean result does not satisfy it (as in OLM classic); `costly` when the estimate
   * is over the limit and the rule was not run.
   */
  readonly test: (properties: readonly Property[]) => boolean | 'costly';
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

interface Shape {
  nodes: number;
  depth: number;
  unknown: string[];
}

// Counts nodes and comprehension nesting, and collects functions the environment lacks.
function shapeOf(env: CelEnv, root: ParsedExpr): Shape {
  const shape: Shape = { nodes: 0, depth: 0, unknown: [] };
  const walk = (e: ParsedExpr | undefined, depth: number): void => {
    if (e === undefined) return;
    shape.nodes++;
    const k = e.exprKind;
    switch (k.case) {
      case 'callExpr':
        if (!SPECIAL_FORMS.has(k.value.function) && env.funcs.find(k.value.function) === undefined) shape.unknown.push(k.value.function);
        walk(k.value.target, depth);
        for (const a of k.value.args) walk(a, depth);
        return;
      case 'comprehensionExpr': {
        const c = k.value;
        shape.depth = Math.max(shape.depth, depth + 1);
        walk(c.iterRange, depth);
        walk(c.accuInit, depth);
        for (const part of [c.loopCondition, c.loopStep, c.result]) walk(part, depth + 1);
        return;
      }
      case 'selectExpr':
        walk(k.value.operand, depth);
        return;
      case 'listExpr':
        for (const el of k.value.elements) walk(el, depth);
        return;
      case 'structExpr':
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') walk(entry.keyKind.value, depth);
          walk(entry.value, depth);
        }
        return;
      default:
        return;
    }
  };
  walk(root, 0);
  return shape;
}

/** The longest list a candidate's properties hold, at any level: what comprehensions range over. */
function widest(value: unknown, budget: { left: number }): number {
  if (--budget.left < 0) return Number.POSITIVE_INFINITY;
  if (Array.isArray(value)) return Math.max(value.length, ...value.map((v) => widest(v, budget)));
  if (value !== null && typeof value === 'object') return Math.max(0, ...Object.values(value).map((v) => widest(v, budget)));
  return 0;
}

/**
 * Compiles `rule`. Errors (as text, for the message naming the bundle and property): a
 * syntax error, a function the environment does not have, a rule over the size limits, or
 * a rule whose result on a candidate without properties is not a boolean.
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
  const shape = shapeOf(env, parsed.expr);
  if (shape.unknown.length > 0) return err(`cel rule does not compile: undeclared reference to ${[...new Set(shape.unknown)].join(', ')}`);
  if (shape.nodes > limits.maxRuleNodes) return err(`cel rule has ${shape.nodes} expression nodes, more than ${limits.maxRuleNodes}`);
  if (shape.depth > limits.maxComprehensionDepth) {
    return err(`cel rule nests ${shape.depth} comprehensions, more than ${limits.maxComprehensionDepth}`);
  }
  const run = plan(env, parsed);
  const probe = run({ properties: [] });
  if (!isCelError(probe) && typeof probe !== 'boolean') return err('cel expressions must have type Bool');
  // CEL is pure: a verdict is kept per properties list (catalog content is cached per digest,
  // so the same candidates come back from one resolution to the next).
  const verdicts = new WeakMap<readonly Property[], boolean | 'costly'>();
  const evaluate = (properties: readonly Property[]): boolean | 'costly' => {
    const width = widest(properties, { left: 100_000 }) + 1;
    if (shape.nodes * width ** shape.depth > limits.maxRuleCost) return 'costly';
    const result = run({ properties: properties as never });
    return result === true;
  };
  const test = (properties: readonly Property[]): boolean | 'costly' => {
    let v = verdicts.get(properties);
    if (v === undefined) {
      v = evaluate(properties);
      verdicts.set(properties, v);
    }
    return v;
  };
  return ok({ rule, nodes: shape.nodes, comprehensionDepth: shape.depth, test });
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
