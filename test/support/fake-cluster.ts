/**
 * The one in-memory stand-in for the API server in unit tests: a complete KubeClient over an
 * object tracker. Objects are keyed by kind, namespace and name and carry uids and
 * resourceVersions (one counter for the cluster, bumped on every write). It offers create,
 * update with optimistic concurrency (a stale `metadata.resourceVersion` is the API server's
 * 409), the status subresource (`update` keeps the stored status, `updateStatus` changes only
 * it), server-side apply (merging labels and annotations, as an apply by one manager over
 * others' metadata does), dry runs that write nothing, lists and pages (full or metadata-only;
 * by `metadata.name` field selector and by label selector: `k=v`, `k!=v`, `k`, `!k`,
 * `k in (a,b)`, `k notin (a,b)`), merge patches (RFC 7386; strategic ones are treated as merge)
 * and JSON patches of `test` and `remove` (an unmet test is the API server's 422), conditional
 * deletes (an object with finalizers is marked with a deletionTimestamp and goes when its last
 * finalizer does), and watches that see every later write as ADDED, MODIFIED or DELETED events. CRDs
 * are Established at once.
 *
 * Every request is recorded in `calls` as `<verb> <Kind ns/name>` (`list <Kind> <ns>` for lists,
 * `watch <Kind> <ns>` for watches); verbs are get, list, watch, create, update, status, apply,
 * dry-run (of apply), dry-run-create, dry-run-update, patch, `patch/<subresource>`, delete and
 * `create/<subresource>`. Failure injection: a request whose text is
 * a key of `refuse` (given as an option, or later with `refuse()`) throws that error instead of
 * taking effect; kinds in `unserved` throw NoKindMatchError. Raw `transport` requests and
 * subresource POSTs go to the `request` and `subresource` options.
 */
import type { Readable } from 'node:stream';
import {
  ApiError,
  NoKindMatchError,
  type KubeClient,
  type KubeObject,
  type ListOptions,
  type ObjectList,
  type ObjectRef,
  type Transport,
  type TypeRef,
  type WatchEvent,
} from '../../pkg/shared/kube/index.ts';
import { describeObject } from '../../pkg/operator-controller/applier/index.ts';

/** What discovery says about one resource. */
type ResourceInfo = Awaited<ReturnType<KubeClient['resourceFor']>>;

/** A fake cluster: its objects, the calls made and the client to pass to the code under test. */
export interface FakeCluster {
  client: KubeClient;
  /** Every request, in order. */
  calls: string[];
  /** The writes among them (create, update, status, apply, delete, patch; not dry runs or reviews), in order. */
  writes: string[];
  /** Live objects by `Kind ns/name`. */
  objects: Map<string, KubeObject>;
  /** Puts `obj` in the cluster as someone else made it (a uid and a resourceVersion are added); watches see it. */
  seed(obj: KubeObject): void;
  /** The live object named like `obj`, if any. */
  live(obj: { kind: string; metadata: { name?: string; namespace?: string } }): KubeObject | undefined;
  /** Changes the live object named like `obj` as someone else would: a new resourceVersion, watches see it, no call recorded. */
  edit(obj: { kind: string; metadata: { name?: string; namespace?: string } }, change: (live: KubeObject) => void): void;
  /** From now on the request `call` (its text in `calls`) throws `error`; `undefined` lifts it. */
  refuse(call: string, error: Error | undefined): void;
}

/** Options of fakeCluster. */
export interface FakeClusterOptions {
  /** Errors thrown for a call, by its text in `calls` (e.g. `delete ConfigMap ns/a`, `dry-run Service ns/s`). */
  refuse?: Record<string, Error>;
  /** Kinds the cluster does not serve (NoKindMatchError), as `apiVersion/Kind`. */
  unserved?: string[];
  /** Answers `client.transport.request` (default: every raw request is refused with 404). */
  request?: Transport['request'];
  /** Answers `client.createSubresource` (default: 404). */
  subresource?: (ref: ObjectRef, subresource: string, body: unknown) => unknown;
}

function refName(ref: ObjectRef): string {
  return describeObject({ kind: ref.kind, metadata: { name: ref.name, ...(ref.namespace === undefined ? {} : { namespace: ref.namespace }) } });
}

function notFound(what: string): ApiError {
  return new ApiError(404, 'NotFound', `${what} not found`);
}

