import { randomBytes } from 'node:crypto';
import { readFile, readdir, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTerminal } from '../errors/index.ts';
import { buildImage, buildIndex, buildLayer, rawLayer } from './build.ts';
import { createImageClient, type ImageClient } from './client.ts';
import { deleteReadOnly } from './fs-tree.ts';
import { BUNDLE_IMAGE_LIMITS } from './limits.ts';
import { CATALOG_CONFIGS_LABEL } from './path-filter.ts';
import { errorOf, imageTestBed } from '../../../test/support/image-test-bed.ts';

const bed = imageTestBed('olmv1-pull-test-', deleteReadOnly);
let client: ImageClient;

beforeEach(() => {
  client = createImageClient({ insecureRegistries: [bed().registry.host] });
});

afterEach(() => client.close());

const catalogImage = (extra: Record<string, string> = {}) =>
  buildImage({
    files: { 'configs/pkg/catalog.json': '{"schema":"olm.package","name":"pkg"}', 'other/file': 'not unpacked', ...extra },
    labels: { [CATALOG_CONFIGS_LABEL]: '/configs' },
  });

describe('pull', () => {
  it('pulls a catalog image by tag, unpacking only the label directory, read-only', async () => {
    const image = catalogImage();
    const pushed = await client.push(`${bed().registry.host}/catalogs/test:v1`, image);
    expect(pushed).toBe(image.digest);

    const result = await client.pull(`${bed().registry.host}/catalogs/test:v1`, {
      owner: 'my-catalog',
      cache: bed().cache,
      labelPathFilter: CATALOG_CONFIGS_LABEL,
    });
    expect(result.digestRef).toBe(`${bed().registry.host}/catalogs/test@${image.digest}`);
    expect(result.dir).toBe(join(bed().dir, 'unpack', 'my-catalog', image.digest));
    expect(result.fromCache).toBe(false);
    expect(result.config.labels[CATALOG_CONFIGS_LABEL]).toBe('/configs');
    expect(await readdir(result.dir)).toEqual(['configs']);
    expect(await readFile(join(result.dir, 'configs/pkg/catalog.json'), 'utf8')).toContain('olm.package');
    expect((await stat(join(result.dir, 'configs/pkg/catalog.json'))).mode & 0o777).toBe(0o400);
    expect((await stat(join(result.dir, 'configs/pkg'))).mode & 0o777).toBe(0o500);
    expect(result.unpackedAt.getTime()).toBe((await stat(result.dir)).mtime.getTime());
  });

  it('serves a digest reference from the cache without contacting the registry', async () => {
    const image = catalogImage();
    await client.push(`${bed().registry.host}/c:1`, image);
    const ref = `${bed().registry.host}/c@${image.digest}`;
    const first = await client.pull(ref, { owner: 'c', cache: bed().cache });
    bed().registry.requests.length = 0;
    await bed().registry.close();
    const second = await client.pull(ref, { owner: 'c', cache: bed().cache });
    expect(second).toMatchObject({ dir: first.dir, fromCache: true, digestRef: ref });
    expect(second.unpackedAt.getTime()).toBe(first.unpackedAt.getTime());
    expect(bed().registry.requests).toEqual([]);
  });

  it('shares one unpack between concurrent pulls of the same digest', async () => {
    const image = catalogImage();
    await client.push(`${bed().registry.host}/c:1`, image);
    bed().registry.requests.length = 0;
    const ref = `${bed().registry.host}/c@${image.digest}`;
    const [a, b] = await Promise.all([client.pull(ref, { owner: 'x', cache: bed().cache }), client.pull(ref, { owner: 'x', cache: bed().cache })]);
    expect(a).toEqual(b);
    expect(bed().registry.requests.filter((r) => r.startsWith('GET') && r.includes(`/blobs/${image.layers[0]?.digest}`))).toHaveLength(1);
  });

  it('garbage-collects the previous digest of the same owner', async () => {
    const one = catalogImage();
    const two = catalogImage({ 'configs/more.json': '{}' });
    await client.push(`${bed().registry.host}/c:1`, one);
    await client.pull(`${bed().registry.host}/c:1`, { owner: 'o', cache: bed().cache });
    await client.push(`${bed().registry.host}/c:1`, two);
    await client.pull(`${bed().registry.host}/c:1`, { owner: 'o', cache: bed().cache });
    expect((await readdir(join(bed().dir, 'unpack', 'o'))).sort()).toEqual([two.digest, `${two.digest}.config.json`]);
  });

  it('selects the configured platform from a multi-arch index and reports the index digest', async () => {
    const amd = buildImage({ files: { 'arch.txt': 'amd64' }, platform: { os: 'linux', architecture: 'amd64' } });
    const arm = buildImage({ files: { 'arch.txt': 'arm64' }, platform: { os: 'linux', architecture: 'arm64', variant: 'v8' } });
    const index = buildIndex([arm, amd], 'docker');
    await client.push(`${bed().registry.host}/multi:1`, index);
    const armClient = createImageClient({ insecureRegistries: [bed().registry.host], platform: { os: 'linux', architecture: 'arm64' } });
    try {
      const gotAmd = await client.pull(`${bed().registry.host}/multi:1`, { owner: 'amd', cache: bed().cache });
      const gotArm = await armClient.pull(`${bed().registry.host}/multi:1`, { owner: 'arm', cache: bed().cache });
      expect(gotAmd.digest).toBe(index.digest);
      expect(await readFile(join(gotAmd.dir, 'arch.txt'), 'utf8')).toBe('amd64');
      expect(await readFile(join(gotArm.dir, 'arch.txt'), 'utf8')).toBe('arm64');
      const s390 = createImageClient({ insecureRegistries: [bed().registry.host], platform: { os: 'linux', architecture: 's390x' } });
      const err = await errorOf(s390.pull(`${bed().registry.host}/multi:1`, { owner: 's', cache: bed().cache }));
      expect(err.message).toMatch(/^error copying image: no image found in manifest list for architecture "s390x"/);
    } finally {
      armClient.close();
    }
  });

  it('makes a missing configs label terminal only for digest references', async () => {
    const image = buildImage({ files: { 'configs/x.json': '{}' } });
    await client.push(`${bed().registry.host}/nolabel:1`, image);
    const want = `error applying image: catalog image is missing the required label "${CATALOG_CONFIGS_LABEL}"`;
    const byTag = await errorOf(
      client.pull(`${bed().registry.host}/nolabel:1`, { owner: 'n', cache: bed().cache, labelPathFilter: CATALOG_CONFIGS_LABEL }),
    );
    expect(byTag.message).toBe(want);
    expect(isTerminal(byTag)).toBe(false);
    const byDigest = await errorOf(
      client.pull(`${bed().registry.host}/nolabel@${image.digest}`, { owner: 'n', cache: bed().cache, labelPathFilter: CATALOG_CONFIGS_LABEL }),
    );
    // Upstream wraps the terminal error, so Go prints its "terminal error: " marker mid-message.
    expect(byDigest.message).toBe(want.replace('error applying image: ', 'error applying image: terminal error: '));
    expect(isTerminal(byDigest)).toBe(true);
    await expect(readdir(join(bed().dir, 'unpack', 'n'))).rejects.toThrow('ENOENT');
  });

  it('fails a corrupted layer with a digest mismatch and leaves no partial tree', async () => {
    const image = catalogImage();
    await client.push(`${bed().registry.host}/c:1`, image);
    const layer = image.layers[0]?.digest ?? '';
    bed().registry.faults.corruptBlobs.add(layer);
    const err = await errorOf(client.pull(`${bed().registry.host}/c:1`, { owner: 'bad', cache: bed().cache }));
    expect(err.message).toMatch(
      new RegExp(
        `^error applying image: error reading layer\\[0\\]: digest mismatch for blob ${layer} in ${bed().registry.host}/c: expected ${layer}, got sha256:`,
      ),
    );
    expect(isTerminal(err)).toBe(false);
    expect(await readdir(join(bed().dir, 'unpack'))).toEqual([]);
  });

  it('reports the digest mismatch, not the inflater error, for a blob corrupted mid-stream', async () => {
    const image = buildImage({ files: { 'big.bin': randomBytes(300_000) } });
    await client.push(`${bed().registry.host}/mid:1`, image);
    const layer = image.layers[0];
    if (layer === undefined) throw new Error('no layer');
    const stored = bed().registry.blobs.get(layer.digest) ?? Buffer.alloc(0);
    stored.fill(0xff, 100, 400);
    const err = await errorOf(client.pull(`${bed().registry.host}/mid:1`, { owner: 'mid', cache: bed().cache }));
    expect(err.message).toMatch(new RegExp(`^error applying image: error reading layer\\[0\\]: digest mismatch for blob ${layer.digest}`));
  });

  it('refuses configs larger than 4 MiB before reading them', async () => {
    const image = buildImage({ files: { f: 'x' }, labels: { huge: 'x'.repeat(4 * 1024 * 1024) } });
    await client.push(`${bed().registry.host}/big:1`, image);
    const err = await errorOf(client.pull(`${bed().registry.host}/big:1`, { owner: 'big', cache: bed().cache }));
    expect(err.message).toBe(`error copying image: blob ${image.config.digest} in ${bed().registry.host}/big is larger than 4194304 bytes`);
  });

  it('reports a layer that is not a tar archive as an apply error', async () => {
    const image = buildImage({ layers: [rawLayer(Buffer.alloc(1024, 0x41))], labels: {} });
    await client.push(`${bed().registry.host}/junk:1`, image);
    const err = await errorOf(client.pull(`${bed().registry.host}/junk:1`, { owner: 'j', cache: bed().cache }));
    expect(err.message).toBe('error applying image: error applying layer[0]: invalid tar header: checksum mismatch');
  });

  it('says which manifest is unknown, with status and registry error code, retryably', async () => {
    const err = await errorOf(client.pull(`${bed().registry.host}/missing:nope`, { owner: 'm', cache: bed().cache }));
    expect(err.message).toBe(
      `error getting manifest: error reading manifest nope in ${bed().registry.host}/missing: HTTP 404 Not Found: MANIFEST_UNKNOWN: manifest unknown`,
    );
    expect(isTerminal(err)).toBe(false);
  });

  it('keeps bad references terminal', async () => {
    expect(isTerminal(await errorOf(client.pull('missing:nope', { owner: 'm', cache: bed().cache })))).toBe(true);
    const noTag = await errorOf(client.pull(`${bed().registry.host}/repo`, { owner: 'm', cache: bed().cache }));
    expect(noTag.message).toBe(`error creating reference: Docker reference ${bed().registry.host}/repo has neither a tag nor a digest`);
    expect(isTerminal(noTag)).toBe(true);
  });

  it('resolves tags by GET when HEAD gives no digest', async () => {
    const image = catalogImage();
    await client.push(`${bed().registry.host}/c:1`, image);
    bed().registry.faults.omitDigestHeader = true;
    expect((await client.resolveDigest(`${bed().registry.host}/c:1`)).digest).toBe(image.digest);
    bed().registry.faults.refuseHead = true;
    expect((await client.resolveDigest(`${bed().registry.host}/c:1`)).digestRef).toBe(`${bed().registry.host}/c@${image.digest}`);
  });

  it('fails retryably with the socket error as cause when the registry is down', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const down = createImageClient({ insecureRegistries: [`127.0.0.1:${port}`] });
    const err = await errorOf(down.pull(`127.0.0.1:${port}/c:1`, { owner: 'd', cache: bed().cache }));
    expect(err.message).toContain(`error getting manifest: Get "http://127.0.0.1:${port}/v2/c/manifests/1": connect ECONNREFUSED`);
    expect(isTerminal(err)).toBe(false);
    let cause: unknown = err;
    while (cause instanceof Error && (cause as NodeJS.ErrnoException).code === undefined) cause = cause.cause;
    expect((cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('refuses HTTPS-only registries over plain HTTP unless configured insecure', async () => {
    const strict = createImageClient({});
    const err = await errorOf(strict.resolveDigest(`${bed().registry.host}/c:1`));
    expect(err.message).toContain(`Get "https://${bed().registry.host}/v2/c/manifests/1"`);
    strict.close();
  });
});

describe('push', () => {
  it('uploads only missing blobs and tags the manifest', async () => {
    const image = catalogImage();
    await client.push(`${bed().registry.host}/p:1`, image);
    bed().registry.requests.length = 0;
    expect(await client.push(`${bed().registry.host}/p:2`, image)).toBe(image.digest);
    expect(bed().registry.requests.filter((r) => r.startsWith('POST') || r.includes('/blobs/uploads/'))).toEqual([]);
    expect(bed().registry.requests).toContain('PUT /v2/p/manifests/2');
    expect((await client.resolveDigest(`${bed().registry.host}/p:2`)).digest).toBe(image.digest);
  });

  it('refuses references it cannot push to', async () => {
    const image = catalogImage();
    await expect(client.push(`${bed().registry.host}/p`, image)).rejects.toThrow(
      `cannot push to ${bed().registry.host}/p: the reference needs a tag`,
    );
    await expect(client.push(`${bed().registry.host}/p@sha256:${'0'.repeat(64)}`, image)).rejects.toThrow(`the image digest is ${image.digest}`);
  });
});

describe('readImageFiles', () => {
  it('reads a multi-layer bundle with whiteouts into memory and cleans up', async () => {
    const base = buildLayer([
      { path: 'manifests', type: 'dir' },
      { path: 'manifests/csv.yaml', type: 'file', data: Buffer.from('kind: ClusterServiceVersion') },
      { path: 'manifests/old.yaml', type: 'file', data: Buffer.from('kind: Old') },
      { path: 'metadata', type: 'dir' },
      { path: 'metadata/annotations.yaml', type: 'file', data: Buffer.from('annotations: {}') },
    ]);
    const top = buildLayer(
      [
        { path: 'manifests/.wh.old.yaml', type: 'file' },
        { path: 'manifests/crd.yaml', type: 'file', data: Buffer.from('kind: CustomResourceDefinition') },
      ],
      { compression: 'zstd' },
    );
    const image = buildImage({ layers: [base, top] });
    await client.push(`${bed().registry.host}/bundle:v1`, image);
    const tmp = join(bed().dir, 'tmp');
    await import('node:fs/promises').then((fs) => fs.mkdir(tmp));
    const got = await client.readImageFiles(`${bed().registry.host}/bundle:v1`, { tmpDir: tmp });
    expect([...got.files.keys()]).toEqual(['manifests/crd.yaml', 'manifests/csv.yaml', 'metadata/annotations.yaml']);
    expect(got.files.get('manifests/csv.yaml')?.toString()).toBe('kind: ClusterServiceVersion');
    expect(got.digestRef).toBe(`${bed().registry.host}/bundle@${image.digest}`);
    expect(await readdir(tmp)).toEqual([]);
    const capped = createImageClient({ insecureRegistries: [bed().registry.host], limits: { ...BUNDLE_IMAGE_LIMITS, maxUnpackedBytes: 40 } });
    await expect(capped.readImageFiles(`${bed().registry.host}/bundle:v1`, { tmpDir: tmp })).rejects.toThrow(
      `error applying image: image ${bed().registry.host}/bundle@${image.digest}: layer ${base.digest}: exceeds the limit of 40 unpacked bytes (--max-image-unpacked-bytes)`,
    );
    capped.close();
    expect(await readdir(tmp)).toEqual([]);
    await rm(tmp, { recursive: true });
  });
});
