import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32, gunzipSync } from 'node:zlib';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Meta } from '../../shared/fbc/types.ts';
import { buildCatalogServer } from '../server/index.ts';
import { exchange } from '../../../test/support/http-exchange.ts';
import { openStore, storeWith } from '../../../test/support/catalog-store.ts';
import { CONTENT_FILES } from './content-writer.ts';
import { GZIP_FRAME_HEAD, GZIP_FRAME_TAIL, frameDeflateInPlace } from './gzip-framing.ts';
import { MAX_PACKAGE_GZIP } from './gzip-segments.ts';
import type { LocalDirStore } from './local-dir-store.ts';
import type { VersionInfo } from './stored-version.ts';
import type { StoredVersion } from './stored-version.ts';

function meta(schema: string, pkg: string, name: string, pad = 0): Meta {
  const blob = `${JSON.stringify({ name, package: pkg, pad: 'p'.repeat(pad), schema })}\n`;
  return { schema, package: pkg, name, blob };
}

const INFO: VersionInfo = { digest: `sha256:${'c'.repeat(64)}`, ref: 'registry.test/c@sha256:cc', unpackedAt: '2026-11-22T00:00:00Z' };

const BLOBS: Meta[] = [
  meta('olm.package', '', 'a'),
  meta('olm.channel', 'a', 'stable'),
  meta('olm.bundle', 'a', 'a.v1', 3000),
  // b is spread over two runs: no stored answer.
  meta('olm.bundle', 'b', 'b.v1', 100),
  meta('olm.bundle', 'c', 'c.v1', 100),
  meta('olm.bundle', 'b', 'b.v2', 100),
  // A blob without a schema is not indexed: it ends d's run, and d goes on after it.
  meta('olm.bundle', 'd', 'd.v1', 100),
  { schema: '', package: 'd', name: '', blob: '{"package":"d"}\n' },
  meta('olm.bundle', 'd', 'd.v2', 100),
  // Over 1 MiB: several segments in one run, still one stored answer.
  ...[1, 2, 3].map((i) => meta('olm.bundle', 'multi', `multi.v${i}`, 600_000)),
  // Too large to be read whole.
  meta('olm.bundle', 'huge', 'huge.v1', MAX_PACKAGE_GZIP),
  meta('olm.bundle', 'e', 'e.v1', 10),
];

describe('catalog.jsonl.gz in package segments', () => {
  let root: string;
  let store: LocalDirStore;
  let version: StoredVersion;
  let remove: () => Promise<void>;

  beforeEach(async () => {
    ({ root, store, version, remove } = await storeWith('segments-test-', 'cat', BLOBS, INFO));
  });
  afterEach(() => remove());

  async function answer(pkg: string): Promise<string> {
    const ranges = (await version.index()).lookup({ schema: '', package: pkg, name: '' });
    return (await version.readRangesInto('jsonl', ranges, Buffer.alloc(ranges.reduce((n, r) => n + r.length, 0)), 0)).toString();
  }

  it('is one gzip member holding catalog.jsonl', async () => {
    const jsonl = await readFile(version.path('jsonl'));
    const gz = await readFile(version.path('gzip'));
    expect(gunzipSync(gz).equals(jsonl)).toBe(true);
    // The trailer covers the whole content: not several members, each with its own trailer.
    expect(gz.readUInt32LE(gz.length - 8)).toBe(crc32(jsonl));
    expect(gz.readUInt32LE(gz.length - 4)).toBe(jsonl.length);
  });

  it('records for each contiguous package the segments that are its /metas?package= answer', async () => {
    const index = await version.index();
    for (const pkg of ['a', 'c', 'e', 'multi']) {
      const g = index.packageGzip(pkg);
      expect(g, pkg).toBeDefined();
      // As the server answers: the segments read into place, framed around them.
      const buf = Buffer.alloc(GZIP_FRAME_HEAD + g!.length + GZIP_FRAME_TAIL);
      await version.readRangesInto('gzip', [g!], buf, GZIP_FRAME_HEAD);
      expect(gunzipSync(frameDeflateInPlace(buf, g!.length, g!.crc, g!.size)).toString()).toBe(await answer(pkg));
    }
    expect(await answer('a')).toBe(BLOBS[1]!.blob + BLOBS[2]!.blob);
  });

  it('records nothing for packages spread over several runs or larger than the bound', async () => {
    const index = await version.index();
    for (const pkg of ['b', 'd', 'huge', '', 'nope']) expect(index.packageGzip(pkg), pkg).toBeUndefined();
  });

  it('answers gzip package queries from the segments, and per request when they cannot be read', async () => {
    const app = buildCatalogServer({ content: store, logger: pino({ level: 'silent' }), registry: new Registry() });
    try {
      const origin = await app.listen({ host: '127.0.0.1', port: 0 });
      const get = () => exchange(origin, { url: '/catalogs/cat/api/v1/metas?package=a', headers: { 'accept-encoding': 'gzip' } });
      const stored = await get();
      const g = (await version.index()).packageGzip('a')!;
      // header (10) + segments + final block (2) + trailer (8)
      expect(stored.rawPayload.length).toBe(g.length + 20);
      expect(stored.headers['content-length']).toBe(String(g.length + 20));
      expect(gunzipSync(stored.rawPayload).toString()).toBe(await answer('a'));
      await store.close(); // drops the open handles, so the next read opens the file again
      await truncate(version.path('gzip'), g.offset);
      const perRequest = await get();
      expect(perRequest.statusCode).toBe(200);
      expect(perRequest.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(perRequest.rawPayload).toString()).toBe(await answer('a'));
    } finally {
      await app.close();
    }
  });

  it('still serves versions stored before the segments were indexed', async () => {
    const indexFile = join(version.dir, CONTENT_FILES.index);
    const { packageSegments: _dropped, ...current } = JSON.parse(await readFile(indexFile, 'utf8')) as Record<string, unknown>;
    // The earlier layout: members in a separate packages.jsonl.gz, now ignored.
    await writeFile(indexFile, JSON.stringify({ ...current, packageGzip: (current['packages'] as string[]).flatMap(() => [0, 10]) }));
    await store.close();
    const reopened = await openStore(root);
    const app = buildCatalogServer({ content: reopened, logger: pino({ level: 'silent' }), registry: new Registry() });
    try {
      const v = reopened.get('cat');
      expect(v?.info.digest).toBe(INFO.digest);
      expect((await v!.index()).packageGzip('a')).toBeUndefined();
      const origin = await app.listen({ host: '127.0.0.1', port: 0 });
      const res = await exchange(origin, { url: '/catalogs/cat/api/v1/metas?package=a', headers: { 'accept-encoding': 'gzip' } });
      expect(gunzipSync(res.rawPayload).toString()).toBe(await answer('a'));
    } finally {
      await app.close();
      await reopened.close();
    }
  });
});
