import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildCatalogImage, buildImage, buildIndex, filesToEntries } from './build.ts';
import { sha256Digest } from './digest.ts';
import { MediaTypes, parseImageConfig, parseManifest } from './manifest.ts';
import { CATALOG_CONFIGS_LABEL } from './path-filter.ts';
import { readTar } from './tar-reader.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'olmv1-build-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function* once(b: Buffer): AsyncGenerator<Buffer> {
  yield b;
}

describe('buildCatalogImage', () => {
  it('packs the FBC under configs/ with the label, deterministically', async () => {
    const fbc = join(dir, 'fbc');
    await mkdir(join(fbc, 'pkg-b'), { recursive: true });
    await mkdir(join(fbc, 'pkg-a'));
    await writeFile(join(fbc, 'pkg-b', 'catalog.yaml'), 'schema: olm.package\nname: b\n');
    await writeFile(join(fbc, 'pkg-a', 'catalog.json'), '{"schema":"olm.package","name":"a"}');
    await writeFile(join(fbc, '.indexignore'), 'README.md\n');

    const image = await buildCatalogImage(fbc);
    const again = await buildCatalogImage(fbc);
    expect(again.digest).toBe(image.digest);

    const manifest = parseManifest(image.manifest, undefined, 'm');
    expect(manifest.kind === 'image' && manifest.mediaType).toBe(MediaTypes.ociManifest);
    expect(image.digest).toBe(sha256Digest(image.manifest));
    const config = parseImageConfig(image.config.data, 'c');
    expect(config).toMatchObject({ os: 'linux', architecture: 'amd64', labels: { [CATALOG_CONFIGS_LABEL]: '/configs' } });
    const rawConfig = config.raw as { rootfs: { diff_ids: string[] } };
    const tar = gunzipSync(image.layers[0]?.data ?? Buffer.alloc(0));
    expect(rawConfig.rootfs.diff_ids).toEqual([sha256Digest(tar)]);

    const names: string[] = [];
    for await (const e of readTar(once(tar))) {
      names.push(e.header.name);
      expect([e.header.uid, e.header.gid, e.header.mtimeMs]).toEqual([0, 0, 0]);
      expect(e.header.mode).toBe(e.header.type === 'dir' ? 0o755 : 0o644);
    }
    expect(names).toEqual([
      'configs/',
      'configs/.indexignore',
      'configs/pkg-a/',
      'configs/pkg-a/catalog.json',
      'configs/pkg-b/',
      'configs/pkg-b/catalog.yaml',
    ]);
  });

  it('rejects what it cannot package, naming the path', async () => {
    await expect(buildCatalogImage(join(dir, 'missing'))).rejects.toThrow(`open ${JSON.stringify(join(dir, 'missing'))}: no such file or directory`);
    await writeFile(join(dir, 'file'), 'x');
    await expect(buildCatalogImage(join(dir, 'file'))).rejects.toThrow(/is not a directory/);
    await mkdir(join(dir, 'fbc'));
    await symlink('/etc/hostname', join(dir, 'fbc', 'link'));
    await expect(buildCatalogImage(join(dir, 'fbc'))).rejects.toThrow(
      `refusing ${JSON.stringify(join(dir, 'fbc', 'link'))}: a symbolic link leading outside ${JSON.stringify(join(dir, 'fbc'))}`,
    );
  });
});

describe('buildImage / buildIndex', () => {
  it('adds parent directories and rejects escaping paths', () => {
    expect(filesToEntries({ '/a/b/c.txt': 'x', 'a/d': 'y' }).map((e) => `${e.type}:${e.path}`)).toEqual([
      'dir:a',
      'dir:a/b',
      'file:a/b/c.txt',
      'file:a/d',
    ]);
    expect(() => filesToEntries({ '../x': 'y' })).toThrow('invalid image file path "../x"');
  });

  it('builds Docker v2 images and manifest lists', () => {
    const image = buildImage({ files: { f: 'x' }, format: 'docker', labels: { l: 'v' } });
    expect(image.mediaType).toBe(MediaTypes.dockerManifest);
    expect(image.config.mediaType).toBe(MediaTypes.dockerConfig);
    expect(image.layers[0]?.mediaType).toBe(MediaTypes.dockerLayerGzip);
    const index = buildIndex([image], 'docker');
    const parsed = parseManifest(index.manifest, undefined, 'i');
    expect(parsed.kind === 'index' && parsed.index.manifests[0]).toMatchObject({
      digest: image.digest,
      platform: { os: 'linux', architecture: 'amd64' },
    });
    expect(() => buildImage({})).toThrow('exactly one of files or layers');
  });

  it('writes the run-time config beside the labels, and nothing of it when none is given', () => {
    const run = { User: '65532:65532', Entrypoint: ['/bin/op'], Env: ['A=b'], ExposedPorts: ['8080/tcp'] };
    const image = buildImage({ files: { f: 'x' }, labels: { l: 'v' }, run });
    expect(JSON.parse(image.config.data.toString()).config).toEqual({
      User: '65532:65532',
      Entrypoint: ['/bin/op'],
      Env: ['A=b'],
      ExposedPorts: { '8080/tcp': {} },
      Labels: { l: 'v' },
    });
    expect(parseImageConfig(image.config.data, image.config.digest).labels).toEqual({ l: 'v' });
    expect(JSON.parse(buildImage({ files: { f: 'x' } }).config.data.toString()).config).toEqual({ Labels: {} });
  });
});
