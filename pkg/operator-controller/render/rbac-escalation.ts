/**
 * Which grants of an extension's installer RBAC amount to privilege escalation (pure), for
 * `olmv1 rbac`'s warnings and the pre-authorization message, so that an administrator reviews
 * them rather than granting whatever a bundle asks for. A grant amounts to escalation when it has:
 * - `*` anywhere in verbs, apiGroups or resources (it matches everything, also what is added
 *   later: Secrets, RBAC, `escalate`/`bind`/`impersonate`);
 * - the verbs `escalate`, `bind` or `impersonate` (they lift Kubernetes' own escalation
 *   checks, or let the holder act as someone else);
 * - any right on an object whose name starts with `system:` (the names Kubernetes' own
 *   roles, bindings and components use);
 * - a Role or RoleBinding outside the install namespace (a SingleNamespace install's watch
 *   namespace is reported too, marked expected);
 * - a binding of the bundle whose role the bundle does not ship (e.g. `cluster-admin`): rights
 *   nobody reviewed here.
 *
 * The checks are syntactic: they point at what deserves a human look.
 */
import type { KubeObject } from '../bundle/index.ts';
import { policyRules, type PolicyRule } from './rbac-for-install.ts';

/** Where the installer RBAC is meant to act. */
interface EscalationScope {
  installNamespace: string;
  /** The SingleNamespace watch namespace, when the install has one ('' or undefined: none). */
  watchNamespace?: string;
}

/** One grant that amounts to escalation: an object, the rule or reference, and why. */
export interface EscalationWarning {
  /** E.g. `ClusterRole "olmv1-installer:ns:sa:csv" rules[3] {apiGroups: ["*"], ...}`. */
  subject: string;
  /** Why it is dangerous, one or more reasons joined with "; ". */
  reason: string;
  /** True for what the install asks for by design (the watch namespace); still a warning. */
  expected: boolean;
}

/** A reason a rule is dangerous: `short` for compact lists, `long` for a warning line. */
interface RuleDanger {
  short: string;
  long: string;
}

/** A binding of the bundle whose role the bundle does not ship. */
interface ForeignRoleBinding {
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  /** '' for a ClusterRoleBinding. */
  namespace: string;
  name: string;
  roleKind: string;
  roleName: string;
}

const DANGEROUS_VERBS: Readonly<Record<string, string>> = {
  escalate: 'lets the holder create and change roles with rights it does not hold',
  bind: 'lets the holder bind roles with rights it does not hold',
  impersonate: 'lets the holder act as other users, groups or ServiceAccounts',
};
const SYSTEM_PREFIX = 'system:';
const MAX_LIST_ITEMS = 8;
const MAX_STRING_CHARS = 80;

/**
 * The warnings for `installer` (the objects `computeInstallRbac` prints) given `bundle` (the
 * rendered objects they were computed from), one per dangerous rule, per Role/RoleBinding
 * namespace outside the install namespace, and per binding of a role the bundle does not ship.
 * Order: installer objects as given (rules in order), then the bundle's bindings as given.
 */
export function rbacEscalationWarnings(installer: readonly KubeObject[], bundle: readonly KubeObject[], scope: EscalationScope): EscalationWarning[] {
  const out: EscalationWarning[] = [];
  const outside = new Map<string, string[]>(); // "<namespace>\0<name>" -> kinds (Role, RoleBinding)
  for (const obj of installer) {
    const kind = obj.kind;
    const name = obj.metadata?.name ?? '';
    const ns = obj.metadata?.namespace ?? '';
    if ((kind === 'Role' || kind === 'RoleBinding') && ns !== scope.installNamespace) {
      const key = `${ns}\0${name}`;
      outside.set(key, [...(outside.get(key) ?? []), kind]);
    }
    if (kind !== 'Role' && kind !== 'ClusterRole') continue;
    for (const [i, rule] of policyRules(obj['rules']).entries()) {
      const dangers = ruleDangers(rule);
      if (dangers.length === 0) continue;
      const where = kind === 'Role' ? ` in namespace ${quote(ns)}` : '';
      const origin = originOf(rule, kind, ns, bundle);
      out.push({
        subject: `${kind} ${quote(name)}${where} rules[${i}] ${ruleText(rule)}${origin}`,
        reason: dangers.map((d) => d.long).join('; '),
        expected: false,
      });
    }
  }
  for (const [key, kinds] of outside) {
    const [ns, name] = key.split('\0') as [string, string];
    const standing = namespaceStanding(ns, scope);
    const grant = kinds.length === 1 ? 'grants' : 'grant';
    const base = `${grant} rights outside the install namespace ${quote(scope.installNamespace)}`;
    out.push({
      subject: `${kinds.join(' and ')} ${quote(name)} in namespace ${quote(ns)}`,
      reason:
        standing === 'watch'
          ? `${base}; expected: ${quote(ns)} is the watch namespace, where the bundle's permissions apply`
          : `${base}, in a namespace that is not the watch namespace either`,
      expected: standing === 'watch',
    });
  }
  for (const b of foreignRoleBindings(bundle)) {
    const where = b.namespace === '' ? '' : ` in namespace ${quote(b.namespace)}`;
    out.push({
      subject: `${b.kind} ${quote(b.name)}${where} roleRef ${b.roleKind} ${quote(b.roleName)}`,
      reason: `binds a role the bundle does not ship: the extension gets every right of that role (not reviewed here), and the ServiceAccount must hold them all (or "bind" on it) to create the binding`,
      expected: false,
    });
  }
  return out;
}

/** The one-line text of a warning (without the `warning: ` prefix). */
export function formatEscalationWarning(w: EscalationWarning): string {
  return `${w.subject}: ${w.reason}`;
}

