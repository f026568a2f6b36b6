/**
 * What the drift watches of one extension cover, and what they cache. A target is one resource
 * in one namespace (cluster-wide for cluster-scoped kinds) listed and watched as the extension's
 * ServiceAccount with the owner-name label selector (decision 0043 item 5: the installer RBAC
 * grants list/watch exactly there). Cached objects are reduced to their identity and a digest
 * of their content without `status` and the API server's bookkeeping, which is all a change
 * detector needs (decision 0066).
 */
import { createHash } from 'node:crypto';
import { CLUSTER_OBJECT_SET, FIELD_MANAGER, GROUP, OWNER_KIND_LABEL, OWNER_NAME_LABEL } from '../../shared/api/index.ts';
import { OWNER_KIND, refersToAnyExtension, refersToExtension } from '../applier/index.ts';
import { LAST_APPLIED_ANNOTATION, objectKey, type InformerEventType, type KubeObject, type TypeRef } from '../../shared/kube/index.ts';
import { MISSING, judged, objectHealth, type ObjectHealth, type ReleaseHealth } from './health.ts';

/** One watch: objects of `type` in `namespace` ('' for cluster-wide) owned by the extension. */
export interface DriftTarget {
  /** Identity of the watch: ServiceAccount, type and namespace. */
  key: string;
  type: TypeRef;
  namespace: string;
  /** Informer keys (`ns/name` or `name`) of the release's objects the watch must see. */
  expected: Set<string>;
}

/** How the release's objects map to watches: is a type namespaced? (discovery) */
type NamespacedOf = (type: TypeRef) => Promise<boolean>;

/**
 * The targets covering `objects` for an extension installed into `installNamespace` by
 * `serviceAccount`. Kinds whose scope cannot be resolved are left out and returned in
 * `unresolved` (a kind of a CRD being deleted, discovery failing); the caller then keeps the
 * watches it has rather than stopping them.
 */
export async function driftTargets(
  objects: readonly KubeObject[],
  opts: { installNamespace: string; serviceAccount: string; namespaced: NamespacedOf },
): Promise<{ targets: Map<string, DriftTarget>; unresolved: { type: TypeRef; err: unknown }[] }> {
  const targets = new Map<string, DriftTarget>();
  const unresolved: { type: TypeRef; err: unknown }[] = [];
  const scopes = new Map<string, boolean | undefined>();
  for (const obj of objects) {
    const type = { apiVersion: obj.apiVersion, kind: obj.kind };
    const typeKey = `${type.apiVersion}/${type.kind}`;
    if (!scopes.has(typeKey)) {
      try {
        scopes.set(typeKey, await opts.namespaced(type));
      } catch (err) {
        scopes.set(typeKey, undefined);
        unresolved.push({ type, err });
      }
    }
    const namespaced = scopes.get(typeKey);
    if (namespaced === undefined) continue;
    const name = obj.metadata.name ?? '';
    const objNs = obj.metadata.namespace;
    const namespace = namespaced ? (objNs === undefined || objNs === '' ? opts.installNamespace : objNs) : '';
    const key = `${opts.installNamespace}/${opts.serviceAccount}|${typeKey}|${namespace}`;
    const target = targets.get(key) ?? { key, type, namespace, expected: new Set<string>() };
    target.expected.add(objectKey({ metadata: { name, namespace } }));
    targets.set(key, target);
  }
  return { targets, unresolved };
}

/** What a drift watch caches per object. */
export interface DriftFingerprint extends KubeObject {
  /** sha256 of the object without status, resourceVersion, managedFields and the annotations of NOT_CONTENT. */
  digest: string;
  /** The last write was operator-controller's own server-side apply (see {@link lastWriteIsOurs}). */
  ownWrite?: true;
  /** Its owner-name label: the extension whose view of a shared watch holds it (drift/shared.ts). */
  owner?: string;
  /**
   * Its owner-kind label does not say ClusterExtension: no extension's object, though its
   * owner-name label may name one (a watch selecting by owner-name alone, drift/watches.ts, leaves it out).
   */
  otherOwnerKind?: true;
  /** The verdict of its status, for the kinds drift/health.ts judges (a status change may change it, never the digest). */
  health?: ObjectHealth;
  /**
   * It carries an owner reference to a ClusterExtension (upstream's applier leaves one): not
   * vouched for by the cache, so the apply reads it and removes the reference (applier/owner-references.ts).
   */
  extensionReferenced?: true;
  /**
   * Its controller is a ClusterObjectSet revision of the extension its owner-name label names
   * (BoxcutterRuntime): the garbage collector deletes it when that revision goes.
   */
  revisionControlled?: true;
  /**
   * Revision-controlled, and its last write was its revision's own server-side apply (the
   * revision controller's, whose manager is the API group: objectset/ownership.ts): no drift,
   * as `ownWrite` (decision 0151). Not `ownWrite`: the object is as a revision left it, which
   * need not be the deployed one.
   */
  revisionWrite?: true;
}

