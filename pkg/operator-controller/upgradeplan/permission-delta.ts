/**
 * The permission delta of an upgrade (pure): the RBAC grants the Roles and ClusterRoles of one
 * release give and the other's do not, compared as single grants (the atoms of the applier's
 * pre-authorization), so moving, splitting or renaming rules is no change. Wildcards, rules
 * without resourceNames and ClusterRoles cover what Kubernetes' authorizer says they cover;
 * non-resource URLs in a Role grant nothing. Malformed input is skipped. The work is bounded
 * (MAX_ATOMS, MAX_SCAN_RULES, MAX_CHANGES); `incomplete` says when a limit was reached.
 */
import { atomKey, atomsOfRule, groupMissing, ruleCovers, type Atom } from '../applier/index.ts';
import type { KubeObject } from '../bundle/index.ts';
import { policyRules, ruleDangers, ruleText, type PolicyRule } from '../render/index.ts';

/** One grant (or compacted group of grants) one side has and the other has not. */
export interface PermissionChange {
  /** 'cluster' for ClusterRole rules, else the namespace of the Role. */
  scope: string;
  /** Kind/name of the role granting it, e.g. 'ClusterRole foo-abc123'. */
  role: string;
  /** The rule as render's ruleText prints it (one atom or a compacted rule). */
  rule: string;
  /** The rule amounts to privilege escalation (render's ruleDangers non-empty). */
  escalates: boolean;
  /** A short form for one-line messages: `create,delete apps/deployments`, `get /healthz`. */
  summary: string;
}

/** What `after` grants that `before` does not (gained), and the reverse (lost). */
export interface PermissionDelta {
  gained: PermissionChange[];
  lost: PermissionChange[];
  /** True when a bound (MAX_ATOMS, MAX_SCAN_RULES, MAX_CHANGES) was reached: the lists may over-report or be cut. */
  incomplete?: boolean;
}

const MAX_ATOMS = 20_000;
const MAX_SCAN_RULES = 2_000;
const MAX_CHANGES = 500;
const CLUSTER = 'cluster';

/** The rules of one Role ('' namespace for a ClusterRole). */
interface RoleRules {
  namespace: string;
  role: string;
  rules: PolicyRule[];
}

/** One side, indexed for coverage checks. */
interface Held {
  exact: Set<string>;
  /** Rules checked with ruleCovers: those with wildcards, and rules too large to expand. */
  scan: { namespace: string; rule: PolicyRule }[];
  /** Canonical texts (`<namespace>\0<rule JSON>`) of every rule, for whole-rule comparison. */
  whole: Set<string>;
  incomplete: boolean;
}

/** RBAC rules (Role/ClusterRole objects) granted by `after` and not by `before`, and the reverse. */
export function permissionDelta(before: readonly KubeObject[], after: readonly KubeObject[]): PermissionDelta {
  const b = rolesOf(before);
  const a = rolesOf(after);
  const gained = missingFrom(a, held(b));
  const lost = missingFrom(b, held(a));
  const incomplete = gained.incomplete || lost.incomplete;
  return { gained: gained.changes, lost: lost.changes, ...(incomplete ? { incomplete } : {}) };
}

function rolesOf(objects: readonly unknown[]): RoleRules[] {
  const out: RoleRules[] = [];
  for (const obj of Array.isArray(objects) ? objects : []) {
    if (typeof obj !== 'object' || obj === null) continue;
    const o = obj as { kind?: unknown; metadata?: unknown; rules?: unknown };
    if (o.kind !== 'Role' && o.kind !== 'ClusterRole') continue;
    const meta = (typeof o.metadata === 'object' && o.metadata !== null ? o.metadata : {}) as { name?: unknown; namespace?: unknown };
    const name = typeof meta.name === 'string' ? meta.name : '<unnamed>';
    const namespace = o.kind === 'Role' && typeof meta.namespace === 'string' ? meta.namespace : '';
    out.push({ namespace, role: `${o.kind} ${name}`, rules: policyRules(o.rules) });
  }
  return out;
}

/** How many atoms `rule` expands to (URL atoms left out of Roles). */
function atomCount(rule: PolicyRule, namespace: string): number {
  const urls = namespace === '' ? (rule.nonResourceURLs?.length ?? 0) : 0;
  const resources = (rule.apiGroups?.length ?? 0) * (rule.resources?.length ?? 0) * Math.max(1, rule.resourceNames?.length ?? 0);
  return rule.verbs.length * (urls + resources);
}

function atomsOf(rule: PolicyRule, namespace: string): Atom[] {
  const atoms = atomsOfRule(rule, namespace);
  return namespace === '' ? atoms : atoms.filter((x) => x.url === undefined);
}

function hasWildcard(rule: PolicyRule): boolean {
  const star = (list: readonly string[] | undefined): boolean => (list ?? []).some((v) => v === '*' || v.startsWith('*/'));
  return star(rule.verbs) || star(rule.apiGroups) || star(rule.resources) || (rule.nonResourceURLs ?? []).some((u) => u.endsWith('*'));
}

function wholeKey(namespace: string, rule: PolicyRule): string {
  return `${namespace}\0${JSON.stringify([rule.verbs, rule.apiGroups, rule.resources, rule.resourceNames, rule.nonResourceURLs])}`;
}

function held(roles: readonly RoleRules[]): Held {
  const h: Held = { exact: new Set(), scan: [], whole: new Set(), incomplete: false };
  let budget = MAX_ATOMS;
  for (const { namespace, rules } of roles) {
    for (const rule of rules) {
      h.whole.add(wholeKey(namespace, rule));
      const count = atomCount(rule, namespace);
      const expand = count <= budget;
      if (expand) {
        budget -= count;
        for (const atom of atomsOf(rule, namespace)) h.exact.add(atomKey(atom));
      }
      if (!expand || hasWildcard(rule)) {
        if (h.scan.length < MAX_SCAN_RULES) h.scan.push({ namespace, rule });
        else h.incomplete = true;
      }
    }
  }
  return h;
}

