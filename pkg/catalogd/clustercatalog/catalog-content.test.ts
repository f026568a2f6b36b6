// storeCatalogImage's choice between streaming and unpacking, with a real store (in-process
// ingest) and a real unpack cache; only the registry side is replaced by built layers in memory.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildLayer, type BuiltLayer, type OpenedImage, type PullOptions, type PullResult } from '../../shared/image/index.ts';
import { openedCatalogImage, storePerTest } from '../../../test/support/catalog-store.ts';
import { ContentStepError, createCatalogContentMetrics, storeCatalogImage } from './catalog-content.ts';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const REF = `registry.test/catalogs/ops@${DIGEST}`;
const PKG = '{"schema":"olm.package","name":"foo"}\n';
const log = pino({ level: 'silent' });

function catalogLayer(files: Record<string, string>, extra: Parameters<typeof buildLayer>[0] = []): BuiltLayer {
  return buildLayer([
    { path: 'configs', type: 'dir' },
    ...Object.entries(files).map(([p, d]) => ({ path: `configs/${p}`, type: 'file' as const, data: Buffer.from(d) })),
    ...extra,
  ]);
}

/** An image client over `layer`: `openLayers` streams it, `pull` unpacks `files` into the cache. */
function images(layer: BuiltLayer, files: Record<string, string>, calls: string[], openError?: Error) {
  return {
    async openLayers(): Promise<OpenedImage> {
      calls.push('openLayers');
      if (openError !== undefined) throw openError;
      return openedCatalogImage(REF, layer);
    },
    async pull(_ref: string, o: PullOptions): Promise<PullResult> {
      calls.push('pull');
      const entry =
        (await o.cache.fetch(o.owner, DIGEST)) ??
        (await o.cache.store(o.owner, DIGEST, { labels: {}, raw: {} }, async (dir) => {
          for (const [p, d] of Object.entries(files)) {
            await mkdir(join(dir, 'configs'), { recursive: true });
            await writeFile(join(dir, 'configs', p), d);
          }
        }));
      return { ...entry, digestRef: REF, fromCache: false };
    },
  };
}

describe('storeCatalogImage', () => {
  const bed = storePerTest('catalog-content-');
  let registry: Registry;

  beforeEach(() => {
    registry = new Registry();
  });

  const run = (img: ReturnType<typeof images>) =>
    storeCatalogImage(
      { images: img, unpackCache: bed().unpackCache, store: bed().store, metrics: createCatalogContentMetrics(registry) },
      { name: 'ops', ref: REF, unpackedAt: () => '2026-11-23T00:00:00Z', log },
    );
  const counted = async (): Promise<string> =>
    (await registry.metrics())
      .split('\n')
      .filter((l) => l.startsWith('catalogd_catalog_contents_stored_total{'))
      .join(' ');

  it('streams an image whose layer reads like a directory walk, and never pulls', async () => {
    const calls: string[] = [];
    const files = { 'foo.json': PKG };
    const stored = await run(images(catalogLayer(files), files, calls));
    expect(stored.streamed).toBe(true);
    expect(calls).toEqual(['openLayers']);
    expect(stored.version.info).toEqual({ digest: DIGEST, ref: REF, unpackedAt: '2026-11-23T00:00:00Z' });
    expect(await counted()).toBe('catalogd_catalog_contents_stored_total{method="streamed"} 1');
    expect(await bed().unpackCache.owners()).toEqual([]);
  });

  it('unpacks an image whose layer needs it, and stores the same content', async () => {
    const calls: string[] = [];
    const files = { 'foo.json': PKG };
    const linked = catalogLayer(files, [{ path: 'configs/link.json', type: 'symlink', linkname: 'foo.json' }]);
    const stored = await run(images(linked, files, calls));
    expect(stored.streamed).toBe(false);
    expect(calls).toEqual(['openLayers', 'pull']);
    expect(bed().store.get('ops')?.info.digest).toBe(DIGEST);
    expect(await counted()).toBe('catalogd_catalog_contents_stored_total{method="unpacked"} 1');
    // The unpacked tree is dropped once its content is stored.
    expect(await bed().unpackCache.fetch('ops', DIGEST)).toBeUndefined();
  });

  it('reports a catalog that does not decode as a store error, without unpacking it', async () => {
    const calls: string[] = [];
    const files = { 'foo.json': '{"schema":"olm.package","name":}' };
    const err = await run(images(catalogLayer(files), files, calls)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContentStepError);
    expect((err as ContentStepError).step).toBe('store');
    expect((err as Error).message).toMatch(/^configs\/foo\.json:1: /);
    expect(calls).toEqual(['openLayers']);
    expect(bed().store.get('ops')).toBeUndefined();
  });

  it('reports a failure to read the image as a source error', async () => {
    const calls: string[] = [];
    const err = await run(images(catalogLayer({}), {}, calls, new Error('error getting manifest: unauthorized'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContentStepError);
    expect((err as ContentStepError).step).toBe('source');
    expect((err as Error).message).toBe('error getting manifest: unauthorized');
    expect(calls).toEqual(['openLayers']);
  });

  it('ingests a tree already in the unpack cache instead of downloading the layer again', async () => {
    const calls: string[] = [];
    const files = { 'foo.json': PKG };
    const img = images(catalogLayer(files), files, calls);
    await img.pull(REF, { owner: 'ops', cache: bed().unpackCache });
    calls.length = 0;
    const stored = await run(img);
    expect(stored.streamed).toBe(false);
    expect(calls).toEqual(['openLayers', 'pull']);
  });
});
