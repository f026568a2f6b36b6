import { gzipSync, zstdCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decompress, detectCompression } from './decompress.ts';
import { sha256Digest, validateDigest, verifyBytes, verifyStream } from './digest.ts';
import { MediaTypes, parseImageConfig, parseManifest, selectPlatform } from './manifest.ts';

const D = (c: string): string => `sha256:${c.repeat(64)}`;

async function collect(it: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of it) parts.push(c);
  return Buffer.concat(parts);
}

async function* from(...chunks: Buffer[]): AsyncGenerator<Buffer> {
  for (const c of chunks) yield c;
}

describe('digests', () => {
  it.each([
    [D('a'), undefined],
    ['sha256', 'invalid checksum digest format'],
    ['sha256:', 'invalid checksum digest format'],
    [`sha256:${'a'.repeat(63)}`, 'invalid checksum digest length'],
    [`sha256:${'g'.repeat(64)}`, 'invalid checksum digest format'],
    [`sha512:${'b'.repeat(128)}`, undefined],
    [`md5:${'a'.repeat(32)}`, 'unsupported digest algorithm'],
    ['MD5!:abc', 'invalid checksum digest format'],
  ])('validate(%j) = %j', (digest, want) => {
    expect(validateDigest(digest)).toBe(want);
  });

  it('verifies streamed bytes and reports digest and size mismatches', async () => {
    const data = Buffer.from('layer bytes');
    const digest = sha256Digest(data);
    expect((await collect(verifyStream(from(data.subarray(0, 3), data.subarray(3)), { digest, size: data.length }, 'blob x'))).equals(data)).toBe(
      true,
    );
    await expect(collect(verifyStream(from(Buffer.from('layer bytez')), { digest, size: data.length }, 'blob x'))).rejects.toThrow(
      `digest mismatch for blob x: expected ${digest}, got sha256:`,
    );
    await expect(collect(verifyStream(from(data, Buffer.from('!')), { digest, size: data.length }, 'blob x'))).rejects.toThrow(
      'size mismatch for blob x: expected 11 bytes, got more',
    );
    await expect(collect(verifyStream(from(data.subarray(0, 5)), { digest, size: data.length }, 'blob x'))).rejects.toThrow(
      'size mismatch for blob x: expected 11 bytes, got 5',
    );
    expect(() => verifyBytes(data, { digest: D('0') }, 'config')).toThrow('digest mismatch for config');
  });
});

describe('parseManifest', () => {
  const manifest = {
    schemaVersion: 2,
    config: { mediaType: MediaTypes.ociConfig, digest: D('c'), size: 10 },
    layers: [{ mediaType: MediaTypes.ociLayerGzip, digest: D('1'), size: 20 }],
  };
  const bytes = (doc: unknown): Buffer => Buffer.from(JSON.stringify(doc));

  it('takes the kind from mediaType, then Content-Type, then shape', () => {
    expect(parseManifest(bytes({ ...manifest, mediaType: MediaTypes.dockerManifest }), undefined, 'm').mediaType).toBe(MediaTypes.dockerManifest);
    expect(parseManifest(bytes(manifest), `${MediaTypes.ociManifest}; charset=utf-8`, 'm').kind).toBe('image');
    expect(parseManifest(bytes({ schemaVersion: 2, manifests: [] }), 'application/json', 'm').kind).toBe('index');
  });

  it('rejects schema 1, unknown types, garbage and malformed documents', () => {
    expect(() =>
      parseManifest(bytes({ schemaVersion: 1, fsLayers: [] }), 'application/vnd.docker.distribution.manifest.v1+prettyjws', 'manifest x'),
    ).toThrow('unsupported manifest media type "application/vnd.docker.distribution.manifest.v1+prettyjws" for manifest x');
    expect(() => parseManifest(Buffer.from('<html>'), 'text/html', 'manifest x')).toThrow(/^error parsing manifest x: /);
    expect(() => parseManifest(bytes({ ...manifest, layers: [{ mediaType: 'x', digest: 'nope', size: 1 }] }), undefined, 'manifest x')).toThrow(
      'error parsing manifest x: layers.0.digest: invalid digest',
    );
  });
});

