// Image caps against the real distribution registry: catalog images through catalogd's content
// path (the layer streamed into a real ingest process, and the fallback pull and unpack) and
// bundle images through operator-controller's: a ~1 MB layer that would become a GiB is
// refused while it streams, with the image, the layer and the cap named, and nothing is left
// in the unpack cache or the content store.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ContentStepError, storeCatalogImage } from '../../pkg/catalogd/clustercatalog/index.ts';
import { LocalDirStore, createProcessIngest } from '../../pkg/catalogd/storage/index.ts';
import { isLimitExceeded } from '../../pkg/shared/errors/index.ts';
import {
  BUNDLE_IMAGE_LIMITS,
  buildImage,
  buildLayer,
  CATALOG_CONFIGS_LABEL,
  CATALOG_IMAGE_LIMITS,
  createDiskImageCache,
  createImageClient,
  filesToEntries,
  type ImageCache,
  type ImageLimits,
  ImageLimitError,
  type PullOptions,
} from '../../pkg/shared/image/index.ts';
import { fetchBundle } from '../../pkg/operator-controller/bundlepull/index.ts';
import { zeroFileLayer, zeroLayer } from '../support/image-bombs.ts';

const { anonymous } = inject('envtestRegistries');
const log = pino({ level: 'silent' });
const GiB = 1 << 30;

let work: string;
let unpackCache: ImageCache;
let store: LocalDirStore;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'olmv1-image-limits-it-'));
  unpackCache = createDiskImageCache(join(work, 'unpack'));
  store = new LocalDirStore({ root: join(work, 'store'), ingest: createProcessIngest(), logger: log });
  await store.open();
});

afterAll(async () => {
  await store.close();
  await rm(work, { recursive: true, force: true });
});

const repo = (name: string): string => `${anonymous.host}/${name}-${randomBytes(3).toString('hex')}`;

/** A catalog image: a valid catalog layer, then `extra`. */
function catalogImage(extra: ReturnType<typeof buildLayer>): ReturnType<typeof buildImage> {
  const catalog = buildLayer(filesToEntries({ 'configs/pkg/catalog.json': '{"schema":"olm.package","name":"pkg"}\n' }));
  return buildImage({ layers: [catalog, extra], labels: { [CATALOG_CONFIGS_LABEL]: '/configs' } });
}

async function push(name: string, image: ReturnType<typeof buildImage>): Promise<string> {
  const client = createImageClient({ insecureRegistries: [anonymous.host] });
  try {
    await client.push(`${name}:v1`, image);
  } finally {
    client.close();
  }
  return `${name}:v1`;
}

/** storeCatalogImage as catalogd runs it, with `limits`; returns its error and the pulls it made. */
async function storeCatalog(catalog: string, ref: string, limits: ImageLimits): Promise<{ err: unknown; pulls: number }> {
  const client = createImageClient({ insecureRegistries: [anonymous.host], limits });
  let pulls = 0;
  const images = {
    openLayers: client.openLayers,
    pull: (r: string, o: PullOptions) => {
      pulls++;
      return client.pull(r, o);
    },
  };
  try {
    await storeCatalogImage({ images, unpackCache, store }, { name: catalog, ref, unpackedAt: () => new Date().toISOString(), log });
    return { err: undefined, pulls };
  } catch (err) {
    return { err, pulls };
  } finally {
    client.close();
  }
}

async function leftovers(): Promise<string[]> {
  const unpacked = await readdir(join(work, 'unpack')).catch(() => []);
  const stored = (await readdir(join(work, 'store'))).filter((n) => n.startsWith('.tmp-'));
  return [...unpacked, ...stored];
}

