/**
 * The resolver's dependency check (pkg/operator-controller/resolve `ResolveInput.dependencies`)
 * over a fixed view of the cluster: which bundles' requirements are met, and for those passed
 * over, which requirement was not (for the providers the caller looks up afterwards); and
 * never breaking a dependent: whether replacing an installed bundle leaves another installed
 * extension with a requirement that was met before and is not after (OLM's "deprecating a
 * depended-on API" and version-range cases).
 */
import type { Bundle } from '../../shared/fbc/types.ts';
import { checkRequirements } from './evaluate.ts';
import type { DependencyLimits } from './limits.ts';
import { invalidDependency, unmetDependency } from './messages.ts';
import { kubeVersionUnmet } from './kube-version.ts';
import { RequirementCache } from './requirements.ts';
import type { Candidate, Requirement, Unmet } from './types.ts';

/** A dependency check and what it found. */
interface DependencyChecker {
  /** undefined when `bundle`'s requirements are met, else the reason (the resolver's error text). */
  readonly check: (bundle: Bundle) => string | undefined;
  /** The unmet requirement of each bundle refused so far, by the reason text (malformed ones have none). */
  readonly unmet: ReadonlyMap<string, Unmet>;
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
  const check = (bundle: Bundle): string | undefined => {
    const tooOld = serverVersion === undefined ? undefined : kubeVersionUnmet(bundle, serverVersion);
    if (tooOld !== undefined) return tooOld;
    const reqs = cache.requirements(bundle, limits);
    if (!reqs.ok) return invalidDependency(reqs.error);
    const verdict = checkRequirements(reqs.value, candidates);
    if (verdict.satisfied) return undefined;
    const reason = unmetDependency(bundle.name, verdict.unmet);
    unmet.set(reason, verdict.unmet);
    return reason;
  };
  return { check, unmet };
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
  for (const d of dependents) {
    if (d.requirements.length === 0) continue;
    const now = checkRequirements(d.requirements, after);
    if (now.satisfied) continue;
    // Only a requirement the change breaks: met before it.
    if (!checkRequirements([now.unmet.requirement], before).satisfied) continue;
    return { dependent: d.name, unmet: now.unmet };
  }
  return undefined;
}