/** The field manager of the revision controller's applies (objectset/ownership.ts `OBJECT_SET_FIELD_MANAGER`). */
const REVISION_FIELD_MANAGER = GROUP;

interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  time?: string;
  fieldsV1?: Record<string, unknown>;
}

/**
 * True when the newest `managedFields` entry but those of status writes is operator-controller's
 * apply (`manager`'s: the ClusterExtension controller's by default) and no other entry has the same time (their resolution is a second): the object's content
 * was last changed by the reconcile itself (an install, upgrade or repair), so the change is not
 * drift, and the object is as that apply left it. A write by anyone else in the same second
 * counts as theirs.
 */
export function lastWriteIsOurs(managedFields: readonly unknown[] | undefined, manager: string = FIELD_MANAGER): boolean {
  let newest = Number.NEGATIVE_INFINITY;
  let ours = false;
  for (const raw of managedFields ?? []) {
    const e = raw as ManagedFieldsEntry;
    // A status write (a controller reporting on the object) changes none of its content, nor
    // does the deployment controller's revision annotation.
    if (e.subresource === 'status' || ownsNoContent(e.fieldsV1)) continue;
    const t = e.time === undefined ? Number.NaN : Date.parse(e.time);
    if (Number.isNaN(t)) continue;
    const mine = e.manager === manager && e.operation === 'Apply' && (e.subresource ?? '') === '';
    if (t > newest) {
      newest = t;
      ours = mine;
    } else if (t === newest) {
      ours = false;
    }
  }
  return ours;
}

/**
 * Annotations left out of the digest: kubectl's copy of what it applied, and the revision the
 * deployment controller stamps on every Deployment it rolls out (right after each install or
 * upgrade on a real cluster). Neither is the release's content, nor does an apply restore it.
 */
const NOT_CONTENT = new Set([LAST_APPLIED_ANNOTATION, 'deployment.kubernetes.io/revision']);

/** True when a managedFields entry owns nothing but annotations of NOT_CONTENT. */
function ownsNoContent(fields: Record<string, unknown> | undefined): boolean {
  if (fields === undefined || Object.keys(fields).join() !== 'f:metadata') return false;
  const metadata = fields['f:metadata'] as Record<string, unknown> | undefined;
  if (metadata === undefined || Object.keys(metadata).join() !== 'f:annotations') return false;
  const annotations = Object.keys((metadata['f:annotations'] ?? {}) as Record<string, unknown>);
  return annotations.every((a) => a === '.' || NOT_CONTENT.has(a.slice(2)));
}

/**
 * Informer transform: the object's identity, resourceVersion, content digest, whether the
 * reconcile wrote it last, and the health verdict of a judged kind. A change of status only (a
 * Deployment's rollout, a CRD's conditions) keeps the digest, so it is no drift; neither is a
 * change the reconcile made itself; every other change is, whoever made it (the reconcile
 * decides what to restore). A changed verdict only queues a reconcile for the Healthy condition.
 * The watch's `type` says what the object is: list items need not carry apiVersion and kind, and
 * without it the first watch event after a list would differ from the listed copy (drift).
 */
