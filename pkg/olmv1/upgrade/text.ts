/**
 * An approval in words (pure), as `olmv1 upgrade approve` prints it on stdout and the console
 * shows it: the roles granted (or that would be), then the bundle approved (or that would be).
 */
import type { ApproveResult } from './approve.ts';
import type { Grant, RbacGrants } from './rbac.ts';

/** `granted Role ns/name: rule, rule` (or `would grant`). */
function grantLine(g: Grant, dryRun: boolean): string {
  return `${dryRun ? 'would grant' : 'granted'} ${g.object}${g.rules.length === 0 ? '' : `: ${g.rules.join(', ')}`}`;
}

/** The grants' lines, or that the ServiceAccount already holds every permission the bundle needs. */
function rbacLines(rbac: RbacGrants, dryRun: boolean): string[] {
  if (rbac.grants.length === 0) return [`ServiceAccount ${rbac.serviceAccount} already holds every permission ${rbac.bundle} needs`];
  return rbac.grants.map((g) => grantLine(g, dryRun));
}

/**
 * The lines of `r`: an approval's grants and the approval itself; a refusal's grants made before
 * it (its `error` is not among them).
 */
export function approvalLines(r: ApproveResult): string[] {
  if (!r.ok) return [...(r.rbac === undefined ? [] : rbacLines(r.rbac, false)), ...(r.grants ?? []).map((g) => grantLine(g, false))];
  const what = `${r.pick.bundle} (${r.pick.version}, from ${r.from.bundle} ${r.from.version}) for ClusterExtension ${r.extension}`;
  return [
    ...(r.rbac === undefined ? [] : rbacLines(r.rbac, r.dryRun)),
    r.dryRun ? `would approve ${what} (dry run: nothing changed)` : `approved ${what}: ${r.annotation}`,
  ];
}
