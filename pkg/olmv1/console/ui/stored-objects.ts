/**
 * The stored objects an upgrade plan names (decision 0129): for each CRD whose change is
 * refused, `olmv1 upgrade plan`'s stored-object lines (the verdict naming the failing objects,
 * then each object's errors), bounded so a page stays short.
 */

/** The part of a plan's JSON read here. */
export interface PlanCrds {
  changes?: { crdUpgradeSafety?: { crds?: readonly { name: string; verdict: string; storedObjects?: readonly string[] }[] } };
}

/** The lines to show, at most `max`, with a last line counting those left out. */
export function storedObjectLines(plan: PlanCrds, max = 20): string[] {
  const lines = (plan.changes?.crdUpgradeSafety?.crds ?? []).filter((c) => c.verdict === 'unsafe').flatMap((c) => c.storedObjects ?? []);
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max), `and ${lines.length - max} more lines (see olmv1 upgrade plan)`];
}
