import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { createZstdCompress } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { zeroFileLayer, zeroLayer } from '../../../test/support/image-bombs.ts';
import { buildImage, buildLayer } from './build.ts';
import { createImageClient } from './client.ts';
import { deleteReadOnly } from './fs-tree.ts';
import { readLayerEntries } from './layer-entries.ts';
import { tarHeaderBlock } from './tar-writer.ts';
import { BUNDLE_IMAGE_LIMITS, CATALOG_IMAGE_LIMITS, ImageBudget, ImageLimitError, type ImageLimits } from './limits.ts';
import { CATALOG_CONFIGS_LABEL } from './path-filter.ts';
import { imageTestBed } from '../../../test/support/image-test-bed.ts';

const MiB = 1 << 20;
const GiB = 1 << 30;

const bed = imageTestBed('olmv1-limits-test-', deleteReadOnly);

async function pullError(limits: ImageLimits, image: ReturnType<typeof buildImage>, name: string): Promise<Error> {
  const client = createImageClient({ insecureRegistries: [bed().registry.host], limits });
  try {
    await client.push(`${bed().registry.host}/${name}:v1`, image);
    await client.pull(`${bed().registry.host}/${name}:v1`, { owner: 'o', cache: bed().cache });
  } catch (err) {
    return err as Error;
  } finally {
    client.close();
  }
  throw new Error('expected the pull to fail');
}

