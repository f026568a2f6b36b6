/**
 * Small pure helpers over the unstructured objects of a release: how they are named in
 * messages, how they are identified across revisions, and the owner labels every applied
 * object carries.
 */
import { OWNER_KIND_LABEL, OWNER_NAME_LABEL } from '../../shared/api/index.ts';
import { gvkOf, type KubeObject, type ObjectRef } from '../../shared/kube/index.ts';

/** Kind of the objects that are never deleted by an upgrade or an uninstall (decision 0049). */
const CRD_KIND = 'CustomResourceDefinition';

/** The owner kind label's value on every object of a release. */
export const OWNER_KIND = 'ClusterExtension';

/** The owner label selector of `extension`'s objects (the labels of {@link withOwnerLabels}). */
export function ownerSelector(extension: string): string {
  return `${OWNER_KIND_LABEL}=${OWNER_KIND},${OWNER_NAME_LABEL}=${extension}`;
}

/** `Kind namespace/name`, or `Kind name` for cluster-scoped objects: how messages name an object. */
export function describeObject(obj: { kind: string; metadata?: { name?: string; namespace?: string } }): string {
  const ns = obj.metadata?.namespace;
  return `${obj.kind} ${ns === undefined || ns === '' ? '' : `${ns}/`}${obj.metadata?.name ?? '<unnamed>'}`;
}

/** The reference naming `obj`, for GET and DELETE. */
export function refOf(obj: KubeObject): ObjectRef {
  const ns = obj.metadata.namespace;
  return { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? '', ...(ns === undefined || ns === '' ? {} : { namespace: ns }) };
}

/**
 * Identity of an object across revisions: API group, kind, namespace and name. The version is
 * left out, so a bundle moving a kind to a newer apiVersion keeps the same object.
 */
export function objectIdentity(obj: KubeObject): string {
  return `${gvkOf(obj).group}/${obj.kind}/${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

/** Objects of `from` that `to` does not contain (by identity), in `from`'s order. */
export function droppedObjects(from: readonly KubeObject[], to: readonly KubeObject[]): KubeObject[] {
  const kept = new Set(to.map(objectIdentity));
  return from.filter((o) => !kept.has(objectIdentity(o)));
}

/** `objects` with each identity once (its first object), in their order. */
export function uniqueObjects(objects: Iterable<KubeObject>): KubeObject[] {
  const byIdentity = new Map<string, KubeObject>();
  for (const obj of objects) if (!byIdentity.has(objectIdentity(obj))) byIdentity.set(objectIdentity(obj), obj);
  return [...byIdentity.values()];
}

/** True for CustomResourceDefinitions of any apiextensions version. */
export function isCrd(obj: { apiVersion: string; kind: string }): boolean {
  return obj.kind === CRD_KIND && obj.apiVersion.startsWith('apiextensions.k8s.io/');
}

/**
 * Copies of `objects` with the owner labels of `extension` merged over their own labels
 * (ours win, as upstream's post-renderer does), so drift watches and `kubectl get -l` find them.
 * The inputs are not modified; nested values are shared with them.
 */
export function withOwnerLabels(objects: readonly KubeObject[], extension: string): KubeObject[] {
  return objects.map((obj) => {
    const labels = { ...obj.metadata.labels, [OWNER_KIND_LABEL]: OWNER_KIND, [OWNER_NAME_LABEL]: extension };
    return { ...obj, metadata: { ...obj.metadata, labels } };
  });
}
