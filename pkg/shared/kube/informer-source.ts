/** The list+watch seam of an informer, its implementation over a KubeClient, and a transform. */
import type { KubeClient } from './client.ts';
import type { ListEnvelope } from './list-stream.ts';
import type { KubeObject, ObjectList, TypeRef, WatchEvent } from '../unstructured/index.ts';

/**
 * Where an informer gets its objects: `list` one page; `watch` events from `resourceVersion`
 * until the server ends it, throwing on failure (410 Gone: too old) or abort.
 */
export interface ListWatchSource<T extends KubeObject = KubeObject> {
  /** What is listed, for logs (e.g. `clustercatalogs.olm.operatorframework.io`). */
  readonly description: string;
  list(options: { limit: number; continue?: string; signal: AbortSignal }): Promise<ObjectList<T>>;
  /** `list` with items handed to `onItem` as they arrive; preferred: a page is never held whole. */
  listEach?(options: { limit: number; continue?: string; signal: AbortSignal }, onItem: (item: T) => void): Promise<ListEnvelope>;
  watch(options: { resourceVersion: string; timeoutSeconds: number; signal: AbortSignal }): AsyncIterable<WatchEvent<T>>;
  /** `watch` with events pushed to `onEvent`; preferred: it keeps no per-event promise alive. */
  watchEvents?(
    options: { resourceVersion: string; timeoutSeconds: number; signal: AbortSignal },
    onEvent: (event: WatchEvent<T>) => void,
  ): Promise<void>;
}

/** What an informer over a client lists and watches. */
interface ListWatchScope {
  /** Namespace to restrict to; omit for all namespaces or cluster-scoped kinds. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** A ListWatchSource over `client` for objects of `type` within `scope`. */
export function clientListWatch<T extends KubeObject = KubeObject>(
  client: KubeClient,
  type: TypeRef,
  scope: ListWatchScope = {},
): ListWatchSource<T> {
  const selectors: ListWatchScope = {};
  if (scope.namespace !== undefined) selectors.namespace = scope.namespace;
  if (scope.labelSelector !== undefined) selectors.labelSelector = scope.labelSelector;
  if (scope.fieldSelector !== undefined) selectors.fieldSelector = scope.fieldSelector;
  const where = [
    scope.namespace && `namespace=${scope.namespace}`,
    scope.labelSelector && `labels=${scope.labelSelector}`,
    scope.fieldSelector && `fields=${scope.fieldSelector}`,
  ]
    .filter(Boolean)
    .join(',');
  const push = client.watchEvents?.bind(client);
  const each = client.listEach?.bind(client);
  return {
    description: `${type.kind}.${type.apiVersion}${where === '' ? '' : ` (${where})`}`,
    list: (o) =>
      client.list<T>(type, { ...selectors, limit: o.limit, signal: o.signal, ...(o.continue === undefined ? {} : { continue: o.continue }) }),
    ...(each === undefined
      ? {}
      : {
          listEach: (o, onItem) =>
            each<T>(type, { ...selectors, limit: o.limit, signal: o.signal, ...(o.continue === undefined ? {} : { continue: o.continue }) }, onItem),
        }),
    watch: (o) => client.watch<T>(type, { ...selectors, resourceVersion: o.resourceVersion, timeoutSeconds: o.timeoutSeconds, signal: o.signal }),
    ...(push === undefined
      ? {}
      : {
          watchEvents: (o, onEvent) =>
            push<T>(type, { ...selectors, resourceVersion: o.resourceVersion, timeoutSeconds: o.timeoutSeconds, signal: o.signal }, onEvent),
        }),
  };
}

/** Annotation `kubectl apply` stores the whole last-applied object in. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Informer transform dropping `metadata.managedFields` and the last-applied annotation (often
 * most of an object, never read by controllers). Mutates and returns `obj`.
 */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  const meta = obj.metadata;
  if (meta === undefined) return obj;
  delete meta.managedFields;
  if (meta.annotations !== undefined && LAST_APPLIED_ANNOTATION in meta.annotations) {
    delete meta.annotations[LAST_APPLIED_ANNOTATION];
    if (Object.keys(meta.annotations).length === 0) delete meta.annotations;
  }
  return obj;
}

/** Recursively freezes `value` so cache readers cannot mutate shared objects. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const v of Object.values(value as object)) deepFreeze(v);
  return Object.freeze(value);
}
