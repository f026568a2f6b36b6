/**
 * The minimal RBAC that lets an extension's ServiceAccount install, upgrade and uninstall
 * exactly a rendered bundle under operator-controller, following the access pattern of
 * decision 0003:
 *
 * - every object: `get`, `patch`, `create` and (except CustomResourceDefinitions, which are
 *   never deleted) `delete`, restricted by `resourceNames` to the object's name;
 * - every resource: `list` and `watch` where objects of it live (namespace or cluster);
 * - the rules of every Role (in its namespace) and ClusterRole the bundle creates, because
 *   Kubernetes only lets a subject grant permissions it holds (no `escalate`/`bind`).
 *
 * Output: the ServiceAccount, a ClusterRole and binding, and per namespace (sorted) a Role and
 * binding, all named `olmv1-installer:<installNamespace>:<serviceAccount>:<bundleName>` so two
 * bundle versions' RBAC coexist during an upgrade. The pre-authorization check uses the same
 * `computeInstallRules`, so it and `olmv1 rbac` cannot drift apart.
 */
import type { KubeObject } from '../bundle/index.ts';
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { compareUtf8, goSorted } from '../../gocompat/gotext/index.ts';
import type { KindScopes } from './resource-mapping.ts';

/** Inputs of `computeInstallRbac`. */
interface InstallRbacOptions extends Omit<InstallRulesOptions, 'dropped'> {
  serviceAccountName: string;
  /** Distinguishes bundles and versions in the generated names (e.g. the CSV name). */
  bundleName: string;
}

/** The generated objects plus notes about grants that cannot be derived offline. */
interface InstallRbac {
  objects: KubeObject[];
  warnings: string[];
}

/** Inputs of `computeInstallRules`. */
interface InstallRulesOptions {
  installNamespace: string;
  mapper: KindScopes;
  /**
   * Objects of the deployed revision that the new one drops: they are DELETEd, so each one
   * but a CustomResourceDefinition (never deleted) needs `delete` on its name. `olmv1 rbac`
   * passes none: it prints one version's grants, and an upgrade runs with both versions'.
   */
  dropped?: readonly KubeObject[];
}

/** An RBAC PolicyRule (rbac.authorization.k8s.io/v1), empty lists omitted. */
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

/** The rules of one scope: a namespace, or '' for cluster-wide (a ClusterRole's rules). */
interface ScopeRules {
  namespace: string;
  rules: PolicyRule[];
}

/** What `computeInstallRules` derives: rules per scope (cluster first, then namespaces sorted). */
interface InstallRules {
  scopes: ScopeRules[];
  warnings: string[];
}

interface Scope {
  named: Map<string, Set<string>>; // "<group>\0<resource>" -> names
  deleted: Map<string, Set<string>>; // "<group>\0<resource>" -> names of dropped objects
  listWatch: Map<string, Set<string>>; // group -> resources
  extraRules: PolicyRule[];
}

const OBJECT_VERBS = ['create', 'delete', 'get', 'patch'];
const CRD_VERBS = ['create', 'get', 'patch'];
const RBAC_GROUP = 'rbac.authorization.k8s.io';
const CRD_KIND = 'CustomResourceDefinition';

/** Computes the RBAC for `objects` (rendered, e.g. by `render`); see the module comment. */
export function computeInstallRbac(objects: readonly KubeObject[], opts: InstallRbacOptions): Result<InstallRbac, string> {
  const derived = computeInstallRules(objects, { installNamespace: opts.installNamespace, mapper: opts.mapper });
  if (!derived.ok) return derived;
  const objectName = `olmv1-installer:${opts.installNamespace}:${opts.serviceAccountName}:${opts.bundleName}`;
  const subjects = [{ kind: 'ServiceAccount', name: opts.serviceAccountName, namespace: opts.installNamespace }];
  const out: KubeObject[] = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: opts.serviceAccountName, namespace: opts.installNamespace } },
  ];
  for (const { namespace: ns, rules } of derived.value.scopes) {
    const cluster = ns === '';
    const metadata = cluster ? { name: objectName } : { name: objectName, namespace: ns };
    out.push(
      { apiVersion: `${RBAC_GROUP}/v1`, kind: cluster ? 'ClusterRole' : 'Role', metadata, rules },
      {
        apiVersion: `${RBAC_GROUP}/v1`,
        kind: cluster ? 'ClusterRoleBinding' : 'RoleBinding',
        metadata,
        roleRef: { apiGroup: RBAC_GROUP, kind: cluster ? 'ClusterRole' : 'Role', name: objectName },
        subjects,
      },
    );
  }
  return ok({ objects: out, warnings: derived.value.warnings });
}

/**
 * The rules behind `computeInstallRbac`, per scope: what `olmv1 rbac` prints and what the
 * pre-authorization check asks the ServiceAccount to hold, so the two cannot disagree. The
 * cluster scope ('') is always present; a namespace appears when it holds objects. With
 * `dropped`, `delete` rules for those objects follow each scope's named-object rules.
 */