/**
 * Why `rule` amounts to escalation, by itself (no scope): `*` in verbs, apiGroups or
 * resources, the verbs escalate/bind/impersonate, names starting with `system:`. Empty when
 * none applies. Used for the rules the installer is granted and for missing permissions.
 */
export function ruleDangers(rule: PolicyRule): RuleDanger[] {
  const out: RuleDanger[] = [];
  const fields = (['verbs', 'apiGroups', 'resources'] as const).filter((f) => (rule[f] ?? []).some((v) => v.includes('*')));
  if (fields.length > 0) {
    const what: string[] = [];
    if (fields.includes('verbs')) what.push('every verb (escalate, bind and impersonate included)');
    if (fields.includes('apiGroups')) what.push('every API group');
    if (fields.includes('resources')) what.push('every resource (Secrets and RBAC included)');
    out.push({
      short: `"*" in ${fields.join(', ')}`,
      long: `"*" in ${fields.join(', ')} matches ${what.join(', ')}, and whatever is added later`,
    });
  }
  if (!rule.verbs.includes('*')) {
    for (const verb of Object.keys(DANGEROUS_VERBS)) {
      if (rule.verbs.includes(verb)) out.push({ short: `verb ${verb}`, long: `verb ${quote(verb)} ${DANGEROUS_VERBS[verb] ?? ''}` });
    }
  }
  const system = (rule.resourceNames ?? []).filter((n) => n.startsWith(SYSTEM_PREFIX));
  if (system.length > 0) {
    out.push({
      short: `name ${listText(system)}`,
      long: `rights on ${listText(system)}, named "system:..." like the roles, bindings and identities Kubernetes itself relies on (e.g. system:basic-user is bound to every authenticated user)`,
    });
  }
  return out;
}

/** Whether a namespace is the install namespace, cluster scope (''), the watch namespace, or other. */
function namespaceStanding(namespace: string, scope: EscalationScope): 'install' | 'cluster' | 'watch' | 'other' {
  if (namespace === scope.installNamespace) return 'install';
  if (namespace === '') return 'cluster';
  if (scope.watchNamespace !== undefined && scope.watchNamespace !== '' && namespace === scope.watchNamespace) return 'watch';
  return 'other';
}

/**
 * The bindings among `objects` whose `roleRef` names a role not among them: a ClusterRole by
 * name, a Role by namespace and name (a binding without namespace is taken as being where a
 * Role without namespace is, as rendering puts both in the install namespace).
 */
export function foreignRoleBindings(objects: readonly KubeObject[]): ForeignRoleBinding[] {
  const roles = new Set<string>();
  for (const obj of objects) {
    if (obj.kind === 'ClusterRole') roles.add(`ClusterRole\0\0${obj.metadata?.name ?? ''}`);
    if (obj.kind === 'Role') roles.add(`Role\0${obj.metadata?.namespace ?? ''}\0${obj.metadata?.name ?? ''}`);
  }
  const out: ForeignRoleBinding[] = [];
  for (const obj of objects) {
    if (obj.kind !== 'RoleBinding' && obj.kind !== 'ClusterRoleBinding') continue;
    const ref = (obj['roleRef'] ?? {}) as { kind?: unknown; name?: unknown };
    const roleKind = typeof ref.kind === 'string' ? ref.kind : '';
    const roleName = typeof ref.name === 'string' ? ref.name : '';
    const namespace = obj.kind === 'RoleBinding' ? (obj.metadata?.namespace ?? '') : '';
    const key = roleKind === 'Role' ? `Role\0${namespace}\0${roleName}` : `ClusterRole\0\0${roleName}`;
    if ((roleKind === 'ClusterRole' || roleKind === 'Role') && roles.has(key)) continue;
    out.push({ kind: obj.kind, namespace, name: obj.metadata?.name ?? '', roleKind, roleName });
  }
  return out;
}

/** A rule as a one-line YAML flow mapping, long lists and strings shortened. */
export function ruleText(rule: PolicyRule): string {
  const parts: string[] = [];
  for (const field of ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs', 'verbs'] as const) {
    const list = rule[field];
    if (list !== undefined && list.length > 0) parts.push(`${field}: ${listText(list)}`);
  }
  return `{${parts.join(', ')}}`;
}

/** A list as a YAML flow sequence of quoted strings, at most MAX_LIST_ITEMS shown. */
function listText(list: readonly string[]): string {
  const shown = list.slice(0, MAX_LIST_ITEMS).map(quote);
  if (list.length > MAX_LIST_ITEMS) shown.push(`... ${list.length - MAX_LIST_ITEMS} more`);
  return `[${shown.join(', ')}]`;
}

/** A JSON-quoted string (control characters escaped), shortened to MAX_STRING_CHARS. */
function quote(s: string): string {
  return JSON.stringify(s.length > MAX_STRING_CHARS ? `${s.slice(0, MAX_STRING_CHARS)}...` : s);
}

/**
 * ` (from the bundle's ClusterRole "x")` when an equal rule is one of the bundle's roles in the
 * same scope (the installer holds their rules to be allowed to create them), else ''.
 */
function originOf(rule: PolicyRule, kind: string, ns: string, bundle: readonly KubeObject[]): string {
  for (const obj of bundle) {
    if (obj.kind !== kind || (kind === 'Role' && (obj.metadata?.namespace ?? '') !== ns)) continue;
    if (policyRules(obj['rules']).some((r) => sameRule(r, rule))) return ` (from the bundle's ${kind} ${quote(obj.metadata?.name ?? '')})`;
  }
  return '';
}

function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  const fields = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;
  return fields.every((f) => JSON.stringify(a[f] ?? []) === JSON.stringify(b[f] ?? []));
}