function covered(h: Held, atom: Atom): boolean {
  const namespaces = atom.namespace === '' ? [''] : [atom.namespace, ''];
  const names = atom.name === '' ? [''] : [atom.name, ''];
  for (const namespace of namespaces) {
    for (const name of names) if (h.exact.has(atomKey({ ...atom, namespace, name }))) return true;
  }
  return h.scan.some((s) => (s.namespace === '' || s.namespace === atom.namespace) && ruleCovers(s.rule, atom));
}

/** The grants of `roles` that `other` does not hold, compacted per role, in the roles' order. */
function missingFrom(roles: readonly RoleRules[], other: Held): { changes: PermissionChange[]; incomplete: boolean } {
  const changes: PermissionChange[] = [];
  const seen = new Set<string>();
  let incomplete = other.incomplete;
  let budget = MAX_ATOMS;
  const push = (c: PermissionChange): void => {
    if (changes.length < MAX_CHANGES) changes.push(c);
    else incomplete = true;
  };
  for (const { namespace, role, rules } of roles) {
    const atoms: Atom[] = [];
    for (const rule of rules) {
      const count = atomCount(rule, namespace);
      if (count > budget) {
        incomplete = true;
        const key = wholeKey(namespace, rule);
        if (!other.whole.has(key) && !other.whole.has(wholeKey('', rule)) && !seen.has(key)) {
          seen.add(key);
          push(changeOf(namespace, role, rule));
        }
        continue;
      }
      budget -= count;
      for (const atom of atomsOf(rule, namespace)) {
        const key = atomKey(atom);
        if (seen.has(key) || covered(other, atom)) continue;
        seen.add(key);
        atoms.push(atom);
      }
    }
    for (const m of groupMissing(atoms)) {
      const rule: PolicyRule =
        m.nonResourceURLs === undefined
          ? {
              apiGroups: [m.apiGroup],
              resources: [m.resource],
              ...(m.resourceNames.length > 0 ? { resourceNames: m.resourceNames } : {}),
              verbs: m.verbs,
            }
          : { nonResourceURLs: m.nonResourceURLs, verbs: m.verbs };
      push(changeOf(namespace, role, rule));
    }
  }
  return { changes, incomplete };
}

function changeOf(namespace: string, role: string, rule: PolicyRule): PermissionChange {
  return {
    scope: namespace === '' ? CLUSTER : namespace,
    role,
    rule: ruleText(rule),
    escalates: ruleDangers(rule).length > 0,
    summary: summaryOf(rule),
  };
}

const MAX_SUMMARY_ITEMS = 4;
const MAX_ITEM_CHARS = 60;

/** `verbs group/resources [names]` or `verbs urls`, lists and strings shortened. */
function summaryOf(rule: PolicyRule): string {
  const list = (items: readonly string[]): string => {
    const shown = items.slice(0, MAX_SUMMARY_ITEMS).map((s) => (s.length > MAX_ITEM_CHARS ? `${s.slice(0, MAX_ITEM_CHARS)}...` : s));
    if (items.length > MAX_SUMMARY_ITEMS) shown.push(`+${items.length - MAX_SUMMARY_ITEMS}`);
    return JSON.stringify(shown.join(',')).slice(1, -1);
  };
  const verbs = list(rule.verbs);
  if (rule.nonResourceURLs !== undefined) return `${verbs} ${list(rule.nonResourceURLs)}`;
  const groups = rule.apiGroups ?? [];
  const prefix = groups.length === 1 && groups[0] === '' ? '' : `${list(groups)}/`;
  const names = rule.resourceNames === undefined ? '' : ` ${list(rule.resourceNames)}`;
  return `${verbs} ${prefix}${list(rule.resources ?? [])}${names}`;
}

const MAX_FORMAT_ITEMS = 8;
const MAX_FORMAT_CHARS = 1_000;

/**
 * One compact line, e.g. `+2 rules (1 escalating): cluster: create apps/deployments; ...;
 * -1 rule: ...` ('' when empty). Escalating grants come first, at most MAX_FORMAT_ITEMS per
 * side are listed (`... N more`), and the line is cut at MAX_FORMAT_CHARS.
 */
export function formatPermissionDelta(d: PermissionDelta): string {
  const parts: string[] = [];
  for (const [sign, list] of [
    ['+', d.gained],
    ['-', d.lost],
  ] as const) {
    if (list.length === 0) continue;
    const escalating = list.filter((c) => c.escalates);
    const ordered = [...escalating, ...list.filter((c) => !c.escalates)];
    const count = `${sign}${list.length} rule${list.length === 1 ? '' : 's'}${escalating.length > 0 ? ` (${escalating.length} escalating)` : ''}`;
    const items = ordered.slice(0, MAX_FORMAT_ITEMS).map((c) => `${c.scope}: ${c.summary}${c.escalates ? ' (escalates)' : ''}`);
    if (ordered.length > MAX_FORMAT_ITEMS) items.push(`... ${ordered.length - MAX_FORMAT_ITEMS} more`);
    parts.push(`${count}: ${items.join('; ')}`);
  }
  if (d.incomplete === true && parts.length > 0) parts.push('(not every rule compared: too many)');
  const line = parts.join('; ');
  return line.length > MAX_FORMAT_CHARS ? `${line.slice(0, MAX_FORMAT_CHARS - 3)}...` : line;
}
