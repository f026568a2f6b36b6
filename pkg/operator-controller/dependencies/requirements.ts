/**
 * Reads what a bundle requires from its properties: `olm.package.required`
 * `{packageName, versionRange}`, `olm.gvk.required` `{group, version, kind}` and
 * `olm.constraint` `{failureMessage?, <one of package | gvk | cel | all | any | not>}`,
 * compounds holding `{constraints: [...]}` nested to a bounded depth. Values are checked with
 * zod here, at the edge, and bounded (limits.ts); a malformed one is an error text naming
 * the bundle and the property.
 */
import { z } from 'zod';
import { err, ok, type Result } from '../../shared/errors/index.ts';
import type { Bundle, JsonValue } from '../../shared/fbc/types.ts';
import { utf8Length } from '../../gocompat/gotext/index.ts';
import { parseBlangRange } from '../../shared/semver/index.ts';
import { compileRule } from './cel.ts';
import { RuleCache } from './rule-cache.ts';
import type { DependencyLimits } from './limits.ts';
import { parseTolerant } from '../../shared/semver/index.ts';
import type { Constraint, Predicate, Requirement } from './types.ts';

/** Bundle property types that declare requirements. */
export const REQUIREMENT_PROPERTY_TYPES: readonly string[] = ['olm.package.required', 'olm.gvk.required', 'olm.constraint'];

const GvkValue = z.object({ group: z.string(), version: z.string().min(1), kind: z.string().min(1) });
const PackageValue = z.object({ packageName: z.string().min(1), versionRange: z.string() });

// Inside olm.constraint unknown fields are refused, as OLM's decoder does.
const StrictGvk = z.strictObject(GvkValue.shape);
const StrictPackage = z.strictObject(PackageValue.shape);
const Compound = z.strictObject({ constraints: z.array(z.unknown()) });
const ConstraintValue = z.strictObject({
  failureMessage: z.string().optional(),
  package: StrictPackage.optional(),
  gvk: StrictGvk.optional(),
  cel: z.strictObject({ rule: z.string() }).optional(),
  all: Compound.optional(),
  any: Compound.optional(),
  not: Compound.optional(),
  /** Deprecated spelling of `not`; ignored when `not` is there too (OLM's rule). */
  none: Compound.optional(),
});
type ConstraintValue = z.infer<typeof ConstraintValue>;

const KINDS = ['package', 'gvk', 'cel', 'all', 'any', 'not'] as const;

