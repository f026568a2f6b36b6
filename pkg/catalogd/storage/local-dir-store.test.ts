import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Meta } from '../../shared/fbc/types.ts';
import type { IngestFn } from './ingest.ts';
import { LocalDirStore } from './local-dir-store.ts';
import type { VersionInfo } from './stored-version.ts';

const log = pino({ level: 'silent' });
const noIngest: IngestFn = () => Promise.reject(new Error('no fbc ingest in this test'));

function meta(schema: string, pkg: string, name: string, extra = ''): Meta {
  const blob = `${JSON.stringify({ name, package: pkg || undefined, schema: schema || undefined, x: extra })}\n`;
  return { schema, package: pkg, name, blob };
}

function info(hex: string): VersionInfo {
  const digest = `sha256:${hex.repeat(64).slice(0, 64)}`;
  return { digest, ref: `registry.test/catalog@${digest}`, unpackedAt: '2026-11-22T00:00:00Z' };
}

const V1 = [meta('olm.package', '', 'foo'), meta('olm.bundle', 'foo', 'foo.v1'), { schema: '', package: '', name: '', blob: '' }];
const V2 = [meta('olm.package', '', 'foo'), meta('olm.bundle', 'foo', 'foo.v2', 'y'.repeat(2000))];

describe('LocalDirStore', () => {
  let root: string;
  let store: LocalDirStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'store-test-'));
    store = new LocalDirStore({ root, ingest: noIngest, logger: log, retireGraceMs: 20 });
    await store.open();
  });
  afterEach(async () => {
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  it('stores blobs as JSONL with an identical gzip copy, skipping blank documents', async () => {
    const v = await store.store('cat', info('a'), { metas: V1 });
    const jsonl = await readFile(v.path('jsonl'), 'utf8');
    expect(jsonl).toBe(V1[0]!.blob + V1[1]!.blob);
    expect(gunzipSync(await readFile(v.path('gzip'))).toString()).toBe(jsonl);
    expect(v.sizes.jsonl).toBe(Buffer.byteLength(jsonl));
    const ranges = (await v.index()).lookup({ schema: 'olm.bundle', package: 'foo', name: '' });
    const total = ranges.reduce((n, r) => n + r.length, 0);
    expect((await v.readRangesInto('jsonl', ranges, Buffer.alloc(total), 0)).toString()).toBe(V1[1]!.blob);
  });

  it('switches versions atomically and removes the old one after the grace period', async () => {
    const v1 = await store.store('cat', info('a'), { metas: V1 });
    const v2 = await store.store('cat', info('b'), { metas: V2 });
    expect(store.get('cat')).toBe(v2);
    expect(store.contentExists('cat', info('b').digest)).toBe(true);
    await vi.waitFor(async () => expect(await readdir(join(root, 'cat'))).toEqual(['current.json', v2.dirName].sort()));
    expect(v1.dirName).not.toBe(v2.dirName);
  });

  it('keeps serving the old version when a new store fails, and leaves no temp dirs', async () => {
    await store.store('cat', info('a'), { metas: V1 });
    async function* broken(): AsyncGenerator<Meta> {
      yield meta('olm.package', '', 'foo');
      throw new Error('configs/foo/catalog.json:3: invalid character');
    }
    await expect(store.store('cat', info('b'), { metas: broken() })).rejects.toThrow('invalid character');
    expect(store.get('cat')?.info.digest).toBe(info('a').digest);
    expect((await readdir(root)).filter((e) => e.startsWith('.tmp-'))).toEqual([]);
  });

  it('does not rewrite an already served digest unless forced', async () => {
    const v1 = await store.store('cat', info('a'), { metas: V1 });
    expect(await store.store('cat', info('a'), { metas: V2 })).toBe(v1);
    const forced = await store.store('cat', info('a'), { metas: V2 }, { force: true });
    expect(forced).not.toBe(v1);
    expect(await readFile(forced.path('jsonl'), 'utf8')).toBe(V2.map((m) => m.blob).join(''));
  });

  it('serves stored content again after a restart and cleans leftovers', async () => {
    const v = await store.store('cat', info('a'), { metas: V1 });
    await store.close();
    await mkdir(join(root, '.tmp-cat-123456'));
    await mkdir(join(root, 'cat', 'sha256-stale'));
    await mkdir(join(root, 'broken'));
    await writeFile(join(root, 'broken', 'current.json'), '{"digest":"sha256:00"}');

    const reopened = new LocalDirStore({ root, ingest: noIngest, logger: log });
    await reopened.open();
    const again = reopened.get('cat');
    expect(again?.info).toEqual(v.info);
    expect(again?.modTime.getTime()).toBe(v.modTime.getTime());
    expect((await readdir(root)).sort()).toEqual(['cat']);
    expect((await readdir(join(root, 'cat'))).sort()).toEqual(['current.json', v.dirName].sort());
    await reopened.close();
  });

  it('deletes a catalog and garbage-collects catalogs that no longer exist', async () => {
    await store.store('a', info('a'), { metas: V1 });
    await store.store('b', info('b'), { metas: V1 });
    await store.delete('a');
    expect(store.get('a')).toBeUndefined();
    expect(await store.gc(new Set())).toEqual(['b']);
    expect(store.catalogs()).toEqual([]);
    expect(await readdir(root)).toEqual([]);
  });

  it('rejects digests that are not path-safe', async () => {
    await expect(store.store('cat', { ...info('a'), digest: 'sha256:../../x' }, { metas: V1 })).rejects.toThrow('invalid content digest');
  });
});
