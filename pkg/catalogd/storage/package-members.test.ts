import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Meta } from '../../fbc/types.ts';
import { CONTENT_FILES } from './content-writer.ts';
import { LocalDirStore, type VersionInfo } from './local-dir-store.ts';
import { MAX_MEMBER } from './package-members.ts';
import { buildCatalogServer } from '../server/server.ts';
import { Registry } from 'prom-client';
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
  // b is spread over two runs: no member.
  meta('olm.bundle', 'b', 'b.v1', 100),
  meta('olm.bundle', 'c', 'c.v1', 100),
  meta('olm.bundle', 'b', 'b.v2', 100),
  // A blob without a schema is not indexed: it ends d's run, and d goes on after it.
  meta('olm.bundle', 'd', 'd.v1', 100),
  { schema: '', package: 'd', name: '', blob: '{"package":"d"}\n' },
  meta('olm.bundle', 'd', 'd.v2', 100),
  // Too large for a member.
  meta('olm.bundle', 'huge', 'huge.v1', MAX_MEMBER),
  meta('olm.bundle', 'e', 'e.v1', 10),
];

describe('precompressed package answers', () => {
  let root: string;
  let store: LocalDirStore;
  let version: StoredVersion;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'members-test-'));
    store = new LocalDirStore({ root, ingest: () => Promise.reject(new Error('unused')), logger: pino({ level: 'silent' }) });
    await store.open();
    version = await store.store('cat', INFO, { metas: BLOBS });
  });
  afterEach(async () => {
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  async function answer(pkg: string): Promise<string> {
    const ranges = (await version.index()).lookup({ schema: '', package: pkg, name: '' });
    return (await version.readRangesWhole('jsonl', ranges, ranges.reduce((n, r) => n + r.length, 0))).toString();
  }

  it('stores one gzip member per contiguous package, exactly its /metas?package= answer', async () => {
    const index = await version.index();
    for (const pkg of ['a', 'c', 'e']) {
      const member = index.packageMember(pkg);
      expect(member, pkg).toBeDefined();
      const bytes = await version.readRangesWhole('packages', [member!], member!.length);
      expect(gunzipSync(bytes).toString()).toBe(await answer(pkg));
    }
    expect(await answer('a')).toBe(BLOBS[1]!.blob + BLOBS[2]!.blob);
  });

  it('has no member for packages spread over several runs or larger than the bound', async () => {
    const index = await version.index();
    expect(index.packageMember('b')).toBeUndefined();
    expect(index.packageMember('d')).toBeUndefined();
    expect(index.packageMember('huge')).toBeUndefined();
    expect(index.packageMember('')).toBeUndefined();
    expect(index.packageMember('nope')).toBeUndefined();
  });

  it('answers gzip package queries from the member, and per request when the members file is gone', async () => {
    const app = buildCatalogServer({ content: store, logger: pino({ level: 'silent' }), registry: new Registry() });
    try {
      const get = () => app.inject({ url: '/catalogs/cat/api/v1/metas?package=a', headers: { 'accept-encoding': 'gzip' } });
      const fromMember = await get();
      expect(fromMember.rawPayload.length).toBe((await version.index()).packageMember('a')!.length);
      expect(gunzipSync(fromMember.rawPayload).toString()).toBe(await answer('a'));
      await store.close(); // drops the open handles, so the next read opens the file again
      await unlink(join(version.dir, CONTENT_FILES.packages));
      const perRequest = await get();
      expect(perRequest.statusCode).toBe(200);
      expect(perRequest.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(perRequest.rawPayload).toString()).toBe(await answer('a'));
    } finally {
      await app.close();
    }
  });

  it('still serves versions stored before members existed', async () => {
    const dir = version.dir;
    const indexFile = join(dir, CONTENT_FILES.index);
    const { packageGzip: _dropped, ...older } = JSON.parse(await readFile(indexFile, 'utf8')) as Record<string, unknown>;
    await writeFile(indexFile, JSON.stringify(older));
    await unlink(join(dir, CONTENT_FILES.packages));
    await store.close();
    const reopened = new LocalDirStore({ root, ingest: () => Promise.reject(new Error('unused')), logger: pino({ level: 'silent' }) });
    await reopened.open();
    try {
      const v = reopened.get('cat');
      expect(v?.info.digest).toBe(INFO.digest);
      expect((await v!.index()).packageMember('a')).toBeUndefined();
    } finally {
      await reopened.close();
    }
  });
});
