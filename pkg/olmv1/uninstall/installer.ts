/**
 * The ServiceAccount, Roles, ClusterRoles and bindings `olmv1 install` created for an extension
 * (both install labels for it): listed in deletion order, and deleted each preconditioned on the
 * object listed.
 */
import { errorMessage } from '../../shared/errors/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';

/** The kinds install creates for an extension besides the ClusterExtension and the namespace, deleted in this order. */
const INSTALLER_KINDS = [
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' },
  { apiVersion: 'v1', kind: 'ServiceAccount' },
] as const;

/** One object install created for the extension, as listed (its kind from the list request). */
interface InstallerObject {
  readonly kind: (typeof INSTALLER_KINDS)[number];
  readonly object: KubeObject;
}

/** `Kind namespace/name` (`Kind name` when cluster-scoped), as install and uninstall name objects. */
export function describeInstallerObject({ kind, object: o }: InstallerObject): string {
  return `${kind.kind} ${o.metadata.namespace === undefined ? '' : `${o.metadata.namespace}/`}${o.metadata.name ?? ''}`;
}

/** The objects carrying the install labels `selector` selects, in deletion order. */
export async function listInstallerObjects(client: Pick<KubeClient, 'listAll'>, selector: string, signal?: AbortSignal): Promise<InstallerObject[]> {
  const found: InstallerObject[] = [];
  for (const kind of INSTALLER_KINDS) {
    const { items } = await client.listAll(kind, { labelSelector: selector, ...(signal === undefined ? {} : { signal }) });
    for (const object of items) found.push({ kind, object });
  }
  return found;
}

/** Deletes `found` in order; `deleted` is told each one deleted. Returns what could not be deleted, with the server's message. */
export async function deleteInstallerObjects(
  client: Pick<KubeClient, 'delete'>,
  found: readonly InstallerObject[],
  deleted: (shown: string) => void,
): Promise<string[]> {
  const failures: string[] = [];
  for (const item of found) {
    const o = item.object;
    const target = { ...item.kind, name: o.metadata.name ?? '', ...(o.metadata.namespace === undefined ? {} : { namespace: o.metadata.namespace }) };
    const shown = describeInstallerObject(item);
    try {
      // Preconditioned on the object listed, so a same-named object created since is never deleted.
      await client.delete(target, { preconditions: { uid: o.metadata.uid ?? '' } });
      deleted(shown);
    } catch (e) {
      if (!isNotFound(e)) failures.push(`${shown}: ${errorMessage(e)}`);
    }
  }
  return failures;
}
