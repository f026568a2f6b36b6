/**
 * Secrets in memory for pkg/operator-controller/release's unit tests: the calls of KubeClient the release store
 * makes (listAll with equality label selectors, get, create, update with optimistic
 * concurrency, merge patch of ownerReferences, delete), label values checked as the API server
 * checks them, and a write budget past which every write throws Crash without taking effect
 * (the crash tests). The real API server's behaviour is proven in
 * test/integration/release-store.test.ts.
 */
import { ApiError, type KubeClient, type KubeObject, type ObjectRef, type TypeRef } from '../../pkg/shared/kube/index.ts';
import { fakeCluster } from './fake-cluster.ts';

/** Secrets by name. */
export type SecretStore = Map<string, KubeObject>;

/** What a write past the budget throws. */
export class Crash extends Error {}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Refuses, as the API server does, a Secret with a label value that is not one. */
function checkLabels(obj: KubeObject): void {
  for (const [k, v] of Object.entries(obj.metadata.labels ?? {})) {
    if (v.length > 63 || !LABEL_VALUE.test(v)) {
      throw new ApiError(422, 'Invalid', `Secret "${obj.metadata.name ?? ''}" is invalid: metadata.labels: Invalid value: "${v}" (label ${k})`);
    }
  }
}

/** A client over `objects`; writes beyond `budget` throw Crash without taking effect. */
export function fakeSecrets(objects: SecretStore, budget = Number.POSITIVE_INFINITY): { client: KubeClient; writes: () => number } {
  let writes = 0;
  let rv = 100;
  const write = () => {
    writes++;
    if (writes > budget) throw new Crash('crash');
  };
  const notFound = (name: string) => new ApiError(404, 'NotFound', `secrets "${name}" not found`);
  const matches = (obj: KubeObject, selector: string | undefined) =>
    (selector ?? '')
      .split(',')
      .filter(Boolean)
      .every((req) => {
        const [k, v] = req.split('=');
        return obj.metadata.labels?.[k ?? ''] === v;
      });
  // The calls the store makes answered over `objects`; the rest of KubeClient is fakeCluster's.
  const client: KubeClient = {
    ...fakeCluster().client,
    async listAll<T extends KubeObject>(_t: TypeRef, o: { labelSelector?: string } = {}) {
      return {
        items: [...objects.values()].filter((s) => matches(s, o.labelSelector)).map((s) => structuredClone(s) as T),
        resourceVersion: String(rv),
      };
    },
    async get<T extends KubeObject>(ref: ObjectRef) {
      const obj = objects.get(ref.name);
      if (obj === undefined) throw notFound(ref.name);
      return structuredClone(obj) as T;
    },
    async create<T extends KubeObject>(obj: KubeObject) {
      write();
      checkLabels(obj);
      const name = obj.metadata.name ?? '';
      if (objects.has(name)) throw new ApiError(409, 'AlreadyExists', `secrets "${name}" already exists`);
      const stored = structuredClone({ ...obj, metadata: { ...obj.metadata, uid: `uid-${++rv}`, resourceVersion: String(rv) } });
      objects.set(name, stored);
      return structuredClone(stored) as T;
    },
    async update<T extends KubeObject>(obj: KubeObject) {
      write();
      checkLabels(obj);
      const name = obj.metadata.name ?? '';
      const cur = objects.get(name);
      if (cur === undefined) throw notFound(name);
      if (obj.metadata.resourceVersion !== cur.metadata.resourceVersion) throw new ApiError(409, 'Conflict', 'conflict');
      const stored = structuredClone({ ...obj, metadata: { ...obj.metadata, uid: cur.metadata.uid, resourceVersion: String(++rv) } });
      objects.set(name, stored);
      return structuredClone(stored) as T;
    },
    async patch<T extends KubeObject>(ref: ObjectRef, patch: unknown) {
      write();
      const cur = objects.get(ref.name);
      if (cur === undefined) throw notFound(ref.name);
      cur.metadata.ownerReferences = structuredClone((patch as { metadata: { ownerReferences: unknown } }).metadata.ownerReferences) as never;
      return {} as T;
    },
    async delete(ref: ObjectRef) {
      write();
      if (!objects.delete(ref.name)) throw notFound(ref.name);
      return {};
    },
  };
  return { client, writes: () => writes };
}
