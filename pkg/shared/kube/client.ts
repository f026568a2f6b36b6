/**
 * A client over unstructured objects: kinds are resolved through discovery, bodies are sent
 * as given and responses returned as parsed JSON, never through a typed model.
 */
import type { Readable } from 'node:stream';
import { resourcePath, type ResourceInfo, type ResourceMapper } from './resource-mapper.ts';
import type { QueryParams, Transport } from './transport.ts';
import { gvkOf, type KubeObject, type ObjectList, type ObjectRef, type TypeRef, type WatchEvent } from '../unstructured/index.ts';
import { decodeListStream, type ListEnvelope } from './list-stream.ts';
import { decodeWatchStream, jitteredWatchTimeoutSeconds, pushWatchEvents } from './watch.ts';

/** Content types of the patch flavours. */
const PatchType = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** `fieldValidation` query values. */
type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** Options shared by writes. */
interface WriteOptions {
  fieldManager?: string;
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
  signal?: AbortSignal;
}

/** Options of `create` and `createSubresource`; `idempotent` as RequestOptions' (transport.ts). */
interface CreateOptions extends WriteOptions {
  idempotent?: boolean;
}

/** Options of `apply` (server-side apply); `fieldManager` is mandatory for apply. */
interface ApplyOptions extends WriteOptions {
  fieldManager: string;
  /** Take ownership of conflicting fields (`force=true`). */
  force?: boolean;
  subresource?: string;
}

/** Options of `list` / `watch`. */
export interface ListOptions {
  /** Omit (or '') for all namespaces / cluster-scoped kinds. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  /** Metadata only (`PartialObjectMetadataList`): items carry their `metadata` and nothing else. */
  metadataOnly?: boolean;
  signal?: AbortSignal;
}

/** Accept header of a metadata-only list (the JSON fallback keeps servers without it working). */
const METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/** Options of `watch`. */
interface WatchOptions extends Omit<ListOptions, 'limit' | 'continue' | 'metadataOnly'> {
  /** Server-side timeout; default jittered 5-10 minutes so watches are renewed regularly. */
  timeoutSeconds?: number;
  /** Ask for BOOKMARK events (default true). */
  allowWatchBookmarks?: boolean;
}

/** Options of `delete`. */
interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  signal?: AbortSignal;
}

/**
 * CRUD, patch, server-side apply and watch for any kind. Every method throws ApiError
 * (see api-error.ts predicates) for API failures and NoKindMatchError for unknown kinds.
 */
export interface KubeClient {
  readonly transport: Transport;
  readonly mapper: ResourceMapper;
  /** The resource of a type (discovery). */
  resourceFor(type: TypeRef, signal?: AbortSignal): Promise<ResourceInfo>;
  get<T extends KubeObject = KubeObject>(ref: ObjectRef, options?: { signal?: AbortSignal }): Promise<T>;
  /** One page; pass `continue` from `metadata.continue` for the next one. */
  list<T extends KubeObject = KubeObject>(type: TypeRef, options?: ListOptions): Promise<ObjectList<T>>;
  /**
   * One page, its items handed to `onItem` as they arrive (list-stream.ts); resolves with the
   * page's envelope. Optional: test doubles may offer only `list`.
   */
  listEach?<T extends KubeObject = KubeObject>(type: TypeRef, options: ListOptions, onItem: (item: T) => void): Promise<ListEnvelope>;
  /** All pages (page size `limit`, default 500); the resourceVersion is the first page's. */
  listAll<T extends KubeObject = KubeObject>(
    type: TypeRef,
    options?: Omit<ListOptions, 'continue'>,
  ): Promise<{ items: T[]; resourceVersion: string }>;
  create<T extends KubeObject = KubeObject>(obj: KubeObject, options?: CreateOptions): Promise<T>;
  /** PUT of the whole object; `metadata.resourceVersion` gives optimistic concurrency. */
  update<T extends KubeObject = KubeObject>(obj: KubeObject, options?: WriteOptions): Promise<T>;
  /** PUT of the `status` subresource. */
  updateStatus<T extends KubeObject = KubeObject>(obj: KubeObject, options?: WriteOptions): Promise<T>;
  patch<T extends KubeObject = KubeObject>(
    ref: ObjectRef,
    patch: unknown,
    type: 'merge' | 'json' | 'strategic',
    options?: WriteOptions & { subresource?: string },
  ): Promise<T>;
  /** Server-side apply: PATCH `application/apply-patch+yaml` with `JSON.stringify(obj)`, unchanged. */
  apply<T extends KubeObject = KubeObject>(obj: KubeObject, options: ApplyOptions): Promise<T>;
  /** Deletes; resolves with the server's answer (the object while finalizers run, or a Status). */
  delete(ref: ObjectRef, options?: DeleteOptions): Promise<unknown>;
  /** Streams events until the server ends the watch or `signal` aborts (see decodeWatchStream). */
  watch<T extends KubeObject = KubeObject>(type: TypeRef, options?: WatchOptions): AsyncGenerator<WatchEvent<T>, void, undefined>;
  /** `watch` with events pushed to `onEvent` (pushWatchEvents). Optional, as `listEach`. */
  watchEvents?<T extends KubeObject = KubeObject>(type: TypeRef, options: WatchOptions, onEvent: (event: WatchEvent<T>) => void): Promise<void>;
  /** POST to a subresource of an object (TokenRequest, eviction, ...); returns the response. */
  createSubresource<T = unknown>(
    ref: ObjectRef,
    subresource: string,
    body: unknown,
    options?: Pick<CreateOptions, 'signal' | 'idempotent'>,
  ): Promise<T>;
}

