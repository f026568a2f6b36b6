/**
 * Never breaking a dependent: whether replacing one installed bundle by another leaves some
 * other installed extension with a requirement that was met before and is not after (OLM's
 * "deprecating a depended-on API" and version-range cases). Requirements already unmet before
 * are not the change's doing and do not hold it.
 */
import { checkRequirements } from './evaluate.ts';
import type { Candidate, Requirement, Unmet } from './types.ts';

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
