/**
 * Names and ownership of what the tenant controller makes for an Extension (decision 0138): the
 * ClusterExtension, named after the request's namespace and name so two namespaces never
 * collide, and the installer ServiceAccount in the request's namespace. A namespaced owner
 * cannot own a cluster-scoped object by owner reference, so each object carries the request's
 * namespace, name and uid as labels, and nothing is written or deleted unless all three match.
 */
import { createHash } from 'node:crypto';
import { TENANT_NAME_LABEL, TENANT_NAMESPACE_LABEL, TENANT_UID_LABEL } from '../../shared/api/index.ts';

/** Longest ClusterExtension name (a Helm release name, decision 0072). */
const MAX_EXTENSION_NAME = 53;

/** The request an object is made for. */
export interface RequestRef {
  namespace: string;
  name: string;
  uid: string;
}

/**
 * `<namespace>-<name>` when that is short enough and the namespace has no `-` (the first `-`
 * then splits it back uniquely); otherwise its first part and a hash of both
 * (`<prefix>-<10 hex>`), so `team-a` + `x` and `team` + `a-x` differ. Should two requests still
 * meet one name, the ownership labels keep the second from touching the first's.
 */
export function clusterExtensionName(namespace: string, name: string): string {
  const plain = `${namespace}-${name}`;
  if (plain.length <= MAX_EXTENSION_NAME && !namespace.includes('-')) return plain;
  const hash = createHash('sha256').update(`${namespace}/${name}`).digest('hex').slice(0, 10);
  const prefix = plain.slice(0, MAX_EXTENSION_NAME - hash.length - 1).replace(/[-.]+$/, '');
  return `${prefix}-${hash}`;
}

/** The installer ServiceAccount the controller makes in the request's namespace. */
export function installerServiceAccountName(name: string): string {
  return `${name}-installer`;
}

/** The labels proving an object was made for `req`. */
export function ownerLabels(req: RequestRef): Record<string, string> {
  return { [TENANT_NAMESPACE_LABEL]: req.namespace, [TENANT_NAME_LABEL]: req.name, [TENANT_UID_LABEL]: req.uid };
}

/** The label selector of what was made for `req` (all three labels). */
export function ownerSelector(req: RequestRef): string {
  return `${TENANT_NAMESPACE_LABEL}=${req.namespace},${TENANT_NAME_LABEL}=${req.name},${TENANT_UID_LABEL}=${req.uid}`;
}

/** Whether `obj` carries `req`'s three labels (the proof asked for before any write or delete). */
export function ownedBy(obj: { metadata?: { labels?: Record<string, string> | undefined } } | undefined, req: RequestRef): boolean {
  const labels = obj?.metadata?.labels ?? {};
  return labels[TENANT_NAMESPACE_LABEL] === req.namespace && labels[TENANT_NAME_LABEL] === req.name && labels[TENANT_UID_LABEL] === req.uid;
}

/** The request `obj` was made for, by its labels (for watches), or undefined. */
export function requestKeyOf(obj: { metadata?: { labels?: Record<string, string> | undefined } }): string | undefined {
  const labels = obj.metadata?.labels ?? {};
  const ns = labels[TENANT_NAMESPACE_LABEL];
  const name = labels[TENANT_NAME_LABEL];
  return ns === undefined || name === undefined ? undefined : `${ns}/${name}`;
}
