/**
 * Checks a bundle's requirements against what the cluster has, as OLM classic tests its
 * entries: a requirement is met when at least one candidate (an installed extension's
 * bundle, or the APIs the cluster serves) satisfies its predicate. Compounds test one
 * candidate at a time: `all` needs one candidate satisfying every part, `any` one
 * satisfying some part, `not` one satisfying none (so `not` is useful inside `all`). Also the
 * requirements in words, for conditions, Events and the CLI (`package "blue" in range
 * ">=1.0.0"`, `API greens.example.com/v1 Green`, `all of (...)`, ...).
 */
import type { Property } from '../../shared/fbc/types.ts';
import { CostBudget } from './budget.ts';
import { DEFAULT_LIMITS } from './limits.ts';
import type { Candidate, Constraint, Gvk, Predicate, Requirement, Verdict } from './types.ts';

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

/** The GVKs a candidate's `olm.gvk` properties name. */
export function providedGvks(properties: readonly Property[]): Gvk[] {
  const out: Gvk[] = [];
  for (const p of properties) {
    if (p.type !== 'olm.gvk') continue;
    const [group, version, kind] = [field(p.value, 'group'), field(p.value, 'version'), field(p.value, 'kind')];
    if (typeof group === 'string' && typeof version === 'string' && typeof kind === 'string') out.push({ group, version, kind });
  }
  return out;
}

/** The package name and version of a candidate's `olm.package` property, when it has one. */
export function packageOf(properties: readonly Property[]): { packageName: string; version: string } | undefined {
  for (const p of properties) {
    if (p.type !== 'olm.package') continue;
    const [packageName, version] = [field(p.value, 'packageName'), field(p.value, 'version')];
    if (typeof packageName === 'string' && typeof version === 'string') return { packageName, version };
  }
  return undefined;
}

/** Whether one candidate's properties satisfy `predicate`; a CEL rule not run (too costly, budget spent) does not. */
export function satisfies(properties: readonly Property[], predicate: Predicate, budget: CostBudget): boolean {
  switch (predicate.kind) {
    case 'package': {
      const pkg = packageOf(properties);
      return pkg !== undefined && pkg.packageName === predicate.packageName && predicate.contains(pkg.version);
    }
    case 'gvk': {
      const want = predicate.gvk;
      return providedGvks(properties).some((g) => g.group === want.group && g.version === want.version && g.kind === want.kind);
    }
    case 'cel':
      return predicate.rule.test(properties, budget) === true;
    case 'all':
      return predicate.constraints.every((c) => satisfies(properties, c.predicate, budget));
    case 'any':
      return predicate.constraints.some((c) => satisfies(properties, c.predicate, budget));
    case 'not': {
      // A rule not run inside `not` cannot vouch for the candidate either: not satisfied.
      const earlier = budget.refusal;
      budget.refusal = undefined;
      const some = predicate.constraints.some((c) => satisfies(properties, c.predicate, budget));
      const refused = budget.refusal !== undefined;
      if (!refused) budget.refusal = earlier;
      return !some && !refused;
    }
  }
}

// The failureMessage to show: the constraint's own, else the first one found in its parts.
function failureMessageOf(c: Constraint): string | undefined {
  if (c.failureMessage !== undefined && c.failureMessage !== '') return c.failureMessage;
  const p = c.predicate;
  if (p.kind === 'all' || p.kind === 'any' || p.kind === 'not') {
    for (const inner of p.constraints) {
      const m = failureMessageOf(inner);
      if (m !== undefined) return m;
    }
  }
  return undefined;
}

/** A budget for one check or search: the default limits' resolution cost. */
export function resolutionBudget(): CostBudget {
  return new CostBudget(DEFAULT_LIMITS.maxResolutionCost);
}

/**
 * Checks `requirements` in order against `candidates`, CEL evaluations paid from `budget`:
 * satisfied, or the first requirement no candidate meets with its failureMessage and a
 * description (which says so when a CEL rule was not run on some candidate, naming the limit).
 */
export function checkRequirements(requirements: readonly Requirement[], candidates: readonly Candidate[], budget = resolutionBudget()): Verdict {
  for (const requirement of requirements) {
    budget.refusal = undefined;
    const met = candidates.some((c) => satisfies(c.properties, requirement.constraint.predicate, budget));
    if (met) continue;
    const refusal = budget.refusal;
    const description = describeConstraint(requirement.constraint) + (refusal === undefined ? '' : ` (${refusal})`);
    return { satisfied: false, unmet: { requirement, failureMessage: failureMessageOf(requirement.constraint), description } };
  }
  return { satisfied: true };
}

/** What is known of one installed ClusterExtension. */
interface InstalledExtension {
  readonly name: string;
  readonly packageName: string;
  readonly version: string;
  /**
   * Its bundle's properties when the bundle was found in a catalog; otherwise only the
   * package and version are known (an `olm.package` property is made of them).
   */
  readonly properties?: readonly Property[] | undefined;
}

/** The candidate an installed extension is. */
export function installedCandidate(ext: InstalledExtension): Candidate {
  const properties = ext.properties ?? [{ type: 'olm.package', value: { packageName: ext.packageName, version: ext.version } }];
  return { source: `ClusterExtension ${JSON.stringify(ext.name)}`, properties };
}

/** The candidate the cluster's served APIs are: one `olm.gvk` property each. */
export function servedApisCandidate(gvks: Iterable<Gvk>): Candidate {
  const properties: Property[] = [];
  for (const g of gvks) properties.push({ type: 'olm.gvk', value: { group: g.group, version: g.version, kind: g.kind } });
  return { source: "the cluster's served APIs", properties };
}

/** `group/version Kind`, or `version Kind` for the core group. */
function formatGvk(g: Gvk): string {
  return g.group === '' ? `${g.version} ${g.kind}` : `${g.group}/${g.version} ${g.kind}`;
}

const MAX_PARTS = 8;

/** One line describing what `c` requires; long compounds are cut after a few parts. */
export function describeConstraint(c: Constraint): string {
  const p = c.predicate;
  switch (p.kind) {
    case 'package':
      return `package ${JSON.stringify(p.packageName)} in range ${JSON.stringify(p.versionRange)}`;
    case 'gvk':
      return `API ${formatGvk(p.gvk)}`;
    case 'cel':
      return `a bundle matching CEL rule ${JSON.stringify(p.rule.rule)}`;
    default: {
      const parts = p.constraints.slice(0, MAX_PARTS).map(describeConstraint);
      if (p.constraints.length > MAX_PARTS) parts.push(`${p.constraints.length - MAX_PARTS} more`);
      const word = p.kind === 'not' ? 'none' : p.kind;
      return `${word} of (${parts.join('; ')})`;
    }
  }
}