/** The query of a list request. */
function listQuery(o: ListOptions): QueryParams {
  return {
    labelSelector: o.labelSelector || undefined,
    fieldSelector: o.fieldSelector || undefined,
    limit: o.limit,
    continue: o.continue || undefined,
    resourceVersion: o.resourceVersion,
  };
}

/** How long a streamed list page may take to arrive whole (a request's default timeout). */
const LIST_READ_TIMEOUT_MS = 30_000;

function writeQuery(o: WriteOptions | undefined): QueryParams {
  return {
    fieldManager: o?.fieldManager,
    dryRun: o?.dryRun === true ? 'All' : undefined,
    fieldValidation: o?.fieldValidation,
  };
}

/** The query of a watch request: bookmarks (unless refused), a server-side timeout, the selectors. */
function watchQuery(o: WatchOptions): QueryParams {
  return {
    watch: '1',
    allowWatchBookmarks: o.allowWatchBookmarks === false ? undefined : 'true',
    timeoutSeconds: o.timeoutSeconds ?? jitteredWatchTimeoutSeconds(),
    resourceVersion: o.resourceVersion || undefined,
    labelSelector: o.labelSelector || undefined,
    fieldSelector: o.fieldSelector || undefined,
  };
}

function withSignal(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}

function nameOf(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (typeof name !== 'string' || name === '') {
    throw new Error(`${obj.kind} object has no metadata.name`);
  }
  return name;
}

