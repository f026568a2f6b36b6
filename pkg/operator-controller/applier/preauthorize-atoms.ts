/**
 * The pure half of the pre-authorization check: RBAC rules broken into single permissions
 * ("atoms"), whether a held rule covers an atom, and missing atoms grouped back into the
 * compact `MissingPermission`s the message lists.
 *
 * Coverage follows Kubernetes' RBAC semantics, which are the same for authorising a request
 * and for the escalation check on creating a role (`Covers` in the API server) once a
 * wanted rule is split into atoms:
 * - verbs, API groups and resources: the held `*` matches anything; a wanted `*` is matched
 *   only by a held `*`;
 * - subresources: a held resource `*` followed by `/scale` matches the `scale` subresource of
 *   every resource;
 * - resourceNames: a held rule without names matches every name; a wanted atom without a name
 *   (list, watch, a bundle rule without names) is matched only by a rule without names;
 * - nonResourceURLs: equal, or the held URL ends in `*` and is a prefix of the wanted one.
 */
import { compareUtf8, goSorted } from '../../gocompat/gotext/index.ts';
import type { PolicyRule } from '../render/index.ts';

/** One permission: a verb on a resource (optionally one name) in a scope, or a verb on a URL. */
export interface Atom {
  /** '' for cluster-wide (cluster-scoped resources, all namespaces, non-resource URLs). */
  namespace: string;
  verb: string;
  /** API group ('' for core), resource (`pods` or `pods/log`) and name ('' for none). */
  group: string;
  resource: string;
  name: string;
  /** Set for non-resource URLs; group, resource and name are '' then. */
  url?: string;
}

/** A group of missing atoms: one resource (or a set of URLs) in one scope, with names and verbs. */
export interface MissingPermission {
  namespace: string;
  apiGroup: string;
  resource: string;
  resourceNames: string[];
  verbs: string[];
  nonResourceURLs?: string[];
}

/** A stable identity of an atom, for de-duplication. */
export function atomKey(a: Atom): string {
  return JSON.stringify([a.namespace, a.verb, a.group, a.resource, a.name, a.url ?? null]);
}

/**
 * The atoms of `rule` in `namespace`. URL atoms are always cluster-wide: only ClusterRoles
 * can grant non-resource URLs.
 */
export function atomsOfRule(rule: PolicyRule, namespace: string): Atom[] {
  const out: Atom[] = [];
  for (const verb of rule.verbs) {
    for (const url of rule.nonResourceURLs ?? []) out.push({ namespace: '', verb, group: '', resource: '', name: '', url });
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        for (const name of rule.resourceNames ?? ['']) out.push({ namespace, verb, group, resource, name });
      }
    }
  }
  return out;
}

/** The atoms of every rule, each once, in first-seen order. */
export function uniqueAtoms(scopes: readonly { namespace: string; rules: readonly PolicyRule[] }[]): Atom[] {
  const seen = new Map<string, Atom>();
  for (const { namespace, rules } of scopes) {
    for (const rule of rules) {
      for (const atom of atomsOfRule(rule, namespace)) if (!seen.has(atomKey(atom))) seen.set(atomKey(atom), atom);
    }
  }
  return [...seen.values()];
}

function matches(held: readonly string[] | undefined, want: string): boolean {
  return held !== undefined && (held.includes('*') || held.includes(want));
}

function resourceMatches(held: readonly string[] | undefined, want: string): boolean {
  if (matches(held, want)) return true;
  const slash = want.indexOf('/');
  return slash !== -1 && held !== undefined && held.includes(`*${want.slice(slash)}`);
}

function urlMatches(held: readonly string[] | undefined, want: string): boolean {
  return (held ?? []).some((h) => h === want || h === '*' || (h.endsWith('*') && want.startsWith(h.slice(0, -1))));
}

/** True when the held `rule` grants `atom` (the rule's scope is the caller's concern). */
export function ruleCovers(rule: PolicyRule, atom: Atom): boolean {
  if (!matches(rule.verbs, atom.verb)) return false;
  if (atom.url !== undefined) return urlMatches(rule.nonResourceURLs, atom.url);
  if (!matches(rule.apiGroups, atom.group) || !resourceMatches(rule.resources, atom.resource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (atom.name !== '' && names.includes(atom.name));
}

function verbsOf(verbs: Iterable<string>): string[] {
  const list = goSorted(new Set(verbs));
  return list.includes('*') ? ['*'] : list;
}

/** Groups `atoms` by `keyOf`, then inverts each group's verbs into `verbs -> keys` (verbs normalised by `verbsOf`). */
function byVerbs(atoms: readonly Atom[], keyOf: (a: Atom) => string): [string[], string[]][] {
  const byKey = Map.groupBy(atoms, keyOf);
  const byList = Map.groupBy(byKey, ([, group]) => JSON.stringify(verbsOf(group.map((a) => a.verb))));
  return [...byList].map(([list, keys]) => [JSON.parse(list) as string[], keys.map(([key]) => key)]);
}

/**
 * Groups missing atoms: per scope, API group and resource, the atoms without a name form
 * one entry and the names with the same verbs another; URLs with the same verbs form one
 * entry. Verbs are de-duplicated and sorted (`*` alone when present); entries are sorted.
 */
export function groupMissing(atoms: readonly Atom[]): MissingPermission[] {
  const out: MissingPermission[] = [];
  const byResource = Map.groupBy(
    atoms.filter((a) => a.url === undefined),
    (a) => [a.namespace, a.group, a.resource].join('\0'),
  );
  for (const [key, resourceAtoms] of byResource) {
    const [namespace, apiGroup, resource] = key.split('\0') as [string, string, string];
    for (const [verbs, list] of byVerbs(resourceAtoms, (a) => a.name)) {
      if (list.includes('')) out.push({ namespace, apiGroup, resource, resourceNames: [], verbs });
      const named = list.filter((n) => n !== '');
      if (named.length > 0) out.push({ namespace, apiGroup, resource, resourceNames: goSorted(named), verbs });
    }
  }
  const urlAtoms = atoms.filter((a) => a.url !== undefined);
  for (const [verbs, urls] of byVerbs(urlAtoms, (a) => a.url ?? '')) {
    out.push({ namespace: '', apiGroup: '', resource: '', resourceNames: [], verbs, nonResourceURLs: goSorted(urls) });
  }
  return out.sort(compareMissing);
}

/** Scope, group, resource, URLs, names, verbs: the order of the message's lines. */
function compareMissing(a: MissingPermission, b: MissingPermission): number {
  const fields = (m: MissingPermission): string[] => [
    m.namespace,
    m.apiGroup,
    m.resource,
    (m.nonResourceURLs ?? []).join(','),
    m.resourceNames.join(','),
    m.verbs.join(','),
  ];
  const fa = fields(a);
  const fb = fields(b);
  for (let i = 0; i < fa.length; i++) {
    const c = compareUtf8(fa[i] as string, fb[i] as string);
    if (c !== 0) return c;
  }
  return 0;
}
