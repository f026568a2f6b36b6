/**
 * Generators for the operator's own identity and RBAC (upstream
 * `BundleCSVServiceAccountGenerator`, `...PermissionsGenerator`,
 * `...ClusterPermissionsGenerator`):
 *
 * - one ServiceAccount per distinct service account named by `permissions` and
 *   `clusterPermissions` (except `default`), in the install namespace;
 * - per target namespace and `permissions` entry, a Role and RoleBinding (skipped when the
 *   targets are all namespaces);
 * - per `clusterPermissions` entry a ClusterRole and ClusterRoleBinding; in AllNamespaces
 *   mode every `permissions` entry is promoted to one, with an extra rule to get, list and
 *   watch namespaces.
 *
 * Role names are the hashed names of naming.ts.
 */
import type { KubeObject, PolicyRule, RegistryV1Bundle, StrategyPermission } from '../bundle/index.ts';
import { clusterPermissions, csvName, permissions, saNameOrDefault } from './csv-access.ts';
import { permissionObjectName } from './naming.ts';

const RBAC_API_VERSION = 'rbac.authorization.k8s.io/v1';
const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** True when the targets mean "all namespaces" (exactly `[""]`). */
function isAllNamespaces(targets: readonly string[]): boolean {
  return targets.length === 1 && targets[0] === '';
}

/** ServiceAccounts for the CSV's permissions. */
export function generateServiceAccounts(bundle: RegistryV1Bundle, installNamespace: string): KubeObject[] {
  const names = new Set([...permissions(bundle.csv), ...clusterPermissions(bundle.csv)].map(saNameOrDefault));
  names.delete('default');
  return [...names].map((name) => ({
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name, namespace: installNamespace },
  }));
}

/** Roles and RoleBindings for `permissions` in every target namespace. */
export function generateRoles(bundle: RegistryV1Bundle, installNamespace: string, targets: readonly string[]): KubeObject[] {
  if (isAllNamespaces(targets)) return [];
  const out: KubeObject[] = [];
  for (const namespace of targets) {
    for (const permission of permissions(bundle.csv)) {
      const sa = saNameOrDefault(permission);
      const name = permissionObjectName(csvName(bundle.csv), sa, permission);
      out.push(
        { apiVersion: RBAC_API_VERSION, kind: 'Role', metadata: { name, namespace }, rules: rulesOf(permission) },
        {
          apiVersion: RBAC_API_VERSION,
          kind: 'RoleBinding',
          metadata: { name, namespace },
          roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name },
          subjects: [{ kind: 'ServiceAccount', name: sa, namespace: installNamespace }],
        },
      );
    }
  }
  return out;
}

/** The rule OLM adds when promoting namespaced permissions for AllNamespaces installs. */
export const NAMESPACES_RULE: PolicyRule = { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] };

/** ClusterRoles and ClusterRoleBindings for `clusterPermissions` (+ promoted `permissions`). */
export function generateClusterRoles(bundle: RegistryV1Bundle, installNamespace: string, targets: readonly string[]): KubeObject[] {
  const all: StrategyPermission[] = [...clusterPermissions(bundle.csv)];
  if (isAllNamespaces(targets)) {
    for (const p of permissions(bundle.csv)) all.push({ ...p, rules: [...(p.rules ?? []), NAMESPACES_RULE] });
  }
  const out: KubeObject[] = [];
  for (const permission of all) {
    const sa = saNameOrDefault(permission);
    const name = permissionObjectName(csvName(bundle.csv), sa, permission);
    out.push(
      { apiVersion: RBAC_API_VERSION, kind: 'ClusterRole', metadata: { name }, rules: rulesOf(permission) },
      {
        apiVersion: RBAC_API_VERSION,
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
        subjects: [{ kind: 'ServiceAccount', name: sa, namespace: installNamespace }],
      },
    );
  }
  return out;
}

/** The permission's rules restricted to the PolicyRule fields (empty lists omitted). */
function rulesOf(permission: StrategyPermission): PolicyRule[] {
  return (permission.rules ?? []).map((rule) => {
    const out: PolicyRule = { verbs: rule.verbs ?? [] };
    for (const field of ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const) {
      const list = rule[field];
      if (list !== undefined && list !== null && list.length > 0) out[field] = list;
    }
    return out;
  });
}