/** A JSON patch operation the fake understands. */
interface JsonPatchOp {
  op: string;
  path: string;
  value?: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Applies `ops` (`test`, `remove`, and `add` of an object's member) to `target` in place; false when one does not apply. */
function applyJsonPatch(target: unknown, ops: readonly JsonPatchOp[]): boolean {
  for (const { op, path, value } of ops) {
    const keys = path.split('/').slice(1);
    const last = keys.pop();
    let parent: unknown = target;
    for (const k of keys) parent = (parent as Record<string, unknown> | undefined)?.[k];
    if (parent === undefined || parent === null || last === undefined) return false;
    const container = parent as Record<string, unknown> & unknown[];
    if (op === 'add' && isRecord(container)) {
      container[last] = structuredClone(value);
      continue;
    }
    if (!(last in container)) return false;
    if (op === 'test') {
      if (JSON.stringify(container[last]) !== JSON.stringify(value)) return false;
    } else if (op === 'remove') {
      if (Array.isArray(container)) container.splice(Number(last), 1);
      else delete container[last];
    } else return false;
  }
  return true;
}

/** RFC 7386: `patch` merged into `target` (null deletes, objects merge, anything else replaces). */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** One requirement of a label selector. */
type Requirement = (labels: Record<string, string>) => boolean;

/** Parses a label selector (equality, inequality, existence and set terms). */
function parseSelector(selector: string | undefined): Requirement[] {
  const terms = (selector ?? '').split(/,(?![^(]*\))/).map((t) => t.trim());
  return terms
    .filter((t) => t !== '')
    .map((t): Requirement => {
      const set = /^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(t);
      if (set !== null) {
        const [, key = '', op, values = ''] = set;
        const vs = values.split(',').map((v) => v.trim());
        return op === 'in' ? (l) => l[key] !== undefined && vs.includes(l[key]) : (l) => l[key] === undefined || !vs.includes(l[key]);
      }
      const ne = /^([^!=]+)!=(.*)$/.exec(t);
      if (ne !== null) return (l) => l[ne[1] ?? ''] !== ne[2];
      const eq = /^([^=]+)==?(.*)$/.exec(t);
      if (eq !== null) return (l) => l[eq[1] ?? ''] === eq[2];
      if (t.startsWith('!')) return (l) => l[t.slice(1)] === undefined;
      return (l) => l[t] !== undefined;
    });
}

/** An open watch: what it selects and where its events go. */
interface Watcher {
  kind: string;
  namespace: string | undefined;
  selector: Requirement[];
  push(event: WatchEvent): void;
}

/** See the module comment. */
export function fakeCluster(o: FakeClusterOptions = {}): FakeCluster {
  const calls: string[] = [];
  const writes: string[] = [];
  const objects = new Map<string, KubeObject>();
  const refusals = new Map<string, Error>(Object.entries(o.refuse ?? {}));
  const watchers = new Set<Watcher>();
  let uid = 0;
  let rv = 0;
  const nextRv = (): string => String(++rv);
  const check = (call: string, type: TypeRef): void => {
    calls.push(call);
    // A review (SelfSubjectAccessReview, TokenReview, ...) is created but stores nothing: not a write.
    if (/^(create|update|status|apply|delete|patch|patch\/status) /.test(call) && !/^create \w+Review /.test(call)) writes.push(call);
    if ((o.unserved ?? []).includes(`${type.apiVersion}/${type.kind}`)) {
      const slash = type.apiVersion.lastIndexOf('/');
      throw new NoKindMatchError({
        group: slash < 0 ? '' : type.apiVersion.slice(0, slash),
        version: type.apiVersion.slice(slash + 1),
        kind: type.kind,
      });
    }
    const refusal = refusals.get(call);
    if (refusal !== undefined) throw refusal;
  };
  /** Runs `f` after `check`, turning what either throws into a rejection. */
  const attempt = <T>(f: () => T): Promise<Awaited<T>> => {
    try {
      return Promise.resolve(f());
    } catch (err) {
      return Promise.reject(err as Error);
    }
  };
  const established = (obj: KubeObject): KubeObject =>
    obj.kind === 'CustomResourceDefinition'
      ? { ...obj, status: { ...(isRecord(obj.status) ? obj.status : {}), conditions: [{ type: 'Established', status: 'True' }] } }
      : obj;
  const notify = (type: WatchEvent['type'], obj: KubeObject): void => {
    for (const w of watchers) {
      if (w.kind !== obj.kind || (w.namespace !== undefined && w.namespace !== '' && w.namespace !== obj.metadata.namespace)) continue;
      if (!w.selector.every((r) => r(obj.metadata.labels ?? {}))) continue;
      w.push({ type, object: structuredClone(obj) });
    }
  };
  /** Stores `obj` under `what` with a new resourceVersion and tells the watches. */
  const store = (what: string, obj: KubeObject): KubeObject => {
    const existed = objects.has(what);
    // An object being deleted goes once its last finalizer is gone.
    if (existed && obj.metadata.deletionTimestamp !== undefined && (obj.metadata.finalizers ?? []).length === 0) {
      objects.delete(what);
      notify('DELETED', obj);
      return obj;
    }
    const stored = { ...obj, metadata: { ...obj.metadata, resourceVersion: nextRv() } };
    objects.set(what, stored);
    notify(existed ? 'MODIFIED' : 'ADDED', stored);
    return stored;
  };
  const liveOf = (what: string): KubeObject => {
    const live = objects.get(what);
    if (live === undefined) throw notFound(what);
    return live;
  };
  const namespaced = (type: TypeRef): boolean => type.kind !== 'CustomResourceDefinition' && !type.kind.startsWith('Cluster');
  const resourceFor = (type: TypeRef): Promise<ResourceInfo> => {
    const slash = type.apiVersion.lastIndexOf('/');
    const gvk = { group: slash < 0 ? '' : type.apiVersion.slice(0, slash), version: type.apiVersion.slice(slash + 1), kind: type.kind };
    if ((o.unserved ?? []).includes(`${type.apiVersion}/${type.kind}`)) return Promise.reject(new NoKindMatchError(gvk));
    return Promise.resolve({
      ...gvk,
      resource: `${type.kind.toLowerCase()}s`,
      namespaced: namespaced(type),
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    });
  };
  const selected = (type: TypeRef, options: ListOptions): KubeObject[] => {
    // Only `metadata.name=<name>` is understood as a field selector.
    const name = /^metadata\.name=(.*)$/.exec(options.fieldSelector ?? '')?.[1];
    const selector = parseSelector(options.labelSelector);
    return [...objects.values()].filter(
      (obj) =>
        obj.kind === type.kind &&
        (options.namespace === undefined || options.namespace === '' || obj.metadata.namespace === options.namespace) &&
        (name === undefined || obj.metadata.name === name) &&
        selector.every((r) => r(obj.metadata.labels ?? {})),
    );
  };
  const itemOf = (obj: KubeObject, metadataOnly: boolean | undefined): KubeObject =>
    metadataOnly === true
      ? { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: structuredClone(obj.metadata) }
      : established(structuredClone(obj));
  const page = <T extends KubeObject>(type: TypeRef, options: ListOptions): ObjectList<T> => {
    check(`list ${type.kind} ${options.namespace ?? ''}`.trimEnd(), type);
    const all = selected(type, options);
    const start = Number(options.continue ?? '0');
    const end = options.limit === undefined ? all.length : Math.min(all.length, start + options.limit);
    const cont = end < all.length ? String(end) : undefined;
    return {
      apiVersion: 'v1',
      kind: `${type.kind}List`,
      metadata: { resourceVersion: String(rv), ...(cont === undefined ? {} : { continue: cont }) },
      items: all.slice(start, end).map((i) => itemOf(i, options.metadataOnly) as T),
    };
  };
  const openWatch = (type: TypeRef, options: ListOptions, onEvent: (event: WatchEvent) => void): Promise<void> => {
    check(`watch ${type.kind} ${options.namespace ?? ''}`.trimEnd(), type);
    const w: Watcher = { kind: type.kind, namespace: options.namespace, selector: parseSelector(options.labelSelector), push: onEvent };
    watchers.add(w);
    return new Promise<void>((resolve) => {
      const end = (): void => {
        watchers.delete(w);
        resolve();
      };
      if (options.signal?.aborted === true) end();
      else options.signal?.addEventListener('abort', end, { once: true });
    });
  };
  const transport: Transport = {
    identity: 'fake-cluster',
    request: <T>(method: string, path: string, options?: Parameters<Transport['request']>[2]): Promise<T> =>
      o.request === undefined
        ? Promise.reject(new ApiError(404, 'NotFound', `${method} ${path}: no such path`))
        : o.request<T>(method, path, options),
    stream: (method: string, path: string): Promise<Readable> => Promise.reject(new ApiError(404, 'NotFound', `${method} ${path}: no streams here`)),
  };
  const client: KubeClient = {
    transport,
    mapper: {
      resolve: (gvk) => resourceFor({ apiVersion: gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`, kind: gvk.kind }),
      hasGroupVersion: () => Promise.resolve(true),
      invalidate: () => undefined,
    },
    resourceFor,
    get: <T extends KubeObject>(ref: ObjectRef) =>
      attempt(() => {
        const what = refName(ref);
        check(`get ${what}`, ref);
        return established(structuredClone(liveOf(what))) as T;
      }),
    list: <T extends KubeObject>(type: TypeRef, options: ListOptions = {}) => attempt(() => page<T>(type, options)),
    listEach: <T extends KubeObject>(type: TypeRef, options: ListOptions, onItem: (item: T) => void) =>
      attempt(() => {
        const { items, ...envelope } = page<T>(type, options);
        for (const item of items) onItem(item);
        return envelope;
      }),
    listAll: <T extends KubeObject>(type: TypeRef, options: Omit<ListOptions, 'continue'> = {}) =>
      attempt(() => {
        const { items, metadata } = page<T>(type, options);
        return { items, resourceVersion: metadata?.resourceVersion ?? '' };
      }),
    create: <T extends KubeObject>(obj: KubeObject, options: { dryRun?: boolean } = {}) =>
      attempt(() => {
        const generated = obj.metadata.name === undefined && obj.metadata.generateName !== undefined;
        const named: KubeObject = generated ? { ...obj, metadata: { ...obj.metadata, name: `${obj.metadata.generateName ?? ''}${uid + 1}` } } : obj;
        const what = describeObject(named);
        check(`${options.dryRun === true ? 'dry-run-create' : 'create'} ${what}`, obj);
        if (objects.has(what)) throw new ApiError(409, 'AlreadyExists', `${what} already exists`);
        const made: KubeObject = { ...structuredClone(named), metadata: { ...structuredClone(named.metadata), uid: `uid-${++uid}` } };
        return structuredClone(options.dryRun === true ? made : store(what, made)) as T;
      }),
    update: <T extends KubeObject>(obj: KubeObject, options: { dryRun?: boolean } = {}) =>
      attempt(() => {
        const what = describeObject(obj);
        check(`${options.dryRun === true ? 'dry-run-update' : 'update'} ${what}`, obj);
        const live = liveOf(what);
        const want = obj.metadata.resourceVersion;
        if (want !== undefined && want !== live.metadata.resourceVersion) throw new ApiError(409, 'Conflict', `the object ${what} has been modified`);
        // The status subresource: a PUT of the object leaves the stored status as it was.
        const { status: _ignored, ...rest } = structuredClone(obj);
        const next: KubeObject = {
          ...rest,
          ...(live.status === undefined ? {} : { status: live.status }),
          metadata: { ...rest.metadata, uid: live.metadata.uid },
        };
        return structuredClone(options.dryRun === true ? next : store(what, next)) as T;
      }),
    updateStatus: <T extends KubeObject>(obj: KubeObject) =>
      attempt(() => {
        const what = describeObject(obj);
        check(`status ${what}`, obj);
        const live = liveOf(what);
        const want = obj.metadata.resourceVersion;
        if (want !== undefined && want !== live.metadata.resourceVersion) throw new ApiError(409, 'Conflict', `the object ${what} has been modified`);
        return structuredClone(store(what, { ...live, status: structuredClone(obj.status) })) as T;
      }),
    patch: <T extends KubeObject>(ref: ObjectRef, patch: unknown, type: 'merge' | 'json' | 'strategic', options: { subresource?: string } = {}) =>
      attempt(() => {
        const what = refName(ref);
        check(`${options.subresource === undefined ? 'patch' : `patch/${options.subresource}`} ${what}`, ref);
        const live = liveOf(what);
        if (type === 'json') {
          const copy = structuredClone(live);
          if (!Array.isArray(patch) || !applyJsonPatch(copy, patch as JsonPatchOp[]))
            throw new ApiError(422, 'Invalid', `the JSON patch of ${what} does not apply`);
          return structuredClone(store(what, copy)) as T;
        }
        if (!isRecord(patch)) throw new ApiError(400, 'BadRequest', 'a merge patch must be an object');
        // A resourceVersion in the patch is a precondition.
        const want = isRecord(patch['metadata']) ? patch['metadata']['resourceVersion'] : undefined;
        if (want !== undefined && want !== live.metadata.resourceVersion) throw new ApiError(409, 'Conflict', `the object ${what} has been modified`);
        // A patch of the object leaves status alone; one of the status subresource only changes status.
        const body = options.subresource === 'status' ? { status: patch['status'] } : { ...patch, status: undefined };
        const merged = mergePatch(live, Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined))) as KubeObject;
        return structuredClone(store(what, { ...merged, metadata: { ...merged.metadata, name: live.metadata.name, uid: live.metadata.uid } })) as T;
      }),
    apply: <T extends KubeObject>(obj: KubeObject, options: { dryRun?: boolean }) =>
      attempt(() => {
        const what = describeObject(obj);
        check(`${options.dryRun === true ? 'dry-run' : 'apply'} ${what}`, obj);
        const old = objects.get(what);
        const merged: KubeObject = {
          ...structuredClone(obj),
          metadata: {
            ...structuredClone(obj.metadata),
            uid: old?.metadata.uid ?? `uid-${++uid}`,
            labels: { ...old?.metadata.labels, ...obj.metadata.labels },
            annotations: { ...old?.metadata.annotations, ...obj.metadata.annotations },
          },
        };
        return established(structuredClone(options.dryRun === true ? merged : store(what, merged))) as T;
      }),
    delete: (ref: ObjectRef, options: { preconditions?: { uid?: string; resourceVersion?: string } } = {}) =>
      attempt(() => {
        const what = refName(ref);
        check(`delete ${what}`, ref);
        const live = liveOf(what);
        const want = options.preconditions;
        if (want?.uid !== undefined && want.uid !== live.metadata.uid) throw new ApiError(409, 'Conflict', 'Precondition failed: UID');
        if (want?.resourceVersion !== undefined && want.resourceVersion !== live.metadata.resourceVersion)
          throw new ApiError(409, 'Conflict', 'Precondition failed: ResourceVersion');
        // Finalizers hold the object, marked for deletion, until they are removed.
        if ((live.metadata.finalizers ?? []).length > 0) {
          const marked =
            live.metadata.deletionTimestamp !== undefined
              ? live
              : store(what, { ...live, metadata: { ...live.metadata, deletionTimestamp: new Date().toISOString() } });
          return structuredClone(marked);
        }
        objects.delete(what);
        notify('DELETED', live);
        return {};
      }),
    async *watch<T extends KubeObject>(type: TypeRef, options: Omit<ListOptions, 'limit' | 'continue' | 'metadataOnly'> = {}) {
      const queue: WatchEvent<T>[] = [];
      let wake: (() => void) | undefined;
      let open = true;
      const closed = openWatch(type, options, (event) => {
        queue.push(event as WatchEvent<T>);
        wake?.();
      }).then(() => {
        open = false;
        wake?.();
      });
      while (open || queue.length > 0) {
        const next = queue.shift();
        if (next !== undefined) yield next;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
      await closed;
    },
    watchEvents: <T extends KubeObject>(
      type: TypeRef,
      options: Omit<ListOptions, 'limit' | 'continue' | 'metadataOnly'>,
      onEvent: (event: WatchEvent<T>) => void,
    ) => attempt(() => openWatch(type, options, onEvent as (event: WatchEvent) => void)),
    createSubresource: <T>(ref: ObjectRef, subresource: string, body: unknown) =>
      attempt(() => {
        const what = refName(ref);
        check(`create/${subresource} ${what}`, ref);
        if (o.subresource === undefined) throw notFound(`${subresource} of ${what}`);
        return o.subresource(ref, subresource, body) as T;
      }),
  };
  return {
    client,
    calls,
    writes,
    objects,
    seed: (obj) => void store(describeObject(obj), { ...structuredClone(obj), metadata: { ...structuredClone(obj.metadata), uid: `seed-${++uid}` } }),
    live: (obj) => objects.get(describeObject(obj)),
    edit: (obj, change) => {
      const what = describeObject(obj);
      const copy = structuredClone(liveOf(what));
      change(copy);
      store(what, copy);
    },
    refuse: (call, error) => void (error === undefined ? refusals.delete(call) : refusals.set(call, error)),
  };
}
