import { mkdir, mkdtemp, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDiskImageCache, type ImageCache } from './cache.ts';
import { deleteReadOnly } from './fs-tree.ts';
import type { ImageConfig } from './manifest.ts';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const config: ImageConfig = { os: 'linux', architecture: 'amd64', labels: { a: 'b' }, raw: { os: 'linux' } };

let base: string;
let cache: ImageCache;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'olmv1-cache-test-'));
  cache = createDiskImageCache(join(base, 'unpack'));
});

afterEach(async () => {
  await deleteReadOnly(base);
});

async function populate(dir: string): Promise<void> {
  await mkdir(join(dir, 'sub'));
  await writeFile(join(dir, 'sub', 'f'), 'x');
}

describe('disk image cache', () => {
  it('misses, stores read-only trees under owner/digest and hits with the unpack time', async () => {
    expect(await cache.fetch('cat', D1)).toBeUndefined();
    const stored = await cache.store('cat', D1, config, populate);
    expect(stored.dir).toBe(join(base, 'unpack', 'cat', D1));
    expect((await stat(stored.dir)).mode & 0o777).toBe(0o500);
    expect((await stat(join(stored.dir, 'sub'))).mode & 0o777).toBe(0o500);
    expect((await stat(join(stored.dir, 'sub', 'f'))).mode & 0o777).toBe(0o400);
    const hit = await cache.fetch('cat', D1);
    expect(hit).toEqual({ dir: stored.dir, digest: D1, config, unpackedAt: stored.unpackedAt });
    expect(Math.abs((hit?.unpackedAt.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);
  });

  it('leaves nothing behind when populating fails: not the temporary tree, not an empty owner directory', async () => {
    await expect(
      cache.store('cat', D1, config, async (dir) => {
        await populate(dir);
        throw new Error('error applying layer[0]: boom');
      }),
    ).rejects.toThrow('boom');
    expect(await readdir(join(base, 'unpack'))).toEqual([]);
    expect(await cache.fetch('cat', D1)).toBeUndefined();
    // The owner's other entries stay.
    await cache.store('cat', D1, config, populate);
    await expect(cache.store('cat', D2, config, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await readdir(join(base, 'unpack', 'cat'))).toEqual([D1, `${D1}.config.json`]);
  });

  it('replaces a stale tree for the same digest', async () => {
    await cache.store('cat', D1, config, populate);
    await cache.store('cat', D1, config, async (dir) => writeFile(join(dir, 'only'), 'y'));
    expect(await readdir(join(base, 'unpack', 'cat', D1))).toEqual(['only']);
  });

  it('treats a file in place of the tree, or a tree without config, as a miss and deletes it', async () => {
    await mkdir(join(base, 'unpack', 'cat'), { recursive: true });
    await writeFile(join(base, 'unpack', 'cat', D1), 'not a dir');
    expect(await cache.fetch('cat', D1)).toBeUndefined();
    await mkdir(join(base, 'unpack', 'cat', D2));
    expect(await cache.fetch('cat', D2)).toBeUndefined();
    expect(await readdir(join(base, 'unpack', 'cat'))).toEqual([]);
  });

  it('garbage-collects other digests, and the owner dir when the kept one is absent', async () => {
    await cache.store('cat', D1, config, populate);
    await cache.store('cat', D2, config, populate);
    await cache.store('other', D1, config, populate);
    await cache.garbageCollect('cat', D2);
    expect((await readdir(join(base, 'unpack', 'cat'))).sort()).toEqual([D2, `${D2}.config.json`]);
    await cache.garbageCollect('other', D2);
    expect(await cache.owners()).toEqual(['cat']);
    await cache.garbageCollect('never-pulled', D1);
  });

  it('deletes an owner and cleans up temporary leftovers', async () => {
    await cache.store('cat', D1, config, populate);
    await mkdir(join(base, 'unpack', 'cat', '.tmp-crashed', 'deep'), { recursive: true });
    await cache.cleanupTemporary();
    expect((await readdir(join(base, 'unpack', 'cat'))).sort()).toEqual([D1, `${D1}.config.json`]);
    await cache.delete('cat');
    expect(await cache.owners()).toEqual([]);
    await cache.delete('cat');
  });

  it('rejects unsafe owners and invalid digests', async () => {
    for (const owner of ['', '..', '.hidden', 'a/b']) {
      await expect(cache.fetch(owner, D1)).rejects.toThrow(/invalid cache owner/);
    }
    await expect(cache.fetch('cat', 'sha256:abc')).rejects.toThrow('invalid cache digest "sha256:abc": invalid checksum digest length');
  });
});
