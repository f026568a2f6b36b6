/**
 * The installer RBAC as the Permissions section's table shows it (pure): one row per rule of each
 * ClusterRole and Role (its scope, role, the rule in words, and whether it amounts to privilege
 * escalation), as the upgrade plan's permissions table (plan-view.ts) shows its rules.
 */

/** The part of the objects read here: roles with their rules. */
interface RbacObject {
  kind: string;
  metadata: { name?: string; namespace?: string };
  rules?: readonly RbacRule[];
}

interface RbacRule {
  apiGroups?: readonly string[];
  resources?: readonly string[];
  resourceNames?: readonly string[];
  nonResourceURLs?: readonly string[];
  verbs?: readonly string[];
}

/** One row of the permissions table. */
interface PermissionRow {
  scope: string;
  role: string;
  rule: string;
  escalates: boolean;
}

/** `verbs resource.group, ...` (`(names: ...)` when limited), or the non-resource URLs. */
function ruleText(r: RbacRule): string {
  const verbs = (r.verbs ?? []).join(', ');
  if ((r.nonResourceURLs ?? []).length > 0) return `${verbs} ${(r.nonResourceURLs ?? []).join(', ')}`;
  const groups = (r.apiGroups ?? []).length === 0 ? [''] : (r.apiGroups ?? []);
  const resources = groups.flatMap((g) => (r.resources ?? []).map((res) => (g === '' ? res : `${res}.${g}`)));
  const names = (r.resourceNames ?? []).length === 0 ? '' : ` (names: ${(r.resourceNames ?? []).join(', ')})`;
  return `${verbs} ${resources.join(', ')}${names}`;
}

/**
 * The rules of the ClusterRoles and Roles among `objects`; a rule escalates when an escalation
 * warning's subject names it (`Kind "name" [in namespace "ns"] rules[i]`, as pkg/operator-controller/render words it).
 */
export function permissionRows(objects: readonly RbacObject[], escalations: readonly { subject: string }[]): PermissionRow[] {
  return objects
    .filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role')
    .flatMap((o) =>
      (o.rules ?? []).map((rule, i) => {
        const name = o.metadata.name ?? '';
        const where = o.kind === 'Role' ? ` in namespace ${JSON.stringify(o.metadata.namespace ?? '')}` : '';
        const subject = `${o.kind} ${JSON.stringify(name)}${where} rules[${i}] `;
        return {
          scope: o.kind === 'ClusterRole' ? 'cluster' : (o.metadata.namespace ?? ''),
          role: `${o.kind} ${name}`,
          rule: ruleText(rule),
          escalates: escalations.some((e) => e.subject.startsWith(subject)),
        };
      }),
    );
}