function issues(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

function packagePredicate(packageName: string, versionRange: string): Result<Predicate, string> {
  const range = parseBlangRange(versionRange);
  if (!range.ok) return err(`versionRange ${JSON.stringify(versionRange)} is invalid: ${range.error}`);
  if (range.value.hasEmptyGroup) return err(`versionRange ${JSON.stringify(versionRange)} has an empty alternative`);
  const r = range.value;
  const contains = (version: string): boolean => {
    const v = parseTolerant(version);
    return v.ok && r.contains(v.value);
  };
  return ok({ kind: 'package', packageName, versionRange, contains });
}

interface Walk {
  readonly limits: DependencyLimits;
  readonly rules: RuleCache | undefined;
  nodes: number;
}

function parseConstraint(raw: unknown, depth: number, walk: Walk, path: string): Result<Constraint, string> {
  if (++walk.nodes > walk.limits.maxNodes) return err(`more than ${walk.limits.maxNodes} constraints`);
  if (depth > walk.limits.maxDepth) return err(`${path}: compound constraints nested deeper than ${walk.limits.maxDepth}`);
  const parsed = ConstraintValue.safeParse(raw);
  if (!parsed.success) return err(`${path}: ${issues(parsed.error)}`);
  const v: ConstraintValue =
    parsed.data.not === undefined && parsed.data.none !== undefined ? { ...parsed.data, not: parsed.data.none } : parsed.data;
  const set = KINDS.filter((k) => v[k] !== undefined);
  if (set.length !== 1)
    return err(`${path}: a constraint has exactly one of ${KINDS.join(', ')}; found ${set.length === 0 ? 'none' : set.join(', ')}`);
  const failureMessage = v.failureMessage;
  const done = (predicate: Predicate): Result<Constraint, string> => ok({ predicate, ...(failureMessage === undefined ? {} : { failureMessage }) });
  if (v.package !== undefined) {
    const p = packagePredicate(v.package.packageName, v.package.versionRange);
    return p.ok ? done(p.value) : err(`${path}.package: ${p.error}`);
  }
  if (v.gvk !== undefined) return done({ kind: 'gvk', gvk: v.gvk });
  if (v.cel !== undefined) {
    const rule = walk.rules === undefined ? compileRule(v.cel.rule, walk.limits) : walk.rules.compile(v.cel.rule, walk.limits);
    return rule.ok ? done({ kind: 'cel', rule: rule.value }) : err(`${path}.cel: ${rule.error}`);
  }
  const kind = v.all !== undefined ? 'all' : v.any !== undefined ? 'any' : 'not';
  const items = v[kind]?.constraints ?? [];
  if (items.length === 0) return err(`${path}.${kind}: constraints is empty`);
  const constraints: Constraint[] = [];
  for (const [i, item] of items.entries()) {
    const c = parseConstraint(item, depth + 1, walk, `${path}.${kind}.constraints[${i}]`);
    if (!c.ok) return c;
    constraints.push(c.value);
  }
  return done({ kind, constraints });
}

function parseValue(type: string, value: JsonValue, limits: DependencyLimits, rules: RuleCache | undefined): Result<Constraint, string> {
  if (type === 'olm.package.required') {
    const v = PackageValue.safeParse(value);
    if (!v.success) return err(issues(v.error));
    const p = packagePredicate(v.data.packageName, v.data.versionRange);
    return p.ok ? ok({ predicate: p.value }) : p;
  }
  if (type === 'olm.gvk.required') {
    const v = GvkValue.safeParse(value);
    return v.success ? ok({ predicate: { kind: 'gvk', gvk: v.data } }) : err(issues(v.error));
  }
  const size = utf8Length(JSON.stringify(value) ?? '');
  if (size > limits.maxValueBytes) return err(`olm.constraint value is greater than max constraint size ${limits.maxValueBytes} bytes`);
  return parseConstraint(value, 0, { limits, rules, nodes: 0 }, 'value');
}

/**
 * The requirements `bundle` declares, in property order, or the first malformed one as
 * `bundle "<name>": property <type> #<index>: <what is wrong>`; CEL rules from `rules` when given.
 */
export function bundleRequirements(
  bundle: Pick<Bundle, 'name' | 'properties'>,
  limits: DependencyLimits,
  rules?: RuleCache,
): Result<Requirement[], string> {
  const out: Requirement[] = [];
  for (const [index, p] of bundle.properties.entries()) {
    if (!REQUIREMENT_PROPERTY_TYPES.includes(p.type)) continue;
    const where = `bundle ${JSON.stringify(bundle.name)}: property ${p.type} #${index}`;
    if (out.length >= limits.maxRequirements) return err(`${where}: more than ${limits.maxRequirements} requirement properties`);
    const c = parseValue(p.type, p.value, limits, rules);
    if (!c.ok) return err(`${where}: ${c.error}`);
    out.push({ property: p.type, index, constraint: c.value });
  }
  return ok(out);
}

/**
 * Parsed requirements by bundle object: catalog content is cached per digest (the same
 * objects from one resolution to the next), so each bundle's declarations are read once while
 * its catalog content lives, and each distinct CEL rule text is compiled once (RuleCache).
 */
export class RequirementCache {
  readonly #parsed = new WeakMap<Pick<Bundle, 'name' | 'properties'>, Result<Requirement[], string>>();
  /** CEL rules by text, shared by every bundle read through this cache. */
  readonly rules = new RuleCache();

  /** `bundleRequirements(bundle, limits)`, from the cache when this bundle object was read before. */
  requirements(bundle: Pick<Bundle, 'name' | 'properties'>, limits: DependencyLimits): Result<Requirement[], string> {
    let r = this.#parsed.get(bundle);
    if (r === undefined) {
      r = bundleRequirements(bundle, limits, this.rules);
      this.#parsed.set(bundle, r);
    }
    return r;
  }
}
