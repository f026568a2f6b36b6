// The image client against the real distribution registry: push and pull catalog and bundle
// images, layers with whiteouts, multi-arch indexes, the configs label rules, corrupted blobs
// and an unreachable registry.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isTerminal } from '../../pkg/shared/errors/index.ts';
import {
  buildCatalogImage,
  buildImage,
  buildIndex,
  buildLayer,
  CATALOG_CONFIGS_LABEL,
  createDiskImageCache,
  createImageClient,
  type ImageCache,
  type ImageClient,
} from '../../pkg/shared/image/index.ts';
import { startRegistry } from '../envtest/index.ts';

const { anonymous } = inject('envtestRegistries');
const binaries = inject('envtestBinaries');

let work: string;
let cache: ImageCache;
let client: ImageClient;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'olmv1-image-it-'));
  cache = createDiskImageCache(join(work, 'unpack'));
  client = createImageClient({ insecureRegistries: [anonymous.host] });
});

afterAll(async () => {
  client.close();
  // Unpacked trees are read-only; the cache knows how to delete them.
  for (const owner of await cache.owners()) await cache.delete(owner);
  await rm(work, { recursive: true, force: true });
});

const repo = (name: string): string => `${anonymous.host}/${name}-${randomBytes(3).toString('hex')}`;

