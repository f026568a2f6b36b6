/**
 * Unstructured Kubernetes objects: the one object type bundles, rendered manifests, the applier
 * and the API client share. Kinds are never modelled; only the fields every object has are
 * typed. Pure, so the pure cores may use it.
 */

/** An owner reference (`metadata.ownerReferences[]`). */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** `metadata` of any object; unknown fields are kept. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

/** Any Kubernetes object. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

/** Group, version and kind; `group` is '' for the core group. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** The type of an object, as written in manifests. */
export interface TypeRef {
  apiVersion: string;
  kind: string;
}

/** Names one object; `namespace` is required for namespaced kinds and ignored otherwise. */
export interface ObjectRef extends TypeRef {
  name: string;
  namespace?: string | undefined;
}

/** A list response. */
export interface ObjectList<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

/** A watch event as sent by the API server. */
export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  object: T;
}

/** Splits `apiVersion` + `kind` into a GroupVersionKind (`v1` => core group ''). */
export function gvkOf(type: TypeRef): GroupVersionKind {
  if (typeof type.apiVersion !== 'string' || type.apiVersion === '') {
    throw new Error(`object has no apiVersion (kind ${JSON.stringify(type.kind)})`);
  }
  if (typeof type.kind !== 'string' || type.kind === '') {
    throw new Error(`object has no kind (apiVersion ${JSON.stringify(type.apiVersion)})`);
  }
  const slash = type.apiVersion.indexOf('/');
  if (slash < 0) return { group: '', version: type.apiVersion, kind: type.kind };
  return { group: type.apiVersion.slice(0, slash), version: type.apiVersion.slice(slash + 1), kind: type.kind };
}

/** The informer/workqueue key of an object: `namespace/name`, or `name` when cluster-scoped. */
export function objectKey(obj: { metadata: { name?: string; namespace?: string } }): string {
  const name = obj.metadata.name ?? '';
  const ns = obj.metadata.namespace;
  return ns === undefined || ns === '' ? name : `${ns}/${name}`;
}
