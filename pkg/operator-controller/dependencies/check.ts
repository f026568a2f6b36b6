/**
 * The resolver's dependency check (pkg/operator-controller/resolve `ResolveInput.dependencies`)
 * over a fixed view of the cluster: which bundles' requirements are met, and for those passed
 * over, which requirement was not (for the providers the caller looks up afterwards); and
 * never breaking a dependent: whether replacing an installed bundle leaves another installed
 * extension with a requirement that was met before and is not after (OLM's "deprecating a
 * depended-on API" and version-range cases).
 */
import type { Bundle } from '../../shared/fbc/types.ts';
import { CostBudget } from './budget.ts';
import { checkRequirements, resolutionBudget, satisfies } from './evaluate.ts';
import type { DependencyLimits } from './limits.ts';
import { invalidDependency, unmetDependency } from './messages.ts';
import { kubeVersionUnmet } from './kube-version.ts';
import { RequirementCache } from './requirements.ts';
import type { Candidate, Predicate, Requirement, Unmet } from './types.ts';

/** A dependency check and what it found. */
interface DependencyChecker {
  /** undefined when `bundle`'s requirements are met, else the reason (the resolver's error text). */
  readonly check: (bundle: Bundle) => string | undefined;
  /** The unmet requirement of each bundle refused so far, by the reason text (malformed ones have none). */
  readonly unmet: ReadonlyMap<string, Unmet>;
  /**
   * Evaluates the CEL rules `bundles` declare on every candidate ahead of `check`, yielding
   * (`pause`) after each chunk of estimated cost (one rule's limit) so that health probes,
   * lease renewals and other reconciles keep running; `check` then finds the verdicts cached.
   * It spends at most half the resolution's budget.
   */
  readonly prepare: (bundles: readonly Bundle[], pause?: () => Promise<void>) => Promise<void>;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function celPredicates(p: Predicate, out: Predicate[]): void {
  if (p.kind === 'cel') out.push(p);
  if (p.kind === 'all' || p.kind === 'any' || p.kind === 'not') for (const c of p.constraints) celPredicates(c.predicate, out);
}

/**
 * A checker against `candidates` (what is installed and served), with `limits` on what bundles
 * declare; `cache` keeps bundles' parsed requirements from one resolution to the next;
 * with `serverVersion`, a bundle whose CSV minKubeVersion is newer is refused too.
 */
export function dependencyChecker(
  candidates: readonly Candidate[],
  limits: DependencyLimits,
  cache = new RequirementCache(),
  serverVersion?: string,
): DependencyChecker {
  const unmet = new Map<string, Unmet>();
  // One resolution's CEL budget: prepare and check draw on it together.
  const budget = new CostBudget(limits.maxResolutionCost);
  const prepare = async (bundles: readonly Bundle[], pause = nextTurn): Promise<void> => {
    let since = budget.spent;
    // Half the budget at most: what is left is for the bundles the resolver checks.
    for (const bundle of bundles) {
      const reqs = cache.requirements(bundle, limits);
      if (!reqs.ok) continue;
      const rules: Predicate[] = [];
      for (const r of reqs.value) celPredicates(r.constraint.predicate, rules);
      for (const rule of rules) {
        for (const c of candidates) {
          if (budget.spent >= budget.limit / 2) return;
          satisfies(c.properties, rule, budget);
          if (budget.spent - since >= limits.maxRuleCost) {
            await pause();
            since = budget.spent;
          }
        }
      }
      await pause();
    }
  };
  const check = (bundle: Bundle): string | undefined => {
    const tooOld = serverVersion === undefined ? undefined : kubeVersionUnmet(bundle, serverVersion);
    if (tooOld !== undefined) return tooOld;
    const reqs = cache.requirements(bundle, limits);
    if (!reqs.ok) return invalidDependency(reqs.error);
    const verdict = checkRequirements(reqs.value, candidates, budget);
    if (verdict.satisfied) return undefined;
    const reason = unmetDependency(bundle.name, verdict.unmet);
    unmet.set(reason, verdict.unmet);
    return reason;
  };
  return { check, unmet, prepare };
}

/** An installed extension with the requirements its bundle declares. */
export interface Dependent {
  readonly name: string;
  readonly requirements: readonly Requirement[];
}

/** The first dependent (in the order given) the change from `before` to `after` breaks, with its requirement. */
export function brokenDependent(
  dependents: readonly Dependent[],
  before: readonly Candidate[],
  after: readonly Candidate[],
): { dependent: string; unmet: Unmet } | undefined {
  const budget = resolutionBudget();
  for (const d of dependents) {
    if (d.requirements.length === 0) continue;
    const now = checkRequirements(d.requirements, after, budget);
    if (now.satisfied) continue;
    // Only a requirement the change breaks: met before it.
    if (!checkRequirements([now.unmet.requirement], before, budget).satisfied) continue;
    return { dependent: d.name, unmet: now.unmet };
  }
  return undefined;
}
