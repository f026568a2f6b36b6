import { gunzipSync } from 'node:zlib';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Meta } from '../../shared/fbc/types.ts';
import { CatalogQueries } from '../graphql/index.ts';
import { LocalDirStore } from '../storage/index.ts';
import { type CatalogServer, buildCatalogServer } from './server.ts';
import { storeWith } from '../../../test/support/catalog-store.ts';
import { type ExchangeResponse, exchange } from '../../../test/support/http-exchange.ts';

function meta(obj: Record<string, unknown>): Meta {
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return { schema: str(obj.schema), package: str(obj.package), name: str(obj.name), blob: `${JSON.stringify(obj)}\n` };
}

const bundle = (version: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  schema: 'olm.bundle',
  name: `foo.v${version}`,
  package: 'foo',
  image: `registry.test/foo-bundle:v${version}`,
  properties: [
    { type: 'olm.package', value: { packageName: 'foo', version } },
    { type: 'olm.gvk', value: { group: 'foo.test', kind: 'Foo', version: 'v1' } },
  ],
  relatedImages: [{ name: '', image: `registry.test/foo:v${version}` }],
  ...extra,
});

const BLOBS = [
  {
    schema: 'olm.package',
    name: 'foo',
    defaultChannel: 'stable',
    description: 'Foo <operator> & co',
    icon: { base64data: 'AAAA', mediatype: 'image/svg+xml' },
  },
  {
    schema: 'olm.channel',
    name: 'stable',
    package: 'foo',
    entries: [{ name: 'foo.v1.0.0' }, { name: 'foo.v1.1.0', replaces: 'foo.v1.0.0', skips: ['foo.v0.9.0'] }],
  },
  bundle('1.0.0'),
  bundle('1.1.0', { skipRange: '<1.1.0' }),
  { schema: 'olm.package', name: 'bar', defaultChannel: 'alpha' },
  { schema: 'olm.deprecations', package: 'foo', entries: [{ reference: { schema: 'olm.bundle', name: 'foo.v1.0.0' }, message: 'old' }] },
].map(meta);

