import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Meta } from '../../fbc/types.ts';
import { LocalDirStore } from '../storage/local-dir-store.ts';
import { buildCatalogServer } from './server.ts';

function meta(schema: string, pkg: string, name: string, pad = 0): Meta {
  const obj: Record<string, unknown> = { name, schema };
  if (pkg !== '') obj.package = pkg;
  if (pad > 0) obj.pad = 'p'.repeat(pad);
  return { schema, package: pkg, name, blob: `${JSON.stringify(obj)}\n` };
}

const BLOBS = [
  meta('olm.package', '', 'foo', 600),
  meta('olm.channel', 'foo', 'stable'),
  meta('olm.bundle', 'foo', 'foo.v1', 800),
  meta('olm.bundle', 'foo', 'foo.v2', 800),
  meta('olm.package', '', 'bar'),
  // Larger than the bound up to which /metas answers are read whole: this one streams.
  meta('olm.bundle', 'big', 'big.v1', 300_000),
];
const ALL = BLOBS.map((b) => b.blob).join('');

describe('catalog server', () => {
  let root: string;
  let store: LocalDirStore;
  let app: FastifyInstance;
  let registry: Registry;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'server-test-'));
    store = new LocalDirStore({ root, ingest: () => Promise.reject(new Error('unused')), logger: pino({ level: 'silent' }) });
    await store.open();
    const digest = `sha256:${'a'.repeat(64)}`;
    await store.store('test-catalog', { digest, ref: `r.test/c@${digest}`, unpackedAt: '2026-01-01T00:00:00Z' }, { metas: BLOBS });
    registry = new Registry();
    app = buildCatalogServer({ content: store, logger: pino({ level: 'silent' }), registry });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  const lastModified = (): string => store.get('test-catalog')!.modTime.toUTCString();

  describe('routing', () => {
    it.each(['/', '/catalogs/', '/catalogs/test-catalog/', '/catalogs/test-catalog/api/v1c', '/catalogs/test-catalog/api/v1/all/', '/catalogs/test-catalog/api/v1/graphql'])(
      '404 page not found for %s',
      async (url) => {
        const res = await app.inject({ url });
        expect(res.statusCode).toBe(404);
        expect(res.body).toBe('404 page not found\n');
        expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers.vary).toBe('Accept-Encoding');
      },
    );

    it('answers 405 without an Allow header for other methods', async () => {
      const res = await app.inject({ method: 'POST', url: '/catalogs/test-catalog/api/v1/all', payload: 'x', headers: { 'content-type': 'application/x-anything' } });
      expect(res.statusCode).toBe(405);
      expect(res.body).toBe('Method Not Allowed\n');
      expect(res.headers.allow).toBeUndefined();
    });

    it('redirects non-clean paths', async () => {
      const res = await app.inject({ url: '/catalogs//test-catalog/./api/v1/all?x=1' });
      expect(res.statusCode).toBe(301);
      expect(res.headers.location).toBe('/catalogs/test-catalog/api/v1/all?x=1');
    });

    it('validates the catalog name before looking at storage', async () => {
      const res = await app.inject({ url: '/catalogs/Not_Valid/api/v1/all' });
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(/^invalid catalog name: a lowercase RFC 1123 subdomain must consist of/);
      const encoded = await app.inject({ url: '/catalogs/a%2Fb/api/v1/all' });
      expect(encoded.statusCode).toBe(400);
    });

    it('answers 404 Not Found for a catalog without content', async () => {
      const res = await app.inject({ url: '/catalogs/missing/api/v1/all' });
      expect(res.statusCode).toBe(404);
      expect(res.body).toBe('404 Not Found\n');
    });
  });

  describe('/api/v1/all', () => {
    const url = '/catalogs/test-catalog/api/v1/all';

    it('serves the whole catalog as JSON lines with caching headers', async () => {
      const res = await app.inject({ url });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(ALL);
      expect(res.headers['content-type']).toBe('application/jsonl');
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(ALL)));
      expect(res.headers['accept-ranges']).toBe('bytes');
      expect(res.headers['last-modified']).toBe(lastModified());
    });

    it('answers HEAD with the same headers and no body', async () => {
      const res = await app.inject({ method: 'HEAD', url, headers: { 'accept-encoding': 'gzip' } });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('');
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(ALL)));
    });

    it('serves the precompressed gzip copy, and only gzip', async () => {
      const gz = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gz.headers['accept-ranges']).toBeUndefined();
      expect(gunzipSync(gz.rawPayload).toString()).toBe(ALL);
      const zs = await app.inject({ url, headers: { 'accept-encoding': 'zstd, br' } });
      expect(zs.headers['content-encoding']).toBeUndefined();
      expect(zs.body).toBe(ALL);
    });

    it('answers conditional requests', async () => {
      const notModified = await app.inject({ url, headers: { 'if-modified-since': lastModified() } });
      expect(notModified.statusCode).toBe(304);
      expect(notModified.body).toBe('');
      expect(notModified.headers['content-type']).toBeUndefined();
      expect(notModified.headers['last-modified']).toBe(lastModified());
      const old = new Date(Date.parse(lastModified()) - 1000).toUTCString();
      expect((await app.inject({ url, headers: { 'if-modified-since': old } })).statusCode).toBe(200);
      expect((await app.inject({ url, headers: { 'if-unmodified-since': old } })).statusCode).toBe(412);
      expect((await app.inject({ url, headers: { 'if-modified-since': 'not a date' } })).statusCode).toBe(200);
    });

    it('serves byte ranges uncompressed', async () => {
      const one = await app.inject({ url, headers: { range: 'bytes=0-9', 'accept-encoding': 'gzip' } });
      expect(one.statusCode).toBe(206);
      expect(one.body).toBe(ALL.slice(0, 10));
      expect(one.headers['content-range']).toBe(`bytes 0-9/${ALL.length}`);
      expect(one.headers['content-encoding']).toBeUndefined();
      const multi = await app.inject({ url, headers: { range: 'bytes=0-1,-3' } });
      expect(multi.statusCode).toBe(206);
      expect(multi.headers['content-type']).toMatch(/^multipart\/byteranges; boundary=/);
      expect(multi.body).toContain(`Content-Range: bytes 0-1/${ALL.length}`);
      expect(multi.body).toContain(ALL.slice(-3));
      expect(Number(multi.headers['content-length'])).toBe(multi.rawPayload.length);
      const bad = await app.inject({ url, headers: { range: `bytes=${ALL.length}-` } });
      expect(bad.statusCode).toBe(416);
      expect(bad.headers['content-range']).toBe(`bytes */${ALL.length}`);
    });
  });

  describe('/api/v1/metas', () => {
    const url = '/catalogs/test-catalog/api/v1/metas';

    it('filters by schema, package and name with upstream semantics', async () => {
      expect((await app.inject({ url: `${url}?package=foo` })).body).toBe(BLOBS[1]!.blob + BLOBS[2]!.blob + BLOBS[3]!.blob);
      expect((await app.inject({ url: `${url}?schema=olm.package&name=bar` })).body).toBe(BLOBS[4]!.blob);
      expect((await app.inject({ url: `${url}?schema=olm.bundle&package=foo&name=foo.v2` })).body).toBe(BLOBS[3]!.blob);
      expect((await app.inject({ url: `${url}?schema=olm.bundle&schema=olm.package` })).body).toBe(BLOBS[2]!.blob + BLOBS[3]!.blob + BLOBS[5]!.blob);
      const none = await app.inject({ url: `${url}?package=nope` });
      expect(none.statusCode).toBe(200);
      expect(none.body).toBe('');
      expect(none.headers['content-type']).toBe('application/jsonl');
    });

    it('treats empty parameters as no filter', async () => {
      expect((await app.inject({ url: `${url}?schema=` })).body).toBe(ALL);
      expect((await app.inject({ url })).body).toBe(ALL);
    });

    it('rejects unknown parameters before checking the catalog exists', async () => {
      const res = await app.inject({ url: '/catalogs/missing/api/v1/metas?Schema=x' });
      expect(res.statusCode).toBe(400);
      expect(res.body).toBe('400 Bad Request\n');
      expect((await app.inject({ url: '/catalogs/missing/api/v1/metas?schema=x' })).statusCode).toBe(404);
    });

    it('compresses large results and supports conditional requests', async () => {
      const res = await app.inject({ url: `${url}?package=foo`, headers: { 'accept-encoding': 'gzip' } });
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(res.rawPayload).toString()).toBe(BLOBS[1]!.blob + BLOBS[2]!.blob + BLOBS[3]!.blob);
      const small = await app.inject({ url: `${url}?schema=olm.package&name=bar`, headers: { 'accept-encoding': 'gzip' } });
      expect(small.headers['content-encoding']).toBeUndefined();
      const nm = await app.inject({ url: `${url}?package=foo`, headers: { 'if-modified-since': lastModified() } });
      expect(nm.statusCode).toBe(304);
      expect(nm.headers['last-modified']).toBe(lastModified());
      expect(nm.headers['content-encoding']).toBeUndefined();
    });

    it('sends small answers whole with a Content-Length and streams large ones', async () => {
      const foo = BLOBS[1]!.blob + BLOBS[2]!.blob + BLOBS[3]!.blob;
      const small = await app.inject({ url: `${url}?package=foo` });
      expect(small.headers['content-length']).toBe(String(Buffer.byteLength(foo)));
      expect(small.headers['transfer-encoding']).toBeUndefined();
      // From the segments compressed at ingest: foo's blobs are one run.
      const gz = await app.inject({ url: `${url}?package=foo`, headers: { 'accept-encoding': 'gzip' } });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.rawPayload).toString()).toBe(foo);
      expect(gz.headers['content-length']).toBe(String(gz.rawPayload.length));
      const stored = (await store.get('test-catalog')!.index()).packageGzip('foo')!;
      expect(gz.rawPayload.length).toBe(stored.length + 20);
      // Compressed per request: a schema filter makes it another answer than the member's.
      const perRequest = await app.inject({ url: `${url}?package=foo&schema=olm.bundle`, headers: { 'accept-encoding': 'gzip' } });
      expect(gunzipSync(perRequest.rawPayload).toString()).toBe(BLOBS[2]!.blob + BLOBS[3]!.blob);
      expect(perRequest.headers['content-length']).toBe(String(perRequest.rawPayload.length));

      const big = await app.inject({ url: `${url}?package=big` });
      expect(big.body).toBe(BLOBS[5]!.blob);
      expect(big.headers['content-length']).toBeUndefined();
      expect(big.headers['transfer-encoding']).toBe('chunked');
      const bigGzip = await app.inject({ url: `${url}?package=big`, headers: { 'accept-encoding': 'gzip' } });
      expect(bigGzip.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(bigGzip.rawPayload).toString()).toBe(BLOBS[5]!.blob);
    });

    it('answers HEAD with headers only', async () => {
      const res = await app.inject({ method: 'HEAD', url: `${url}?package=foo` });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('');
      expect(res.headers['content-type']).toBe('application/jsonl');
    });
  });

  it('records request durations by status code', async () => {
    await app.inject({ url: '/catalogs/test-catalog/api/v1/all' });
    const metric = await registry.getSingleMetricAsString('catalogd_http_request_duration_seconds');
    expect(metric).toMatch(/catalogd_http_request_duration_seconds_count\{code="200"\} \d+/);
    expect(metric).toMatch(/catalogd_http_request_duration_seconds_count\{code="404"\} \d+/);
  });
});
