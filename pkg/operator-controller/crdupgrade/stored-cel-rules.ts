/**
 * `x-kubernetes-validations` rules of a CRD schema on @bufbuild/cel (decision 0120): `self` is
 * the value at the rule's node (integers of `type: integer` as CEL ints, `number` as doubles),
 * `oldSelf` the stored value for transition rules. Compiling refuses what cannot be evaluated
 * exactly (a function outside the standard library, such as Kubernetes' `quantity`, `url`,
 * `isSorted`) and `matches` runs through the exact RE2 translation of stored-regex.ts. A bound in the
 * spirit of decision 0110: a rule's estimated steps `nodes x (widest list or map + 1) ^
 * comprehension depth`, where the widest is the larger of the value's widest container and the
 * rule's longest literal list, must stay under the limit before it is run.
 */
import { CelScalar, celEnv, celError, parse, plan } from '@bufbuild/cel';
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { re2ToJs } from './stored-regex.ts';

type ParsedExpr = ReturnType<typeof parse>['expr'];

/** One compiled rule. */
export interface CompiledRule {
  readonly rule: string;
  readonly transition: boolean;
  readonly nodes: number;
  readonly depth: number;
  readonly widestLiteral: number;
  /** true, false, or why it could not be evaluated. */
  readonly run: (self: unknown, oldSelf: unknown) => boolean | { error: string };
}

// The standard library's functions and the parser's forms; anything else is not checkable.
const KNOWN = new Set([
  '_&&_',
  '_||_',
  '_?_:_',
  '!_',
  '@not_strictly_false',
  '_[_]',
  '@in',
  '_==_',
  '_!=_',
  '_<_',
  '_<=_',
  '_>_',
  '_>=_',
  '_+_',
  '_-_',
  '_*_',
  '_/_',
  '_%_',
  '-_',
  'size',
  'has',
  'matches',
  'contains',
  'startsWith',
  'endsWith',
  'int',
  'uint',
  'double',
  'string',
  'bool',
  'dyn',
  'type',
  'timestamp',
  'duration',
  'bytes',
]);

const ENV = celEnv({
  variables: { self: CelScalar.DYN, oldSelf: CelScalar.DYN },
  re2: {
    compile(pattern: string) {
      const js = re2ToJs(pattern);
      if (!js.ok) throw celError(`pattern ${pattern} is not checkable: ${js.error}`);
      return new RegExp(js.value, 'u');
    },
  },
});

interface Shape {
  nodes: number;
  depth: number;
  widestLiteral: number;
  unknown: string[];
  oldSelf: boolean;
}

function shapeOf(root: ParsedExpr): Shape {
  const s: Shape = { nodes: 0, depth: 0, widestLiteral: 0, unknown: [], oldSelf: false };
  const walk = (e: ParsedExpr | undefined, depth: number): void => {
    if (e === undefined) return;
    s.nodes++;
    const k = e.exprKind;
    switch (k.case) {
      case 'identExpr':
        if (k.value.name === 'oldSelf') s.oldSelf = true;
        return;
      case 'callExpr':
        if (!KNOWN.has(k.value.function)) s.unknown.push(k.value.function);
        walk(k.value.target, depth);
        for (const a of k.value.args) walk(a, depth);
        return;
      case 'comprehensionExpr': {
        const c = k.value;
        s.depth = Math.max(s.depth, depth + 1);
        walk(c.iterRange, depth);
        walk(c.accuInit, depth);
        for (const part of [c.loopCondition, c.loopStep, c.result]) walk(part, depth + 1);
        return;
      }
      case 'selectExpr':
        walk(k.value.operand, depth);
        return;
      case 'listExpr':
        s.widestLiteral = Math.max(s.widestLiteral, k.value.elements.length);
        for (const el of k.value.elements) walk(el, depth);
        return;
      case 'structExpr':
        s.widestLiteral = Math.max(s.widestLiteral, k.value.entries.length);
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
  return s;
}

/** Compiles `rule` without running it, or says why it is not checkable. */
export function compileValidationRule(rule: string, maxLength: number): Result<CompiledRule, string> {
  if (rule.length > maxLength) return err(`rule is longer than ${maxLength} characters`);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(rule);
  } catch (e) {
    return err(`rule does not compile: ${e instanceof Error ? e.message : String(e)}`);
  }
  const shape = shapeOf(parsed.expr);
  if (shape.unknown.length > 0)
    return err(`rule uses ${[...new Set(shape.unknown)].join(', ')}, outside the standard CEL library this check evaluates`);
  const program = plan(ENV, parsed);
  const run = (self: unknown, oldSelf: unknown): boolean | { error: string } => {
    let result: unknown;
    try {
      result = program({ self: self as never, oldSelf: (shape.oldSelf ? oldSelf : null) as never });
    } catch (e) {
      return { error: e instanceof Error ? e.message : String(e) };
    }
    if (typeof result === 'boolean') return result;
    const message = (result as { message?: unknown } | null)?.message;
    return { error: typeof message === 'string' ? message : 'rule did not evaluate to a boolean' };
  };
  return ok({ rule, transition: shape.oldSelf, nodes: shape.nodes, depth: shape.depth, widestLiteral: shape.widestLiteral, run });
}

/** The estimated steps of one run of `r` on a value whose widest container holds `width` entries. */
export function estimateSteps(r: CompiledRule, width: number): number {
  return r.nodes * Math.pow(Math.max(width, r.widestLiteral) + 1, r.depth);
}

/**
 * `value` as CEL input guided by `schema`: integers of `type: integer` become bigints, objects
 * maps, arrays lists. Unknown shapes keep JavaScript numbers (doubles).
 */
export function toCel(schema: { [k: string]: unknown } | undefined, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = schema?.['items'];
    const s = typeof items === 'object' && items !== null && !Array.isArray(items) ? (items as { [k: string]: unknown }) : undefined;
    return value.map((v) => toCel(s, v));
  }
  if (typeof value === 'number') {
    if (Number.isInteger(value) && (schema?.['type'] === 'integer' || schema?.['x-kubernetes-int-or-string'] === true)) return BigInt(value);
    return value;
  }
  if (typeof value === 'object' && value !== null) {
    const props = (schema?.['properties'] ?? {}) as { [k: string]: { [k: string]: unknown } };
    const ap = schema?.['additionalProperties'];
    const apSchema = typeof ap === 'object' && ap !== null ? (ap as { [k: string]: unknown }) : undefined;
    const out: { [k: string]: unknown } = {};
    for (const [k, v] of Object.entries(value)) out[k] = toCel(props[k] ?? apSchema, v);
    return out;
  }
  return value;
}