describe('selectPlatform', () => {
  const index = {
    schemaVersion: 2 as const,
    manifests: [
      { mediaType: MediaTypes.ociManifest, digest: D('1'), size: 1, platform: { os: 'linux', architecture: 'arm64', variant: 'v8' } },
      { mediaType: MediaTypes.ociManifest, digest: D('2'), size: 1, platform: { os: 'linux', architecture: 'amd64' } },
      { mediaType: MediaTypes.ociManifest, digest: D('3'), size: 1, platform: { os: 'unknown', architecture: 'unknown' } },
    ],
  };

  it('picks by OS, architecture (normalised) and variant', () => {
    expect(selectPlatform(index, MediaTypes.ociIndex, { os: 'linux', architecture: 'amd64' }).digest).toBe(D('2'));
    expect(selectPlatform(index, MediaTypes.ociIndex, { os: 'linux', architecture: 'x86_64' }).digest).toBe(D('2'));
    expect(selectPlatform(index, MediaTypes.ociIndex, { os: 'linux', architecture: 'aarch64', variant: 'v8' }).digest).toBe(D('1'));
  });

  it('names the platform and the offered ones when nothing matches', () => {
    expect(() => selectPlatform(index, MediaTypes.dockerManifestList, { os: 'linux', architecture: 's390x' })).toThrow(
      'no image found in manifest list for architecture "s390x", variant "", OS "linux" (available: linux/arm64/v8, linux/amd64, unknown/unknown)',
    );
  });
});

describe('parseImageConfig', () => {
  it('keeps labels (null tolerated) and the raw document', () => {
    const raw = { os: 'linux', architecture: 'amd64', config: { Labels: { a: 'b' } }, history: [] };
    expect(parseImageConfig(Buffer.from(JSON.stringify(raw)), 'cfg')).toEqual({ os: 'linux', architecture: 'amd64', labels: { a: 'b' }, raw });
    expect(parseImageConfig(Buffer.from('{"config":{"Labels":null}}'), 'cfg').labels).toEqual({});
    expect(() => parseImageConfig(Buffer.from('{"config":{"Labels":{"a":1}}}'), 'cfg')).toThrow(/^error parsing cfg: config\.Labels\.a/);
  });
});

describe('decompress', () => {
  const tar = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 251));
  it.each([
    ['gzip', gzipSync(tar)],
    ['zstd', zstdCompressSync(tar)],
    ['none', tar],
  ])('detects and inflates %s', async (kind, data) => {
    expect(detectCompression(data)).toBe(kind);
    const pieces = [data.subarray(0, 2), data.subarray(2, 5), data.subarray(5)];
    expect((await collect(decompress(from(...pieces)))).equals(tar)).toBe(true);
  });

  it('rejects xz and bzip2, and corrupt gzip', async () => {
    await expect(collect(decompress(from(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 1]))))).rejects.toThrow(
      'unsupported layer compression: xz',
    );
    await expect(collect(decompress(from(Buffer.from('BZh91AY'))))).rejects.toThrow('unsupported layer compression: bzip2');
    const broken = Buffer.from(gzipSync(tar));
    broken.fill(0xff, 12, broken.length - 8);
    await expect(collect(decompress(from(broken)))).rejects.toThrow();
  });

  it('surfaces errors of the source through the inflater', async () => {
    async function* failing(): AsyncGenerator<Buffer> {
      yield gzipSync(tar).subarray(0, 20);
      throw new Error('digest mismatch for blob y');
    }
    await expect(collect(decompress(failing()))).rejects.toThrow('digest mismatch for blob y');
  });
});