/** Creates a client over `transport`, resolving kinds with `mapper` (which may be shared). */
export function createKubeClient(transport: Transport, mapper: ResourceMapper): KubeClient {
  const resourceFor = (type: TypeRef, signal?: AbortSignal): Promise<ResourceInfo> => mapper.resolve(gvkOf(type), signal);
  /** The body of a watch request (both the iterated and the pushed form read it). */
  const openWatch = async (type: TypeRef, o: WatchOptions): Promise<Readable> => {
    const info = await resourceFor(type, o.signal);
    return transport.stream('GET', resourcePath(info, { namespace: o.namespace }), { query: watchQuery(o), ...withSignal(o.signal) });
  };

  async function objectPath(obj: KubeObject, withName: boolean, subresource?: string, signal?: AbortSignal): Promise<string> {
    const info = await resourceFor(obj, signal);
    return resourcePath(info, { namespace: obj.metadata?.namespace, name: withName ? nameOf(obj) : undefined, subresource });
  }

  async function refPath(ref: ObjectRef, subresource?: string, signal?: AbortSignal): Promise<string> {
    const info = await resourceFor(ref, signal);
    return resourcePath(info, { namespace: ref.namespace, name: ref.name, subresource });
  }

  const client: KubeClient = {
    transport,
    mapper,
    resourceFor,
    async get<T extends KubeObject>(ref: ObjectRef, options?: { signal?: AbortSignal }) {
      return transport.request<T>('GET', await refPath(ref, undefined, options?.signal), withSignal(options?.signal));
    },
    async list<T extends KubeObject>(type: TypeRef, o: ListOptions = {}) {
      const info = await resourceFor(type, o.signal);
      const query = listQuery(o);
      const headers = o.metadataOnly === true ? { headers: { Accept: METADATA_LIST_ACCEPT } } : {};
      return transport.request<ObjectList<T>>('GET', resourcePath(info, { namespace: o.namespace }), { query, ...headers, ...withSignal(o.signal) });
    },
    async listEach<T extends KubeObject>(type: TypeRef, o: ListOptions, onItem: (item: T) => void) {
      const info = await resourceFor(type, o.signal);
      const headers = o.metadataOnly === true ? { headers: { Accept: METADATA_LIST_ACCEPT } } : {};
      const body = await transport.stream('GET', resourcePath(info, { namespace: o.namespace }), {
        query: listQuery(o),
        ...headers,
        ...withSignal(o.signal),
      });
      return decodeListStream<T>(body, onItem, { timeoutMs: LIST_READ_TIMEOUT_MS, signal: o.signal });
    },
    async listAll<T extends KubeObject>(type: TypeRef, o: Omit<ListOptions, 'continue'> = {}) {
      const items: T[] = [];
      let resourceVersion = '';
      let cont: string | undefined;
      do {
        const page: ObjectList<T> = await client.list<T>(type, { ...o, limit: o.limit ?? 500, ...(cont === undefined ? {} : { continue: cont }) });
        if (resourceVersion === '') resourceVersion = page.metadata?.resourceVersion ?? '';
        // A metadata-only list answers an empty page with `items: null`.
        items.push(...((page.items as T[] | null) ?? []));
        cont = page.metadata?.continue || undefined;
      } while (cont !== undefined);
      return { items, resourceVersion };
    },
    async create<T extends KubeObject>(obj: KubeObject, o?: CreateOptions) {
      const path = await objectPath(obj, false, undefined, o?.signal);
      return transport.request<T>('POST', path, { body: obj, query: writeQuery(o), idempotent: o?.idempotent === true, ...withSignal(o?.signal) });
    },
    async update<T extends KubeObject>(obj: KubeObject, o?: WriteOptions) {
      const path = await objectPath(obj, true, undefined, o?.signal);
      return transport.request<T>('PUT', path, { body: obj, query: writeQuery(o), ...withSignal(o?.signal) });
    },
    async updateStatus<T extends KubeObject>(obj: KubeObject, o?: WriteOptions) {
      const path = await objectPath(obj, true, 'status', o?.signal);
      return transport.request<T>('PUT', path, { body: obj, query: writeQuery(o), ...withSignal(o?.signal) });
    },
    async patch<T extends KubeObject>(
      ref: ObjectRef,
      patch: unknown,
      type: 'merge' | 'json' | 'strategic',
      o?: WriteOptions & { subresource?: string },
    ) {
      const path = await refPath(ref, o?.subresource, o?.signal);
      return transport.request<T>('PATCH', path, { body: patch, contentType: PatchType[type], query: writeQuery(o), ...withSignal(o?.signal) });
    },
    async apply<T extends KubeObject>(obj: KubeObject, o: ApplyOptions) {
      if (typeof o.fieldManager !== 'string' || o.fieldManager === '') {
        throw new Error('server-side apply needs a fieldManager');
      }
      const path = await objectPath(obj, true, o.subresource, o.signal);
      const query = { ...writeQuery(o), force: o.force === true ? 'true' : undefined };
      // Stringified here, so nothing downstream can re-serialize the manifest.
      const body = JSON.stringify(obj);
      return transport.request<T>('PATCH', path, { body, contentType: PatchType.apply, query, ...withSignal(o.signal) });
    },
    async delete(ref: ObjectRef, o: DeleteOptions = {}) {
      const path = await refPath(ref, undefined, o.signal);
      const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
      if (o.propagationPolicy !== undefined) body.propagationPolicy = o.propagationPolicy;
      if (o.preconditions !== undefined) body.preconditions = o.preconditions;
      if (o.dryRun === true) body.dryRun = ['All'];
      return transport.request('DELETE', path, { body, ...withSignal(o.signal) });
    },
    async *watch<T extends KubeObject>(type: TypeRef, o: WatchOptions = {}) {
      yield* decodeWatchStream<T>(await openWatch(type, o), o.signal);
    },
    // Not an async function: a suspended one per open watch is kept for the watch's life.
    watchEvents<T extends KubeObject>(type: TypeRef, o: WatchOptions, onEvent: (event: WatchEvent<T>) => void) {
      return openWatch(type, o).then((body) => pushWatchEvents<T>(body, onEvent, o.signal));
    },
    async createSubresource<T>(ref: ObjectRef, subresource: string, body: unknown, o?: Pick<CreateOptions, 'signal' | 'idempotent'>) {
      const path = await refPath(ref, subresource, o?.signal);
      return transport.request<T>('POST', path, { body, idempotent: o?.idempotent === true, ...withSignal(o?.signal) });
    },
  };
  return client;
}
