/**
 * Which ClusterExtension events start a reconcile. Every status write of the reconciler comes
 * back as an update event; upstream reconciles again on it (a no-op that re-reads and re-applies
 * everything). Here an update that changed nothing but `status` (and the bookkeeping fields the
 * API server maintains) is skipped, which halves the work per change; spec, labels,
 * annotations, finalizers and deletion still start one.
 */
import { OWNER_NAME_LABEL } from '../../shared/api/index.ts';
import { jsonEqual } from '../../shared/controller/index.ts';
import { objectKey, type Informer, type InformerEventType, type KubeObject } from '../../shared/kube/index.ts';

/** The parts of a ClusterExtension a reconcile depends on. */
function reconcileInputs(obj: Readonly<KubeObject>): unknown {
  const m = obj.metadata;
  return [obj.spec, m.generation, m.labels, m.annotations, m.finalizers, m.deletionTimestamp, m.uid];
}

/** Key function for the ClusterExtension informer (see the module comment). */
export function extensionKeys(type: InformerEventType, obj: Readonly<KubeObject>, old: Readonly<KubeObject> | undefined): string | undefined {
  if (type === 'update' && old !== undefined && jsonEqual(reconcileInputs(obj), reconcileInputs(old))) return undefined;
  return objectKey(obj);
}

/**
 * Key function for the ClusterObjectSet informer (BoxcutterRuntime): a revision's change queues
 * the extension its owner-name label names, so the extension mirrors its conditions (upstream's
 * Owns(ClusterObjectSet)). An update that changed only bookkeeping fields queues nothing.
 */
function revisionOwnerKeys(type: InformerEventType, obj: Readonly<KubeObject>, old: Readonly<KubeObject> | undefined): string | undefined {
  const owner = obj.metadata.labels?.[OWNER_NAME_LABEL];
  if (owner === undefined) return undefined;
  const inputs = (o: Readonly<KubeObject>): unknown => [o['spec'], o['status'], o.metadata.labels, o.metadata.deletionTimestamp];
  if (type === 'update' && old !== undefined && jsonEqual(inputs(obj), inputs(old))) return undefined;
  return owner;
}

/**
 * The ClusterExtension controller's watches: the extensions, and under BoxcutterRuntime their
 * revisions (a revision's change queues its extension, upstream's Owns(ClusterObjectSet)).
 */
export function extensionWatches(
  extensions: Informer<KubeObject>,
  objectSets: Informer<KubeObject> | undefined,
): { informer: Informer<KubeObject>; keys: typeof extensionKeys }[] {
  const own = { informer: extensions, keys: extensionKeys };
  return objectSets === undefined ? [own] : [own, { informer: objectSets, keys: revisionOwnerKeys }];
}
