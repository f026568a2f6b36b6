import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ApiError, type KubeClient } from '../kube/index.ts';
import type { KubeObject, ObjectRef } from '../unstructured/index.ts';
import { migrateStoredVersions } from './migrate.ts';

const CRD_NAME = 'widgets.example.test';

interface Fake {
  client: Pick<KubeClient, 'get' | 'list' | 'patch'>;
  crd: KubeObject;
  objects: Map<string, KubeObject>;
  updates: string[];
  statusUpdates: Array<{ name: string; patch: unknown }>;
  listCalls: Array<string | undefined>;
}

const conflict = () => new ApiError(409, 'Conflict', 'the object has been modified');
const notFound = () => new ApiError(404, 'NotFound', 'not found');
const gone = () => new ApiError(410, 'Expired', 'continue token expired');

function fake(opts: {
  names: string[];
  conflictsOn?: Record<string, number>;
  deleted?: string[];
  goneOnce?: boolean;
  storageAfterRewrite?: string;
}): Fake {
  const crd: KubeObject = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: CRD_NAME, resourceVersion: '1' },
    spec: {
      group: 'example.test',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [
        { name: 'v1alpha1', served: true, storage: false },
        { name: 'v1', served: true, storage: true },
      ],
    },
    status: { storedVersions: ['v1alpha1', 'v1'], conditions: [] },
  };
  const objects = new Map(opts.names.map((n) => [n, { apiVersion: 'example.test/v1', kind: 'Widget', metadata: { name: n, resourceVersion: '1' } }]));
  const conflicts = { ...opts.conflictsOn };
  let goneOnce = opts.goneOnce ?? false;
  const f: Fake = { crd, objects, updates: [], statusUpdates: [], listCalls: [] } as unknown as Fake;
  f.client = {
    get: (async (ref: ObjectRef) => {
      if (ref.kind === 'CustomResourceDefinition') {
        if (f.updates.length === opts.names.length && opts.storageAfterRewrite !== undefined)
          return structuredClone({
            ...crd,
            spec: {
              ...(crd.spec as object),
              versions: [
                { name: 'v1', storage: false },
                { name: opts.storageAfterRewrite, storage: true },
              ],
            },
          });
        return structuredClone(crd);
      }
      const o = objects.get(ref.name);
      if (o === undefined) throw notFound();
      return structuredClone(o);
    }) as KubeClient['get'],
    list: (async (_type: unknown, o: { limit?: number; continue?: string }) => {
      f.listCalls.push(o.continue);
      if (o.continue !== undefined && goneOnce) {
        goneOnce = false;
        throw gone();
      }
      const names = [...opts.names].sort();
      const start = o.continue === undefined ? 0 : Number(o.continue);
      const end = start + (o.limit ?? 100);
      return {
        apiVersion: 'example.test/v1',
        kind: 'WidgetList',
        metadata: end < names.length ? { continue: String(end) } : {},
        items: names.slice(start, end).map((n) => ({ metadata: { name: n, resourceVersion: '1' } })),
      };
    }) as unknown as KubeClient['list'],
    patch: (async (ref: ObjectRef, patch: unknown, type: string, o?: { subresource?: string }) => {
      expect(type).toBe('merge');
      if (ref.kind === 'CustomResourceDefinition') {
        expect(o?.subresource).toBe('status');
        f.statusUpdates.push({ name: ref.name, patch });
        return crd;
      }
      expect(ref.apiVersion).toBe('example.test/v1');
      expect(patch).toEqual({});
      if (opts.deleted?.includes(ref.name)) throw notFound();
      if ((conflicts[ref.name] ?? 0) > 0) {
        conflicts[ref.name] = (conflicts[ref.name] ?? 0) - 1;
        throw conflict();
      }
      f.updates.push(ref.name);
      return objects.get(ref.name);
    }) as KubeClient['patch'],
  };
  return f;
}

const ports = (f: Fake, pageSize = 2) => ({
  client: f.client,
  log: pino({ level: 'silent' }),
  signal: new AbortController().signal,
  pageSize,
  retryInitialMs: 1,
});

describe('migrateStoredVersions', () => {
  it('rewrites every object page by page, then trims storedVersions to the storage version', async () => {
    const f = fake({ names: ['a', 'b', 'c', 'd', 'e'] });
    const outcomes = await migrateStoredVersions([CRD_NAME], ports(f));
    expect(outcomes).toEqual([{ crd: CRD_NAME, outcome: 'migrated', from: ['v1alpha1'], to: 'v1', rewritten: 5 }]);
    expect(f.updates.sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(f.listCalls).toEqual([undefined, '2', '4']);
    expect(f.statusUpdates).toHaveLength(1);
    expect(f.statusUpdates[0]).toEqual({ name: CRD_NAME, patch: { metadata: { resourceVersion: '1' }, status: { storedVersions: ['v1'] } } });
  });

  it("retries an object's write after a conflict, skips one deleted meanwhile, and starts the list over when its token expired", async () => {
    const f = fake({ names: ['a', 'b', 'c'], conflictsOn: { b: 2 }, deleted: ['c'], goneOnce: true });
    const outcomes = await migrateStoredVersions([CRD_NAME], ports(f));
    // a and b written twice (the first page again after the restart), c deleted.
    expect(outcomes).toEqual([{ crd: CRD_NAME, outcome: 'migrated', from: ['v1alpha1'], to: 'v1', rewritten: 4 }]);
    expect(f.updates).toEqual(['a', 'b', 'a', 'b']);
    expect(f.listCalls).toEqual([undefined, '2', undefined, '2']);
    expect(f.statusUpdates).toHaveLength(1);
  });

  it('leaves a CRD alone whose stored versions are current, or that is not installed', async () => {
    const f = fake({ names: ['a'] });
    (f.crd.status as { storedVersions: string[] }).storedVersions = ['v1'];
    expect(await migrateStoredVersions([CRD_NAME], ports(f))).toEqual([{ crd: CRD_NAME, outcome: 'current' }]);
    expect(f.updates).toEqual([]);
    const missing = fake({ names: [] });
    missing.client.get = (async () => {
      throw notFound();
    }) as KubeClient['get'];
    expect(await migrateStoredVersions([CRD_NAME], ports(missing))).toEqual([
      { crd: CRD_NAME, outcome: 'skipped', reason: 'the CRD is not installed' },
    ]);
  });

  it('does not trim storedVersions when the storage version changed during the rewrite', async () => {
    const f = fake({ names: ['a'], storageAfterRewrite: 'v2' });
    const [outcome] = await migrateStoredVersions([CRD_NAME], ports(f));
    expect(outcome).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(/changed from v1 to v2/) });
    expect(f.statusUpdates).toEqual([]);
  });

  it('reports a CRD failed after its tries, and goes on with the next', async () => {
    const f = fake({ names: ['a'] });
    let lists = 0;
    f.client.list = (async () => {
      lists++;
      throw new ApiError(500, 'InternalError', 'etcd is down');
    }) as unknown as KubeClient['list'];
    const other = 'gadgets.example.test';
    const get = f.client.get;
    f.client.get = (async (ref: ObjectRef) => {
      if (ref.name === other) throw notFound();
      return get(ref);
    }) as KubeClient['get'];
    const outcomes = await migrateStoredVersions([CRD_NAME, other], { ...ports(f), attempts: 3 });
    expect(outcomes[0]).toMatchObject({ crd: CRD_NAME, outcome: 'failed' });
    expect(outcomes[1]).toMatchObject({ crd: other, outcome: 'skipped' });
    expect(lists).toBe(3);
    expect(f.statusUpdates).toEqual([]);
  });
});