describe('catalog images over their caps', () => {
  it('refuses a file declaring 1 GiB while the layer streams into the ingest process, without falling back to unpacking', async () => {
    const bomb = zeroFileLayer('configs/zeros.json', GiB);
    expect(bomb.size).toBeLessThan(2 << 20);
    const image = catalogImage(bomb);
    const name = repo('catalog-bomb');
    const ref = await push(name, image);

    const { err, pulls } = await storeCatalog('bomb', ref, CATALOG_IMAGE_LIMITS);
    expect(err).toBeInstanceOf(ContentStepError);
    expect((err as ContentStepError).step).toBe('source');
    expect((err as Error).message).toBe(
      `error applying image: image ${name}@${image.digest}: layer ${bomb.digest}: exceeds the limit of ${256 << 20} unpacked bytes (--max-image-unpacked-bytes)`,
    );
    // Retried no sooner than catalogd's floor (a LimitExceededError).
    expect(isLimitExceeded(err)).toBe(true);
    expect(pulls).toBe(0);
    expect(store.get('bomb')).toBeUndefined();
    expect(await leftovers()).toEqual([]);
  });

  it('refuses the same image when it is pulled and unpacked, and leaves nothing in the cache', async () => {
    const bomb = zeroFileLayer('configs/zeros.json', GiB);
    const image = catalogImage(bomb);
    const name = repo('catalog-bomb-pull');
    const ref = await push(name, image);
    const client = createImageClient({ insecureRegistries: [anonymous.host] });
    try {
      const err = await client.pull(ref, { owner: 'bomb-pull', cache: unpackCache, labelPathFilter: CATALOG_CONFIGS_LABEL }).catch((e: unknown) => e);
      expect((err as Error).message).toBe(
        `error applying image: image ${name}@${image.digest}: layer ${bomb.digest}: exceeds the limit of ${256 << 20} unpacked bytes (--max-image-unpacked-bytes)`,
      );
      expect((err as Error).cause).toBeInstanceOf(ImageLimitError);
    } finally {
      client.close();
    }
    expect(await leftovers()).toEqual([]);
  });

  it('stops inflating a gzip layer of zeros at the decompressed cap in the ingest process', async () => {
    const zeros = zeroLayer(GiB);
    const image = catalogImage(zeros);
    const name = repo('catalog-zeros');
    const ref = await push(name, image);
    const { err, pulls } = await storeCatalog('zeros', ref, { ...CATALOG_IMAGE_LIMITS, maxDecompressedBytes: 64 << 20 });
    expect((err as Error).message).toBe(
      `error applying image: image ${name}@${image.digest}: layer ${zeros.digest}: exceeds the limit of ${64 << 20} decompressed bytes (--max-image-decompressed-bytes)`,
    );
    expect(pulls).toBe(0);
    expect(await leftovers()).toEqual([]);
  });

  it('stores a catalog within its caps as before', async () => {
    const image = catalogImage(buildLayer(filesToEntries({ 'configs/more/catalog.json': '{"schema":"olm.package","name":"more"}\n' })));
    const ref = await push(repo('catalog-ok'), image);
    const { err } = await storeCatalog('ok', ref, { ...CATALOG_IMAGE_LIMITS, maxUnpackedBytes: 200, maxFiles: 10 });
    expect(err).toBeUndefined();
    expect(store.get('ok')?.info.digest).toBe(image.digest);
  });
});

describe('bundle images over their caps', () => {
  it('refuses the bundle when operator-controller pulls it, and leaves nothing in its cache', async () => {
    const bomb = zeroFileLayer('manifests/zeros.yaml', GiB);
    const image = buildImage({ layers: [buildLayer(filesToEntries({ 'metadata/annotations.yaml': 'annotations: {}\n' })), bomb] });
    const name = repo('bundle-bomb');
    const ref = await push(name, image);
    const cache = createDiskImageCache(join(work, 'bundles'));
    const client = createImageClient({ insecureRegistries: [anonymous.host], limits: BUNDLE_IMAGE_LIMITS });
    try {
      const err = await fetchBundle({ images: client, cache }, { owner: 'ext', ref }).catch((e: unknown) => e);
      expect((err as Error).message).toBe(
        `error applying image: image ${name}@${image.digest}: layer ${bomb.digest}: exceeds the limit of ${32 << 20} unpacked bytes (--max-image-unpacked-bytes)`,
      );
      expect(isLimitExceeded(err)).toBe(true);
    } finally {
      client.close();
    }
    expect(await readdir(join(work, 'bundles')).catch(() => [])).toEqual([]);
  });
});
