import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogImage, buildLayer, type BuiltLayer } from '../../shared/image/index.ts';
import { CONTENT_FILES } from './content-writer.ts';
import { createProcessIngest, ingestInProcess } from './ingest.ts';
import { CatalogContentError, type CatalogLayers } from './catalog-layers.ts';
import { ingestLayersInProcess } from './ingest-layers.ts';
import { splitBySizes } from './split-stream.ts';

const TESTDATA = join(dirname(fileURLToPath(import.meta.url)), '../../shared/fbc/testdata');

/** A layer as the registry would stream it, in pieces of `piece` bytes. */
function layersOf(blobs: readonly BuiltLayer[], pathFilter: string | undefined = '/configs', piece = 1000): CatalogLayers {
  return {
    pathFilter,
    layers: blobs.map((b) => ({
      size: b.size,
      async *open() {
        for (let i = 0; i < b.data.length; i += piece) yield b.data.subarray(i, i + piece);
      },
    })),
  };
}

async function* from(...parts: string[]): AsyncGenerator<Buffer> {
  for (const p of parts) yield Buffer.from(p);
}

async function text(it: AsyncIterable<Buffer>): Promise<string> {
  let s = '';
  for await (const b of it) s += b.toString();
  return s;
}

describe('splitBySizes', () => {
  it('cuts a stream into blobs of the announced sizes, across chunk boundaries', async () => {
    const out: string[] = [];
    for await (const blob of splitBySizes(from('abc', 'defg', 'h', '', 'ij'), [2, 0, 5, 3])) out.push(await text(blob));
    expect(out).toEqual(['ab', '', 'cdefg', 'hij']);
  });

  it('rejects a short or long stream, and a blob not read to its end', async () => {
    const drain = async (source: AsyncIterable<Buffer>, sizes: number[], read = true): Promise<void> => {
      for await (const blob of splitBySizes(source, sizes)) if (read) await text(blob);
    };
    await expect(drain(from('abc'), [2, 2])).rejects.toThrow('catalog layer stream ended 1 bytes early');
    await expect(drain(from('abc', 'd'), [2, 1])).rejects.toThrow('catalog layer stream carries more than its 2 layers');
    await expect(drain(from('abcd'), [2, 1])).rejects.toThrow('catalog layer stream carries more than its 2 layers');
    await expect(drain(from('abc'), [2, 1], false)).rejects.toThrow('not read to its end');
  });
});

describe('streamed catalog ingest', () => {
  let root: string;
  let unpacked: string;
  let catalog: BuiltLayer;
  const ingest = createProcessIngest();

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'ingest-layers-'));
    // The tree the image unpacks to, for the directory ingest to compare with.
    unpacked = join(root, 'unpacked');
    await cp(join(TESTDATA, 'valid'), join(unpacked, 'configs'), { recursive: true });
    const image = await buildCatalogImage(join(TESTDATA, 'valid'));
    catalog = image.layers[0]!;
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  let n = 0;
  async function target(): Promise<string> {
    const dir = join(root, `out-${n++}`);
    await mkdir(dir);
    return dir;
  }

  async function contentOf(dir: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const f of Object.values(CONTENT_FILES)) out[f] = (await readFile(join(dir, f))).toString('base64');
    return out;
  }

  it('writes byte for byte what the directory ingest writes, in process and in the ingest process', async () => {
    const byDir = await target();
    const summary = await ingestInProcess(unpacked, byDir);
    const expected = await contentOf(byDir);

    const inProcess = await target();
    expect(await ingestLayersInProcess(layersOf([catalog]), inProcess)).toEqual(summary);
    expect(await contentOf(inProcess)).toEqual(expected);

    const inChild = await target();
    expect(await ingest.layers(layersOf([catalog], '/configs', 333), inChild)).toEqual(summary);
    expect(await contentOf(inChild)).toEqual(expected);
  });

  it('reads past base layers and entries outside the labelled directory, and zstd layers', async () => {
    const base = buildLayer(
      [
        { path: 'bin', type: 'dir' },
        { path: 'bin/opm', type: 'file', data: Buffer.alloc(100_000, 1) },
        { path: 'bin/sh', type: 'symlink', linkname: 'opm' },
      ],
      { compression: 'zstd' },
    );
    const expected = await target();
    await ingestInProcess(unpacked, expected);
    const out = await target();
    await ingest.layers(layersOf([base, catalog]), out);
    expect(await contentOf(out)).toEqual(await contentOf(expected));
  });

  it('reports a catalog that fails to decode as the directory ingest does, as its content error', async () => {
    const image = await buildCatalogImage(join(TESTDATA, 'invalid-decode'));
    const dir = join(root, 'invalid');
    await cp(join(TESTDATA, 'invalid-decode'), join(dir, 'configs'), { recursive: true });
    const walkError = await ingestInProcess(dir, await target()).then(
      () => undefined,
      (err: unknown) => (err as Error).message,
    );
    expect(walkError).toMatch(/^configs\//);
    for (const run of [ingestLayersInProcess, ingest.layers]) {
      const err = await run(layersOf(image.layers), await target()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CatalogContentError);
      expect((err as Error).message).toBe(walkError);
    }
  });

  it('refuses a layer that needs unpacking with a reason that is not a content error', async () => {
    const linked = buildLayer([
      { path: 'configs', type: 'dir' },
      { path: 'configs/a.json', type: 'file', data: Buffer.from('{"schema":"olm.package","name":"a"}') },
      { path: 'configs/b.json', type: 'symlink', linkname: 'a.json' },
    ]);
    for (const run of [ingestLayersInProcess, ingest.layers]) {
      const err = await run(layersOf([linked]), await target()).catch((e: unknown) => e);
      expect(err).not.toBeInstanceOf(CatalogContentError);
      expect((err as Error).message).toBe('configs/b.json is a symlink');
    }
  });

  it("fails with the feed's error when a layer cannot be read to its end, even if the content decoded", async () => {
    const broken: CatalogLayers = {
      pathFilter: '/configs',
      layers: [
        {
          size: catalog.size,
          async *open() {
            yield catalog.data;
            throw new Error('digest mismatch for blob sha256:test');
          },
        },
      ],
    };
    await expect(ingest.layers(broken, await target())).rejects.toThrow('digest mismatch for blob sha256:test');
    await expect(ingestLayersInProcess(broken, await target())).rejects.toThrow('digest mismatch for blob sha256:test');
  });

  it('fails when the announced sizes do not match the bytes', async () => {
    const short = layersOf([{ ...catalog, size: catalog.size + 10 }]);
    await expect(ingest.layers(short, await target())).rejects.toThrow('catalog layer stream ended 10 bytes early');
  });
});