export function fingerprint(obj: KubeObject, type?: TypeRef): DriftFingerprint {
  // A list item without apiVersion and kind digests as the same object from a watch event.
  const apiVersion = type?.apiVersion ?? obj.apiVersion;
  const kind = type?.kind ?? obj.kind;
  const { status: _status, apiVersion: _apiVersion, kind: _kind, ...rest } = obj;
  const { resourceVersion, managedFields: _managed, ...metadata } = obj.metadata;
  if (metadata.annotations !== undefined && Object.keys(metadata.annotations).some((a) => NOT_CONTENT.has(a))) {
    const annotations = Object.fromEntries(Object.entries(metadata.annotations).filter(([a]) => !NOT_CONTENT.has(a)));
    if (Object.keys(annotations).length === 0) delete metadata.annotations;
    else metadata.annotations = annotations;
  }
  const digest = createHash('sha256')
    .update(JSON.stringify({ apiVersion, kind, ...rest, metadata }))
    .digest('base64');
  const m = obj.metadata;
  const owner = m.labels?.[OWNER_NAME_LABEL];
  const health = objectHealth({ ...obj, apiVersion, kind });
  const controlled = revisionControlled(m, owner);
  return {
    apiVersion,
    kind,
    metadata: {
      name: m.name ?? '',
      ...(m.namespace === undefined ? {} : { namespace: m.namespace }),
      ...(m.uid === undefined ? {} : { uid: m.uid }),
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
    },
    digest,
    ...(lastWriteIsOurs(m.managedFields) ? { ownWrite: true as const } : {}),
    ...(owner === undefined ? {} : { owner }),
    ...(owner !== undefined && m.labels?.[OWNER_KIND_LABEL] !== OWNER_KIND ? { otherOwnerKind: true as const } : {}),
    ...(health === undefined ? {} : { health }),
    ...((m.ownerReferences ?? []).some(refersToAnyExtension) ? { extensionReferenced: true as const } : {}),
    ...(controlled ? { revisionControlled: true as const } : {}),
    ...(controlled && lastWriteIsOurs(m.managedFields, REVISION_FIELD_MANAGER) ? { revisionWrite: true as const } : {}),
  };
}

/** Its controller is a ClusterObjectSet of the extension `owner` (its owner-name label). */
function revisionControlled(m: KubeObject['metadata'], owner: string | undefined): boolean {
  return (
    owner !== undefined &&
    (m.ownerReferences ?? []).some((r) => r.controller === true && r.kind === CLUSTER_OBJECT_SET.kind && refersToExtension(r, owner))
  );
}

/** What {@link releaseHealth} reads of one running watch. */
interface WatchedTarget {
  target: DriftTarget;
  informer: { readonly hasSynced: boolean; get(key: string): Readonly<DriftFingerprint> | undefined };
}

/**
 * The health of the release's judged objects from the caches of its watches; an object of the
 * release its watch lacks is reported missing. For a watch of a judged kind that has not listed
 * yet, `unlisted` gives each object's verdict otherwise known (the answer of a recent apply);
 * not observed when it knows none for one of them. Objects in `Kind ns/name` order.
 */
export function releaseHealth(
  watches: Iterable<WatchedTarget>,
  unlisted: (target: DriftTarget, key: string) => ObjectHealth | undefined = () => undefined,
): ReleaseHealth {
  const objects: { object: string; health: ObjectHealth }[] = [];
  for (const { target, informer } of watches) {
    if (!judged(target.type)) continue;
    for (const key of target.expected) {
      const health = informer.hasSynced ? (informer.get(key)?.health ?? MISSING) : unlisted(target, key);
      if (health === undefined) return { observed: false };
      objects.push({ object: `${target.type.kind} ${key}`, health });
    }
  }
  objects.sort((a, b) => (a.object < b.object ? -1 : a.object > b.object ? 1 : 0));
  return { observed: true, objects };
}

/** True for the informer events that mean a managed object drifted (drift/watches.ts module comment). */
export function changed(type: InformerEventType, obj: Readonly<DriftFingerprint>, old: Readonly<DriftFingerprint> | undefined): boolean {
  if (type === 'delete') return true;
  return type === 'update' && old !== undefined && old.digest !== obj.digest && obj.ownWrite !== true && obj.revisionWrite !== true;
}

/** An object of the release that the (synced) watch's first list lacked, named by type and key. */
export function firstMissing({ target, informer }: WatchedTarget): KubeObject | undefined {
  const missing = [...target.expected].find((key) => informer.get(key) === undefined);
  return missing === undefined ? undefined : targetObject(target, missing);
}

/** The object of `target` with cache key `key` (`ns/name`, or `name`), named as stored. */
export function targetObject(target: DriftTarget, key: string): KubeObject {
  return {
    apiVersion: target.type.apiVersion,
    kind: target.type.kind,
    metadata: { name: key.slice(key.indexOf('/') + 1), ...(target.namespace === '' ? {} : { namespace: target.namespace }) },
  };
}