export function computeInstallRules(objects: readonly KubeObject[], opts: InstallRulesOptions): Result<InstallRules, string> {
  const scopes = new Map<string, Scope>(); // "" = cluster
  const scope = (ns: string): Scope => {
    let s = scopes.get(ns);
    if (s === undefined) {
      s = { named: new Map(), deleted: new Map(), listWatch: new Map(), extraRules: [] };
      scopes.set(ns, s);
    }
    return s;
  };
  scope('');
  const roles = new Set<string>();
  for (const obj of objects) {
    if (obj.kind === 'Role' || obj.kind === 'ClusterRole') roles.add(`${obj.kind}/${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`);
  }
  const warnings: string[] = [];
  for (const obj of objects) {
    const located = locate(obj, opts);
    if (!located.ok) return located;
    const { ns, key, group, resource, name } = located.value;
    const s = scope(ns);
    s.named.set(key, (s.named.get(key) ?? new Set()).add(name));
    s.listWatch.set(group, (s.listWatch.get(group) ?? new Set()).add(resource));
    if (obj.kind === 'Role' || obj.kind === 'ClusterRole') s.extraRules.push(...policyRules(obj['rules']));
    if (obj.kind === 'RoleBinding' || obj.kind === 'ClusterRoleBinding') {
      const ref = obj['roleRef'] as { kind?: unknown; name?: unknown } | undefined;
      const refKey = ref?.kind === 'ClusterRole' ? `ClusterRole//${String(ref.name)}` : `Role/${ns}/${String(ref?.name)}`;
      if (!roles.has(refKey)) {
        warnings.push(
          `${obj.kind} ${JSON.stringify(name)} refers to ${String(ref?.kind)} ${JSON.stringify(String(ref?.name))}, which is not part of the bundle: the ServiceAccount must also hold every permission it grants`,
        );
      }
    }
  }
  for (const obj of opts.dropped ?? []) {
    if (obj.kind === CRD_KIND) continue;
    const located = locate(obj, opts);
    if (!located.ok) return located;
    const { ns, key, name } = located.value;
    const s = scope(ns);
    s.deleted.set(key, (s.deleted.get(key) ?? new Set()).add(name));
  }
  const out: ScopeRules[] = [];
  for (const ns of goSorted(scopes.keys())) out.push({ namespace: ns, rules: rulesFor(scopes.get(ns) as Scope) });
  return ok({ scopes: out, warnings });
}

/** Where an object lives and what it is, for the rules naming it. */
function locate(
  obj: KubeObject,
  opts: InstallRulesOptions,
): Result<{ ns: string; key: string; group: string; resource: string; name: string }, string> {
  const mapping = opts.mapper(obj.apiVersion, obj.kind);
  const name = obj.metadata?.name;
  if (mapping === undefined) {
    return err(
      `cannot determine the API resource of ${obj.kind} ${JSON.stringify(name ?? '')} (apiVersion ${JSON.stringify(obj.apiVersion)}): it is neither a built-in kind nor defined by a CustomResourceDefinition of the bundle`,
    );
  }
  if (typeof name !== 'string' || name === '') return err(`${obj.kind} object without a name cannot be authorized by name`);
  const ns = mapping.namespaced ? (nonEmpty(obj.metadata?.namespace) ?? opts.installNamespace) : '';
  return ok({ ns, key: `${mapping.group}\0${mapping.resource}`, group: mapping.group, resource: mapping.resource, name });
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function rulesFor(s: Scope): PolicyRule[] {
  const rules: PolicyRule[] = [];
  const keys = [...s.named.keys()].sort(compareUtf8);
  for (const key of keys) {
    const [group, resource] = key.split('\0') as [string, string];
    const verbs = group === 'apiextensions.k8s.io' && resource === 'customresourcedefinitions' ? CRD_VERBS : OBJECT_VERBS;
    rules.push({ apiGroups: [group], resources: [resource], resourceNames: goSorted(s.named.get(key) ?? []), verbs });
  }
  for (const key of [...s.deleted.keys()].sort(compareUtf8)) {
    const [group, resource] = key.split('\0') as [string, string];
    rules.push({ apiGroups: [group], resources: [resource], resourceNames: goSorted(s.deleted.get(key) ?? []), verbs: ['delete'] });
  }
  for (const group of goSorted(s.listWatch.keys())) {
    rules.push({ apiGroups: [group], resources: goSorted(s.listWatch.get(group) ?? []), verbs: ['list', 'watch'] });
  }
  const seen = new Set<string>();
  for (const rule of s.extraRules) {
    const text = JSON.stringify(rule);
    if (seen.has(text)) continue;
    seen.add(text);
    rules.push(rule);
  }
  return rules;
}

/** The rules of an unstructured Role or ClusterRole (`rules`), string lists only, empty lists omitted. */
export function policyRules(rules: unknown): PolicyRule[] {
  if (!Array.isArray(rules)) return [];
  return rules
    .filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null)
    .map((r) => {
      const rule: PolicyRule = { verbs: strings(r['verbs']) };
      for (const field of ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const) {
        const list = strings(r[field]);
        if (list.length > 0) rule[field] = list;
      }
      return rule;
    });
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
