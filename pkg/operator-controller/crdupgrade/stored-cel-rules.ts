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
import { celShape } from '../celshape/index.ts';

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

/** Compiles `rule` without running it, or says why it is not checkable. */
export function compileValidationRule(rule: string, maxLength: number): Result<CompiledRule, string> {
  if (rule.length > maxLength) return err(`rule is longer than ${maxLength} characters`);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(rule);
  } catch (e) {
    return err(`rule does not compile: ${e instanceof Error ? e.message : String(e)}`);
  }
  const shape = celShape(parsed.expr, (fn) => KNOWN.has(fn));
  if (shape.unknown.length > 0)
    return err(`rule uses ${[...new Set(shape.unknown)].join(', ')}, outside the standard CEL library this check evaluates`);
  const program = plan(ENV, parsed);
  const run = (self: unknown, oldSelf: unknown): boolean | { error: string } => {
    let result: unknown;
    try {
      result = program({ self: self as never, oldSelf: (shape.idents.has('oldSelf') ? oldSelf : null) as never });
    } catch (e) {
      return { error: e instanceof Error ? e.message : String(e) };
    }
    if (typeof result === 'boolean') return result;
    const message = (result as { message?: unknown } | null)?.message;
    return { error: typeof message === 'string' ? message : 'rule did not evaluate to a boolean' };
  };
  return ok({ rule, transition: shape.idents.has('oldSelf'), nodes: shape.nodes, depth: shape.depth, widestLiteral: shape.widestLiteral, run });
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