describe('image caps while unpacking', () => {
  it('has defaults for catalog and bundle images', () => {
    expect(CATALOG_IMAGE_LIMITS).toEqual({ maxDecompressedBytes: 4 * GiB, maxUnpackedBytes: 256 * MiB, maxFiles: 100_000 });
    expect(BUNDLE_IMAGE_LIMITS).toEqual({ maxDecompressedBytes: GiB, maxUnpackedBytes: 32 * MiB, maxFiles: 10_000 });
  });

  it('refuses a file larger than the unpacked cap by its header, before writing any of it, and leaves nothing in the cache', async () => {
    // ~1 MB compressed: one file declaring 1 GiB of zeros.
    const layer = zeroFileLayer('big.bin', GiB);
    expect(layer.size).toBeLessThan(2 * MiB);
    const image = buildImage({ layers: [layer] });
    const err = await pullError(CATALOG_IMAGE_LIMITS, image, 'bomb');
    expect(err.message).toBe(
      `error applying image: image ${bed().registry.host}/bomb@${image.digest}: layer ${layer.digest}: exceeds the limit of ${256 * MiB} unpacked bytes (--max-image-unpacked-bytes)`,
    );
    expect(err.cause).toBeInstanceOf(ImageLimitError);
    expect(await readdir(join(bed().dir, 'unpack'))).toEqual([]);
  });

  it('stops inflating at the decompressed cap: a 1 MB gzip layer of zeros', async () => {
    const layer = zeroLayer(GiB);
    const image = buildImage({ layers: [buildLayer([{ path: 'a', type: 'file', data: Buffer.from('x') }]), layer] });
    const err = await pullError({ ...CATALOG_IMAGE_LIMITS, maxDecompressedBytes: 64 * MiB }, image, 'zeros');
    expect(err.message).toBe(
      `error applying image: image ${bed().registry.host}/zeros@${image.digest}: layer ${layer.digest}: exceeds the limit of ${64 * MiB} decompressed bytes (--max-image-decompressed-bytes)`,
    );
    expect(await readdir(join(bed().dir, 'unpack'))).toEqual([]);
  });

  it('stops inflating a zstd layer at the decompressed cap too: a file of 1 GiB of zeros in ~32 KB', async () => {
    // One zstd frame (Node's decompressor reads only the first of concatenated frames): the
    // file's tar header, then its zeros streamed through the compressor.
    const zstd = createZstdCompress();
    const out: Buffer[] = [];
    zstd.on('data', (b: Buffer) => out.push(b));
    const done = once(zstd, 'end');
    zstd.write(tarHeaderBlock({ name: 'configs/big.json', typeflag: '0', size: GiB }));
    for (let i = 0; i < 1024; i++) if (!zstd.write(Buffer.alloc(MiB))) await once(zstd, 'drain');
    zstd.end();
    await done;
    const data = Buffer.concat(out);
    expect(data.length).toBeLessThan(64 * 1024);
    const limits = { ...CATALOG_IMAGE_LIMITS, maxUnpackedBytes: 2 * GiB, maxDecompressedBytes: 64 * MiB };
    const budget = new ImageBudget('r/cat@sha256:x', limits, [{ digest: 'sha256:zstd', size: data.length }]);
    let inflated = 0;
    const count = budget.decompressed.bind(budget);
    budget.decompressed = (n) => {
      inflated += n;
      count(n);
    };
    const blob = async function* (): AsyncGenerator<Buffer> {
      yield data;
    };
    const read = async (): Promise<void> => {
      for await (const e of readLayerEntries([blob()], undefined, { budget })) for await (const _ of e.body);
    };
    await expect(read()).rejects.toThrow(new ImageLimitError('r/cat@sha256:x', 'sha256:zstd', 'decompressed', 64 * MiB));
    expect(inflated).toBeGreaterThan(64 * MiB);
    expect(inflated).toBeLessThan(65 * MiB);
  });

  it('counts entries against the file cap', async () => {
    const files = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, 'x']));
    const image = buildImage({ files });
    // Ten files and no directories fit a cap of ten.
    const client = createImageClient({ insecureRegistries: [bed().registry.host], limits: { ...BUNDLE_IMAGE_LIMITS, maxFiles: 10 } });
    await client.push(`${bed().registry.host}/ten:v1`, image);
    await expect(client.pull(`${bed().registry.host}/ten:v1`, { owner: 'ten', cache: bed().cache })).resolves.toMatchObject({ fromCache: false });
    client.close();
    const err = await pullError({ ...BUNDLE_IMAGE_LIMITS, maxFiles: 9 }, image, 'nine');
    expect(err.message).toMatch(/: exceeds the limit of 9 files \(--max-image-files\)$/);
  });

  it('refuses layers whose declared compressed size exceeds the decompressed cap before downloading them', async () => {
    const big = buildLayer([{ path: 'a', type: 'file', data: Buffer.alloc(4096, 1) }], { compression: 'none' });
    const image = buildImage({ layers: [big] });
    bed().registry.requests.length = 0;
    const err = await pullError({ ...BUNDLE_IMAGE_LIMITS, maxDecompressedBytes: 4000 }, image, 'declared');
    expect(err.message).toBe(
      `error applying image: image ${bed().registry.host}/declared@${image.digest}: layer ${big.digest}: exceeds the limit of 4000 decompressed bytes (--max-image-decompressed-bytes)`,
    );
    expect(bed().registry.requests.filter((r) => r.startsWith('GET') && r.includes(`/blobs/${big.digest}`))).toEqual([]);
  });

  it('applies the label filter first: only the catalog directory counts as unpacked', async () => {
    const image = buildImage({
      files: { 'configs/pkg/catalog.json': '{"schema":"olm.package","name":"pkg"}', 'opm/binary': 'x'.repeat(10_000) },
      labels: { [CATALOG_CONFIGS_LABEL]: '/configs' },
    });
    const client = createImageClient({ insecureRegistries: [bed().registry.host], limits: { ...CATALOG_IMAGE_LIMITS, maxUnpackedBytes: 1000 } });
    await client.push(`${bed().registry.host}/cat:v1`, image);
    await expect(
      client.pull(`${bed().registry.host}/cat:v1`, { owner: 'cat', cache: bed().cache, labelPathFilter: CATALOG_CONFIGS_LABEL }),
    ).resolves.toMatchObject({
      fromCache: false,
    });
    client.close();
  });

  it('reads no further into a streamed layer than the cap', async () => {
    const layer = zeroFileLayer('configs/big.json', GiB);
    const budget = new ImageBudget('r/cat@sha256:x', CATALOG_IMAGE_LIMITS, [{ digest: layer.digest, size: layer.size }]);
    const seen: string[] = [];
    let inflated = 0;
    const blob = async function* (): AsyncGenerator<Buffer> {
      yield layer.data;
    };
    const read = async (): Promise<void> => {
      const onBytes = budget.decompressed.bind(budget);
      budget.decompressed = (n) => {
        inflated += n;
        onBytes(n);
      };
      for await (const e of readLayerEntries([blob()], undefined, { budget })) seen.push(e.path);
    };
    await expect(read()).rejects.toThrow(new ImageLimitError('r/cat@sha256:x', layer.digest, 'unpacked', 256 * MiB));
    // Refused at the header: the entry was never handed on, and a MB or so was inflated, not the GiB.
    expect(seen).toEqual([]);
    expect(inflated).toBeLessThan(2 * MiB);
  });
});
