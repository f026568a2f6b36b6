/**
 * An in-memory stand-in for the API server, for the applier's unit tests only: objects keyed
 * by kind, namespace and name with labels, annotations and uids; server-side apply (merging
 * labels and annotations, as an apply by one manager over others' metadata does), dry runs
 * that write nothing, metadata-only lists (by name or by equality label selector),
 * conditional deletes, merge patches of annotations and JSON patches of `test` and `remove`
 * operations (an unmet test is the API server's 422). CRDs are Established at once. Every request is recorded in `calls` as
 * `<verb> <Kind ns/name>` (`list <Kind> <ns>` for lists); refusals are injected per call.
 */
import { ApiError, NoKindMatchError, type KubeClient, type KubeObject, type ObjectRef, type TypeRef } from '../../pkg/shared/kube/index.ts';
import { describeObject } from '../../pkg/operator-controller/applier/index.ts';

/** A fake cluster: its objects, the calls made and the client to pass to the applier. */
export interface FakeCluster {
  client: KubeClient;
  /** Every request, in order. */
  calls: string[];
  /** The writes among them (apply, delete, patch; not dry runs), in order. */
  writes: string[];
  /** Live objects by `Kind ns/name`. */
  objects: Map<string, KubeObject>;
  /** Puts `obj` in the cluster as someone else made it (a uid is added). */
  seed(obj: KubeObject): void;
  /** The live object named like `obj`, if any. */
  live(obj: { kind: string; metadata: { name?: string; namespace?: string } }): KubeObject | undefined;
}

/** Options of fakeCluster. */
export interface FakeClusterOptions {
  /** Errors thrown for a call, by its text in `calls` (e.g. `delete ConfigMap ns/a`, `dry-run Service ns/s`). */
  refuse?: Record<string, Error>;
  /** Kinds the cluster does not serve (NoKindMatchError), as `apiVersion/Kind`. */
  unserved?: string[];
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

/** Applies `ops` (`test` and `remove`) to `target` in place; false when one does not apply. */
function applyJsonPatch(target: unknown, ops: readonly JsonPatchOp[]): boolean {
  for (const { op, path, value } of ops) {
    const keys = path.split('/').slice(1);
    const last = keys.pop();
    let parent: unknown = target;
    for (const k of keys) parent = (parent as Record<string, unknown> | undefined)?.[k];
    if (parent === undefined || parent === null || last === undefined) return false;
    const container = parent as Record<string, unknown> & unknown[];
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

/** See the module comment. */
export function fakeCluster(o: FakeClusterOptions = {}): FakeCluster {
  const calls: string[] = [];
  const writes: string[] = [];
  const objects = new Map<string, KubeObject>();
  let uid = 0;
  const check = (call: string, type: TypeRef): void => {
    calls.push(call);
    if (/^(apply|delete|patch) /.test(call)) writes.push(call);
    if ((o.unserved ?? []).includes(`${type.apiVersion}/${type.kind}`)) {
      const slash = type.apiVersion.lastIndexOf('/');
      throw new NoKindMatchError({
        group: slash < 0 ? '' : type.apiVersion.slice(0, slash),
        version: type.apiVersion.slice(slash + 1),
        kind: type.kind,
      });
    }
    const refusal = o.refuse?.[call];
    if (refusal !== undefined) throw refusal;
  };
  const established = (obj: KubeObject): KubeObject =>
    obj.kind === 'CustomResourceDefinition' ? { ...obj, status: { conditions: [{ type: 'Established', status: 'True' }] } } : obj;
  const client = {
    resourceFor: (type: TypeRef) => Promise.resolve({ namespaced: type.kind !== 'CustomResourceDefinition' && !type.kind.startsWith('Cluster') }),
    get: (ref: ObjectRef) => {
      const what = refName(ref);
      check(`get ${what}`, ref);
      const found = objects.get(what);
      return found === undefined ? Promise.reject(notFound(what)) : Promise.resolve(established(structuredClone(found)));
    },
    listAll: (type: TypeRef, options: { namespace?: string; fieldSelector?: string; labelSelector?: string } = {}) => {
      check(`list ${type.kind} ${options.namespace ?? ''}`.trimEnd(), type);
      // Only `metadata.name=<name>` is understood (what the applier sends).
      const name = /^metadata\.name=(.*)$/.exec(options.fieldSelector ?? '')?.[1];
      // Equality terms only (`k=v,k2=v2`).
      const terms = (options.labelSelector ?? '')
        .split(',')
        .filter((t) => t !== '')
        .map((t) => t.split('=') as [string, string]);
      const items = [...objects.values()].filter(
        (obj) =>
          obj.kind === type.kind &&
          (options.namespace === undefined || obj.metadata.namespace === options.namespace) &&
          (name === undefined || obj.metadata.name === name) &&
          terms.every(([k, v]) => obj.metadata.labels?.[k] === v),
      );
      return Promise.resolve({
        items: items.map((i) => ({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: structuredClone(i.metadata) })),
        resourceVersion: '1',
      });
    },
    apply: (obj: KubeObject, options: { dryRun?: boolean }) => {
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
      if (options.dryRun !== true) objects.set(what, merged);
      return Promise.resolve(established(merged));
    },
    patch: (ref: ObjectRef, patch: { metadata?: { annotations?: Record<string, string | null> } } | JsonPatchOp[], type: string) => {
      const what = refName(ref);
      check(`patch ${what}`, ref);
      const live = objects.get(what);
      if (live === undefined) return Promise.reject(notFound(what));
      if (type === 'json') {
        const copy = structuredClone(live);
        if (!Array.isArray(patch) || !applyJsonPatch(copy, patch))
          return Promise.reject(new ApiError(422, 'Invalid', `the JSON patch of ${what} does not apply`));
        objects.set(what, copy);
        return Promise.resolve(copy);
      }
      if (Array.isArray(patch)) return Promise.reject(new ApiError(400, 'BadRequest', 'a merge patch must be an object'));
      const annotations: Record<string, string> = { ...live.metadata.annotations };
      for (const [k, v] of Object.entries(patch.metadata?.annotations ?? {})) {
        if (v === null) delete annotations[k];
        else annotations[k] = v;
      }
      live.metadata.annotations = annotations;
      return Promise.resolve(live);
    },
    delete: (ref: ObjectRef, options: { preconditions?: { uid?: string } } = {}) => {
      const what = refName(ref);
      check(`delete ${what}`, ref);
      const live = objects.get(what);
      if (live === undefined) return Promise.reject(notFound(what));
      const want = options.preconditions?.uid;
      if (want !== undefined && want !== live.metadata.uid) return Promise.reject(new ApiError(409, 'Conflict', 'Precondition failed: UID'));
      objects.delete(what);
      return Promise.resolve({});
    },
  };
  return {
    client: client as unknown as KubeClient,
    calls,
    writes,
    objects,
    seed: (obj) =>
      void objects.set(describeObject(obj), { ...structuredClone(obj), metadata: { ...structuredClone(obj.metadata), uid: `seed-${++uid}` } }),
    live: (obj) => objects.get(describeObject(obj)),
  };
}