describe('GraphQL endpoint', () => {
  let remove: () => Promise<void>;
  let store: LocalDirStore;
  let app: CatalogServer;
  let off: CatalogServer;
  let origin: string;
  let offOrigin: string;
  const post = (body: unknown, catalog = 'test-catalog'): Promise<ExchangeResponse> =>
    exchange(origin, {
      method: 'POST',
      url: `/catalogs/${catalog}/api/v1/graphql`,
      headers: { 'content-type': 'application/json' },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const query = async (q: string): Promise<unknown> => {
    const res = await post({ query: q });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    return JSON.parse(res.body);
  };

  beforeAll(async () => {
    ({ store, remove } = await storeWith('graphql-test-', 'test-catalog', BLOBS));
    app = buildCatalogServer({ content: store, logger: pino({ level: 'error' }), registry: new Registry(), graphql: new CatalogQueries() });
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
    off = buildCatalogServer({ content: store, logger: pino({ level: 'silent' }), registry: new Registry() });
    offOrigin = await off.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app.close();
    await off.close();
    await remove();
  });

  describe("upstream's documented queries", () => {
    it('summary: schemas with their object and field counts', async () => {
      expect(await query('{ summary { totalSchemas schemas { name totalObjects totalFields } } }')).toEqual({
        data: {
          summary: {
            totalSchemas: 4,
            schemas: [
              { name: 'olm.bundle', totalObjects: 2, totalFields: 7 },
              { name: 'olm.channel', totalObjects: 1, totalFields: 4 },
              { name: 'olm.deprecations', totalObjects: 1, totalFields: 3 },
              { name: 'olm.package', totalObjects: 2, totalFields: 5 },
            ],
          },
        },
      });
    });

    it('bundles with limit and offset, keys sorted and HTML escaped as Go writes them', async () => {
      const res = await post({ query: '{ olmbundles(limit: 5, offset: 0) { name package image } }' });
      expect(res.body).toBe(
        '{"data":{"olmbundles":[{"image":"registry.test/foo-bundle:v1.0.0","name":"foo.v1.0.0","package":"foo"},' +
          '{"image":"registry.test/foo-bundle:v1.1.0","name":"foo.v1.1.0","package":"foo"}]}}\n',
      );
      expect(await query('{ olmbundles(limit: 10, offset: 1) { name skipRange } }')).toEqual({
        data: { olmbundles: [{ name: 'foo.v1.1.0', skipRange: '<1.1.0' }] },
      });
      const pkgs = await post({ query: '{ olmpackages(limit: 10) { name description defaultChannel } }' });
      expect(pkgs.body).toContain('"description":"Foo \\u003coperator\\u003e \\u0026 co"');
    });

    it('objects are JSON text: icon, and property values', async () => {
      expect(await query('{ olmpackages { name icon } }')).toEqual({
        data: {
          olmpackages: [
            { name: 'foo', icon: '{"base64data":"AAAA","mediatype":"image/svg+xml"}' },
            { name: 'bar', icon: null },
          ],
        },
      });
      const props = (await query('{ olmbundles(limit: 5) { name properties { type value } } }')) as {
        data: { olmbundles: Array<{ properties: Array<{ type: string; value: string }> }> };
      };
      expect(props.data.olmbundles[0]?.properties[0]).toEqual({ type: 'olm.package', value: '{"packageName":"foo","version":"1.0.0"}' });
    });

    it('channel entries as nested objects; a list field of scalars answers its array', async () => {
      expect(await query('{ olmchannels(limit: 10) { name package entries { name replaces skips } } }')).toEqual({
        data: {
          olmchannels: [
            {
              name: 'stable',
              package: 'foo',
              entries: [
                { name: 'foo.v1.0.0', replaces: null, skips: null },
                { name: 'foo.v1.1.0', replaces: 'foo.v1.0.0', skips: ['foo.v0.9.0'] },
              ],
            },
          ],
        },
      });
    });

    it('errors as upstream shapes them: data null, message and locations', async () => {
      const body = (await query('{ olmchannels { name package entries } }')) as {
        data: unknown;
        errors: Array<{ message: string; locations: unknown[] }>;
      };
      expect(body.data).toBeNull();
      expect(body.errors[0]?.message).toMatch(/^Field "entries" of type "\[OlmChannelEntries\]" must have a selection of subfields/);
      expect(body.errors[0]?.locations).toEqual([{ line: 1, column: 30 }]);
      const unknown = (await query('{ olmpackages { name channels { name } } }')) as { errors: Array<{ message: string }> };
      expect(unknown.errors[0]?.message).toBe('Cannot query field "channels" on type "OlmPackage".');
    });

    it('introspection lists the root fields', async () => {
      const body = (await query('{ __schema { queryType { fields { name } } } }')) as {
        data: { __schema: { queryType: { fields: Array<{ name: string }> } } };
      };
      expect(body.data.__schema.queryType.fields.map((f) => f.name).sort()).toEqual([
        'olmbundles',
        'olmchannels',
        'olmdeprecationss',
        'olmpackages',
        'summary',
      ]);
    });

    it('variables and operationName are honoured', async () => {
      const res = await post({
        query: 'query A($n: Int) { olmbundles(limit: $n) { name } } query B { summary { totalSchemas } }',
        variables: { n: 1 },
        operationName: 'A',
      });
      expect(JSON.parse(res.body)).toEqual({ data: { olmbundles: [{ name: 'foo.v1.0.0' }] } });
    });
  });

  describe('request handling as upstream', () => {
    it('gzip when accepted, for answers of 1024 bytes or more', async () => {
      const query = `{ ${[1, 2, 3, 4].map((i) => `a${i}: olmbundles { name properties { type value } }`).join(' ')} }`;
      const payload = JSON.stringify({ query });
      const headers = { 'content-type': 'application/json', 'accept-encoding': 'gzip' };
      const big = await exchange(origin, { method: 'POST', url: '/catalogs/test-catalog/api/v1/graphql', headers, payload });
      expect(big.headers['content-encoding']).toBe('gzip');
      const text = gunzipSync(big.rawPayload).toString();
      expect(text.length).toBeGreaterThanOrEqual(1024);
      expect(JSON.parse(text)).toMatchObject({ data: { a1: [{ name: 'foo.v1.0.0' }, { name: 'foo.v1.1.0' }] } });
      const small = await exchange(origin, {
        method: 'POST',
        url: '/catalogs/test-catalog/api/v1/graphql',
        headers,
        payload: '{"query":"{ summary { totalSchemas } }"}',
      });
      expect([small.headers['content-encoding'], small.body]).toEqual([undefined, '{"data":{"summary":{"totalSchemas":4}}}\n']);
    });

    it('gate off: 404 page not found', async () => {
      const res = await exchange(offOrigin, {
        method: 'POST',
        url: '/catalogs/test-catalog/api/v1/graphql',
        payload: '{"query":"{ summary { totalSchemas } }"}',
      });
      expect(res.statusCode).toBe(404);
      expect(res.body).toBe('404 page not found\n');
    });

    it('GET and HEAD are 405', async () => {
      for (const method of ['GET', 'HEAD', 'PUT']) {
        const res = await exchange(origin, { method, url: '/catalogs/test-catalog/api/v1/graphql' });
        expect(res.statusCode).toBe(405);
        if (method !== 'HEAD') expect(res.body).toBe('Method Not Allowed\n');
      }
    });

    it.each([
      ['not JSON', '{query', 400, 'Invalid request body\n'],
      ['a query that is not a string', '{"query":5}', 400, 'Invalid request body\n'],
      ['no query', '{}', 400, 'Query cannot be empty\n'],
      ['a query over 100000 bytes', JSON.stringify({ query: `{ summary { totalSchemas } }${' '.repeat(100_000)}` }), 400, 'Query too large\n'],
      ['a body over 1 MiB', JSON.stringify({ query: '{ summary { totalSchemas } }', pad: 'x'.repeat(1 << 20) }), 400, 'Invalid request body\n'],
      [
        'a body nested 65 deep',
        `{"query":"{ summary { totalSchemas } }","variables":{"v":${'['.repeat(63)}${']'.repeat(63)}}}`,
        400,
        'Invalid request body\n',
      ],
      ['a body nested 64 deep', `{"query":"{ summary { totalSchemas } }","variables":{"v":${'['.repeat(62)}${']'.repeat(62)}}}`, 200, undefined],
    ])('%s: %d', async (_what, payload, status, body) => {
      const res = await post(payload);
      expect(res.statusCode).toBe(status);
      if (body !== undefined) expect(res.body).toBe(body);
    });

    it('refuses 1 MiB of "[" before parsing it, in well under the time V8 takes to parse it', async () => {
      const started = performance.now();
      const res = await post('['.repeat((1 << 20) - 1));
      expect(res.statusCode).toBe(400);
      expect(res.body).toBe('Invalid request body\n');
      // JSON.parse of it alone takes ~1 s here; the scan stops at the 65th byte.
      expect(performance.now() - started).toBeLessThan(500);
    });

    it('a missing catalog is 404 Not Found, an invalid name 400', async () => {
      expect((await post({ query: '{ summary { totalSchemas } }' }, 'nope')).body).toBe('404 Not Found\n');
      expect((await post({ query: '{ summary { totalSchemas } }' }, 'No_Way')).statusCode).toBe(400);
    });
  });

  describe('bounds', () => {
    it("refuses a query deeper than 10, with upstream's message, before looking at the catalog", async () => {
      const deep = `{ ${'a { '.repeat(11)}b${' }'.repeat(11)} }`;
      for (const catalog of ['test-catalog', 'nope']) {
        const res = await post({ query: deep }, catalog);
        expect(res.statusCode).toBe(200);
        expect(res.body).toBe('{"data":null,"errors":[{"message":"query exceeds maximum depth of 10","locations":[]}]}\n');
      }
    });

    it('a query nested beyond what the parser can take is a parse error, not a crash', async () => {
      const res = await post({ query: `${'{a'.repeat(30_000)}${'}'.repeat(30_000)}` });
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(res.body).errors[0].message).toMatch(/^query (parse error|exceeds maximum depth)/);
    });

    it('refuses more than 50 aliases and more than 500 fields', async () => {
      const aliases = `{ ${Array.from({ length: 51 }, (_, i) => `a${i}: summary { totalSchemas }`).join(' ')} }`;
      expect(JSON.parse((await post({ query: aliases })).body).errors[0].message).toBe('query exceeds maximum alias count of 50');
      const fields = `{ olmbundles { ${'name '.repeat(501)}} }`;
      expect(JSON.parse((await post({ query: fields })).body).errors[0].message).toBe('query exceeds maximum field count of 500');
    });

    it('counts a fragment wherever it is spread: the introspection amplification of issue 60 is refused at once', async () => {
      const aliased = (n: number, field: string, prefix: string): string => Array.from({ length: n }, (_, i) => `${prefix}${i}: ${field}`).join(' ');
      const attack = `{ ${aliased(25, '__schema { ...T }', 's')} } fragment T on __Schema { ${aliased(25, 'types { fields { name } }', 't')} }`;
      const res = await post({ query: attack });
      expect([res.statusCode, res.body]).toEqual([
        200,
        '{"data":null,"errors":[{"message":"query exceeds maximum alias count of 50","locations":[]}]}\n',
      ]);
      // The same fragment spread within the limits is answered.
      const fine = await query(`{ ${aliased(2, '__schema { ...T }', 's')} } fragment T on __Schema { ${aliased(2, 'queryType { name }', 't')} }`);
      expect(fine).toEqual({ data: { s0: { t0: { name: 'Query' }, t1: { name: 'Query' } }, s1: { t0: { name: 'Query' }, t1: { name: 'Query' } } } });
    });
  });
});
