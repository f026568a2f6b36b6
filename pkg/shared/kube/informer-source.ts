/** The list+watch seam of an informer, its implementation over a KubeClient, and a transform. */
import type { KubeClient, ListOptions } from './client.ts';
import type { ListEnvelope } from './list-stream.ts';
import type { KubeObject, ObjectList, TypeRef, WatchEvent } from '../unstructured/index.ts';

/**
 * Where an informer gets its objects: `list` one page; `watch` events from `resourceVersion`
 * until the server ends it, throwing on failure (410 Gone: too old) or abort.
 */
export interface ListWatchSource<T extends KubeObject = KubeObject> {
  /** What is listed, for logs (e.g. `clustercatalogs.olm.operatorframework.io`). */
  readonly description: string;
  list(options: PageOptions): Promise<ObjectList<T>>;
  /** `list` with items handed to `onItem` as they arrive; preferred: a page is never held whole. */
  listEach?(options: PageOptions, onItem: (item: T) => void): Promise<ListEnvelope>;
  watch(options: WatchFrom): AsyncIterable<WatchEvent<T>>;
  /** `watch` with events pushed to `onEvent`; preferred: it keeps no per-event promise alive. */
  watchEvents?(options: WatchFrom, onEvent: (event: WatchEvent<T>) => void): Promise<void>;
}

/** One page of a source's list. */
interface PageOptions {
  limit: number;
  continue?: string;
  signal: AbortSignal;
}

/** Where a source's watch starts. */
interface WatchFrom {
  resourceVersion: string;
  timeoutSeconds: number;
  signal: AbortSignal;
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
  return new ClientListWatch<T>(client, type, scope);
}

/**
 * clientListWatch's source. A class, its description computed when asked: thousands of drift
 * watches each hold one, and closures and a description string per source were ~1 KB a watch.
 * Where the client cannot stream a page or push events, listEach and watchEvents do as the
 * informer would without them.
 */
class ClientListWatch<T extends KubeObject> implements ListWatchSource<T> {
  readonly #client: KubeClient;
  readonly #type: TypeRef;
  readonly #scope: ListWatchScope;

  constructor(client: KubeClient, type: TypeRef, scope: ListWatchScope) {
    this.#client = client;
    this.#type = type;
    this.#scope = scope;
  }

  get description(): string {
    const s = this.#scope;
    const where = [
      s.namespace && `namespace=${s.namespace}`,
      s.labelSelector && `labels=${s.labelSelector}`,
      s.fieldSelector && `fields=${s.fieldSelector}`,
    ]
      .filter(Boolean)
      .join(',');
    return `${this.#type.kind}.${this.#type.apiVersion}${where === '' ? '' : ` (${where})`}`;
  }

  list(o: PageOptions): Promise<ObjectList<T>> {
    return this.#client.list<T>(this.#type, this.#page(o));
  }

  async listEach(o: PageOptions, onItem: (item: T) => void): Promise<ListEnvelope> {
    if (this.#client.listEach !== undefined) return this.#client.listEach<T>(this.#type, this.#page(o), onItem);
    const { items, ...envelope } = await this.list(o);
    for (const item of items ?? []) onItem(item);
    return envelope;
  }

  watch(o: WatchFrom): AsyncIterable<WatchEvent<T>> {
    return this.#client.watch<T>(this.#type, this.#from(o));
  }

  async watchEvents(o: WatchFrom, onEvent: (event: WatchEvent<T>) => void): Promise<void> {
    if (this.#client.watchEvents !== undefined) return this.#client.watchEvents<T>(this.#type, this.#from(o), onEvent);
    for await (const ev of this.watch(o)) onEvent(ev);
  }

  // The scope's undefined fields are read as absent by the client.
  #page(o: PageOptions): ListOptions {
    return { ...this.#scope, limit: o.limit, signal: o.signal, ...(o.continue === undefined ? {} : { continue: o.continue }) };
  }

  #from(o: WatchFrom): NonNullable<Parameters<KubeClient['watch']>[1]> {
    return { ...this.#scope, resourceVersion: o.resourceVersion, timeoutSeconds: o.timeoutSeconds, signal: o.signal };
  }
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
