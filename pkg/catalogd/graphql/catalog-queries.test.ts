import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Meta } from '../../shared/fbc/types.ts';
import type { LocalDirStore, StoredVersion } from '../storage/index.ts';
import { storeWith } from '../../../test/support/catalog-store.ts';
import { CatalogQueries } from './catalog-queries.ts';

const BUNDLES = 300;
const PAD = 20_000;

function bundle(i: number): Meta {
  const obj = {
    image: `registry.test/b:${i}`,
    name: `b.v${i}`,
    package: `p${i % 10}`,
    properties: [{ type: 'olm.csv.metadata', value: { description: 'd'.repeat(PAD) } }],
    schema: 'olm.bundle',
  };
  return { schema: 'olm.bundle', package: obj.package, name: obj.name, blob: `${JSON.stringify(obj)}\n` };
}

const errorsOf = (answer: string | undefined): unknown => JSON.parse(answer ?? 'null') as unknown;

describe('CatalogQueries bounds', () => {
  let store: LocalDirStore;
  let v: StoredVersion;
  let remove: () => Promise<void>;

  beforeAll(async () => {
    ({
      store,
      version: v,
      remove,
    } = await storeWith(
      'graphql-bounds-',
      'big',
      Array.from({ length: BUNDLES }, (_, i) => bundle(i)),
    ));
  });
  afterAll(() => remove());

  it('pages through a schema in catalog order', async () => {
    const q = new CatalogQueries();
    const names = async (offset: number): Promise<unknown> =>
      errorsOf(await q.query(v, { query: `{ olmbundles(limit: 2, offset: ${offset}) { name } }` }));
    expect(await names(0)).toEqual({ data: { olmbundles: [{ name: 'b.v0' }, { name: 'b.v1' }] } });
    expect(await names(299)).toEqual({ data: { olmbundles: [{ name: 'b.v299' }] } });
    expect(await names(300)).toEqual({ data: { olmbundles: [] } });
  });

  it('stops a query that reads more catalog content than allowed', async () => {
    const q = new CatalogQueries({ maxLoadBytes: 1 << 20 });
    const pages = Array.from({ length: 3 }, (_, i) => `p${i}: olmbundles(offset: ${i * 100}) { name }`).join(' ');
    expect(errorsOf(await q.query(v, { query: `{ ${pages} }` }))).toEqual({
      data: null,
      errors: [{ message: 'query reads more than 1048576 bytes of catalog content', locations: [] }],
    });
    // One page fits.
    expect(errorsOf(await q.query(v, { query: '{ olmbundles(limit: 40) { name } }' }))).toMatchObject({ data: { olmbundles: expect.any(Array) } });
  });

  it('stops a query whose answer grows past the bound (aliases repeating a large field)', async () => {
    const q = new CatalogQueries({ maxAnswerBytes: 4 << 20 });
    const repeated = Array.from({ length: 40 }, (_, i) => `v${i}: properties { value }`).join(' ');
    const started = performance.now();
    expect(errorsOf(await q.query(v, { query: `{ olmbundles { ${repeated} } }` }))).toEqual({
      data: null,
      errors: [{ message: 'query answer exceeds 4194304 bytes', locations: [] }],
    });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('stops a query at its time limit, also one that waits for a slot', async () => {
    // A version whose content reads never complete, after discovery: a stuck disk.
    let hang = false;
    const stuck = new Proxy(v, {
      get(target, prop, receiver) {
        if (prop === 'readRangesInto' && hang) return () => new Promise(() => undefined);
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    // Long enough for a new worker thread to start on a busy machine.
    const q = new CatalogQueries({ timeoutMs: 2_000, maxConcurrent: 1 });
    expect(errorsOf(await q.query(stuck, { query: '{ summary { totalSchemas } }' }))).toEqual({ data: { summary: { totalSchemas: 1 } } });
    hang = true;
    const answers = await Promise.all([1, 2].map(() => q.query(stuck, { query: '{ olmbundles { name } }' })));
    for (const a of answers) {
      expect(errorsOf(a)).toEqual({ data: null, errors: [{ message: 'query exceeded the time limit of 2s', locations: [] }] });
    }
  });

  it('counts introspection in the answer bound', async () => {
    const q = new CatalogQueries({ maxAnswerBytes: 2_000 });
    const small = errorsOf(await q.query(v, { query: '{ __schema { queryType { name } } }' }));
    expect(small).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
    const types = '{ __schema { types { name description fields { name description args { name description } } } } }';
    expect(errorsOf(await q.query(v, { query: types }))).toEqual({
      data: null,
      errors: [{ message: 'query answer exceeds 2000 bytes', locations: [] }],
    });
  });

  it("bounds a query's memory by its worker's heap, not catalogd's", async () => {
    // No answer bound to speak of: the worker's heap stops the query (80 MB of answer).
    const q = new CatalogQueries({ maxAnswerBytes: 1 << 30, workerHeapMb: 16 });
    const repeated = Array.from({ length: 40 }, (_, i) => `v${i}: properties { value }`).join(' ');
    expect(errorsOf(await q.query(v, { query: `{ olmbundles { ${repeated} } }` }))).toEqual({
      data: null,
      errors: [{ message: 'query exceeds the memory limit of 16 MiB', locations: [] }],
    });
    // The next query gets a new worker.
    expect(errorsOf(await q.query(v, { query: '{ olmbundles(limit: 1) { name } }' }))).toEqual({ data: { olmbundles: [{ name: 'b.v0' }] } });
  });

  it('keeps a worker for the next query while in use, and ends it when idle', async () => {
    const q = new CatalogQueries({ workerIdleMs: 200 });
    expect(q.idleWorkers).toBe(0);
    await q.query(v, { query: '{ summary { totalSchemas } }' });
    expect(q.idleWorkers).toBe(1);
    await q.query(v, { query: '{ summary { totalSchemas } }' });
    expect(q.idleWorkers).toBe(1);
    await expect.poll(() => q.idleWorkers, { timeout: 5_000 }).toBe(0);
  });

  it('a catalog whose schemas collide in GraphQL fails its queries, once discovered', async () => {
    const metas = ['olm.thing', 'olm-thing'].map((schema) => ({
      schema,
      package: '',
      name: 'x',
      blob: `${JSON.stringify({ name: 'x', schema })}\n`,
    }));
    await store.store('clash', { digest: `sha256:${'d'.repeat(64)}`, ref: 'r.test/clash', unpackedAt: '2026-01-01T00:00:00Z' }, { metas });
    const clash = store.get('clash');
    if (clash === undefined) throw new Error('not stored');
    const q = new CatalogQueries();
    for (let i = 0; i < 2; i++) {
      await expect(q.query(clash, { query: '{ summary { totalSchemas } }' })).rejects.toMatchObject({
        message: 'GraphQL query of catalog clash failed',
        cause: { message: 'schemas "olm.thing" and "olm-thing" both map to GraphQL type "OlmThing"' },
      });
    }
  });
});