async function errorOf(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('catalog images', () => {
  it('pushes an FBC directory and pulls it back by tag and by digest', async () => {
    const fbc = join(work, 'fbc');
    await mkdir(join(fbc, 'pkg'), { recursive: true });
    await writeFile(join(fbc, 'pkg', 'catalog.yaml'), 'schema: olm.package\nname: pkg\n');
    const image = await buildCatalogImage(fbc);
    const name = repo('catalog');
    expect(await client.push(`${name}:v1`, image)).toBe(image.digest);

    const byTag = await client.pull(`${name}:v1`, { owner: 'cat-a', cache, labelPathFilter: CATALOG_CONFIGS_LABEL });
    expect(byTag.digestRef).toBe(`${name}@${image.digest}`);
    expect(byTag.fromCache).toBe(false);
    expect(await readFile(join(byTag.dir, 'configs', 'pkg', 'catalog.yaml'), 'utf8')).toContain('olm.package');
    expect((await stat(join(byTag.dir, 'configs', 'pkg', 'catalog.yaml'))).mode & 0o777).toBe(0o400);

    const byDigest = await client.pull(byTag.digestRef, { owner: 'cat-a', cache, labelPathFilter: CATALOG_CONFIGS_LABEL });
    expect(byDigest).toMatchObject({ dir: byTag.dir, fromCache: true, unpackedAt: byTag.unpackedAt });
    expect((await client.resolveDigest(`${name}:v1`)).digest).toBe(image.digest);
  });

  it('treats a missing configs label as terminal only for digest references', async () => {
    const image = buildImage({ files: { 'configs/catalog.json': '{}' } });
    const name = repo('nolabel');
    await client.push(`${name}:latest`, image);
    const want = `error applying image: catalog image is missing the required label "${CATALOG_CONFIGS_LABEL}"`;
    const tagErr = await errorOf(client.pull(`${name}:latest`, { owner: 'nl', cache, labelPathFilter: CATALOG_CONFIGS_LABEL }));
    expect([tagErr.message, isTerminal(tagErr)]).toEqual([want, false]);
    const digestErr = await errorOf(client.pull(`${name}@${image.digest}`, { owner: 'nl', cache, labelPathFilter: CATALOG_CONFIGS_LABEL }));
    const terminalWant = want.replace('error applying image: ', 'error applying image: terminal error: ');
    expect([digestErr.message, isTerminal(digestErr)]).toEqual([terminalWant, true]);
  });
});

describe('layers and platforms', () => {
  it('applies several layers with whiteouts and opaque directories', async () => {
    const base = buildLayer([
      { path: 'manifests', type: 'dir' },
      { path: 'manifests/csv.yaml', type: 'file', data: Buffer.from('v1') },
      { path: 'manifests/removed.yaml', type: 'file', data: Buffer.from('gone') },
      { path: 'metadata', type: 'dir' },
      { path: 'metadata/old.yaml', type: 'file', data: Buffer.from('old') },
    ]);
    const top = buildLayer(
      [
        { path: 'manifests/.wh.removed.yaml', type: 'file' },
        { path: 'manifests/csv.yaml', type: 'file', data: Buffer.from('v2') },
        { path: 'metadata/.wh..wh..opq', type: 'file' },
        { path: 'metadata/annotations.yaml', type: 'file', data: Buffer.from('annotations: {}') },
      ],
      { compression: 'zstd' },
    );
    const uncompressed = buildLayer([{ path: 'extra.txt', type: 'file', data: Buffer.from('plain tar') }], { compression: 'none' });
    const image = buildImage({ layers: [base, top, uncompressed] });
    const name = repo('bundle');
    await client.push(`${name}:v1`, image);

    const pulled = await client.pull(`${name}:v1`, { owner: 'ext-a', cache });
    expect((await readdir(pulled.dir)).sort()).toEqual(['extra.txt', 'manifests', 'metadata']);
    expect(await readdir(join(pulled.dir, 'manifests'))).toEqual(['csv.yaml']);
    expect(await readFile(join(pulled.dir, 'manifests', 'csv.yaml'), 'utf8')).toBe('v2');
    expect(await readdir(join(pulled.dir, 'metadata'))).toEqual(['annotations.yaml']);

    const files = await client.readImageFiles(`${name}@${image.digest}`);
    expect([...files.files.keys()]).toEqual(['extra.txt', 'manifests/csv.yaml', 'metadata/annotations.yaml']);
  });

  it('selects the platform from a multi-arch index', async () => {
    const amd = buildImage({ files: { 'arch.txt': 'amd64' }, platform: { os: 'linux', architecture: 'amd64' } });
    const arm = buildImage({ files: { 'arch.txt': 'arm64' }, platform: { os: 'linux', architecture: 'arm64', variant: 'v8' } });
    const index = buildIndex([arm, amd]);
    const name = repo('multi');
    await client.push(`${name}:v1`, index);
    const armClient = createImageClient({ insecureRegistries: [anonymous.host], platform: { os: 'linux', architecture: 'arm64' } });
    try {
      const a = await client.pull(`${name}:v1`, { owner: 'multi-amd', cache });
      const b = await armClient.pull(`${name}:v1`, { owner: 'multi-arm', cache });
      expect([a.digest, b.digest]).toEqual([index.digest, index.digest]);
      expect(await readFile(join(a.dir, 'arch.txt'), 'utf8')).toBe('amd64');
      expect(await readFile(join(b.dir, 'arch.txt'), 'utf8')).toBe('arm64');
    } finally {
      armClient.close();
    }
  });
});

describe('failures', () => {
  it('rejects a blob corrupted in registry storage with a digest mismatch and keeps nothing', async () => {
    const image = buildImage({ files: { 'manifests/a.yaml': 'a: 1' } });
    const name = repo('corrupt');
    await client.push(`${name}:v1`, image);
    const layer = image.layers[0];
    if (layer === undefined) throw new Error('no layer');
    const hex = layer.digest.slice('sha256:'.length);
    const blobPath = join(anonymous.storageDir, 'docker/registry/v2/blobs/sha256', hex.slice(0, 2), hex, 'data');
    const corrupted = Buffer.from(layer.data);
    corrupted[corrupted.length - 5] = (corrupted[corrupted.length - 5] ?? 0) ^ 0xff;
    await writeFile(blobPath, corrupted);

    const err = await errorOf(client.pull(`${name}:v1`, { owner: 'corrupt', cache }));
    expect(err.message).toMatch(
      new RegExp(
        `^error applying image: error reading layer\\[0\\]: digest mismatch for blob ${layer.digest} in ${name}: expected ${layer.digest}, got sha256:[0-9a-f]{64}$`,
      ),
    );
    expect(isTerminal(err)).toBe(false);
    await expect(readdir(join(work, 'unpack', 'corrupt'))).rejects.toThrow('ENOENT');
  });

  it('reports an unknown tag and a stopped registry as retryable, and serves digests from cache offline', async () => {
    const unknown = await errorOf(client.pull(`${repo('missing')}:nope`, { owner: 'm', cache }));
    expect(unknown.message).toMatch(
      /^error getting manifest: error reading manifest nope in .*: HTTP 404 Not Found: (MANIFEST_UNKNOWN|NAME_UNKNOWN)/,
    );
    expect(isTerminal(unknown)).toBe(false);

    const own = await startRegistry({ binaries });
    const ownClient = createImageClient({ insecureRegistries: [own.host] });
    try {
      const image = buildImage({ files: { 'f.txt': 'x' } });
      await ownClient.push(`${own.host}/app:v1`, image);
      const pinned = `${own.host}/app@${image.digest}`;
      await ownClient.pull(pinned, { owner: 'offline', cache });
      await own.stop();
      const down = await errorOf(ownClient.pull(`${own.host}/app:v1`, { owner: 'offline', cache }));
      expect(down.message).toContain(`error getting manifest: Get "http://${own.host}/v2/app/manifests/v1": connect ECONNREFUSED`);
      expect(isTerminal(down)).toBe(false);
      expect(down.cause).toBeInstanceOf(Error);
      expect((await ownClient.pull(pinned, { owner: 'offline', cache })).fromCache).toBe(true);
    } finally {
      ownClient.close();
      await own.stop();
    }
  });
});
