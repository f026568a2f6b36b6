/**
 * catalogd content stores (LocalDirStore) in new temporary directories: one holding a catalog,
 * for tests of what serves from it (the catalog server, the GraphQL endpoint), and an empty one
 * with an unpack cache per test, for tests of what stores into it; and a catalog image as the
 * image client opens it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { perTest } from './per-test.ts';
import { LocalDirStore, ingestInProcess, type StoredVersion, type VersionInfo } from '../../pkg/catalogd/storage/index.ts';
import { CATALOG_IMAGE_LIMITS, createDiskImageCache, type BuiltLayer, type ImageCache, type OpenedImage } from '../../pkg/shared/image/index.ts';
import type { Meta } from '../../pkg/shared/fbc/types.ts';

/** A store that serves what `root` holds and ingests nothing, opened. */
export async function openStore(root: string): Promise<LocalDirStore> {
  const store = new LocalDirStore({ root, ingest: () => Promise.reject(new Error('unused')), logger: pino({ level: 'silent' }) });
  await store.open();
  return store;
}

/**
 * A store under a temp directory named by `prefix` holding `metas` as catalog `name` (`info`:
 * by default a digest and reference made of the name); `remove` closes it and deletes it all.
 */
export async function storeWith(
  prefix: string,
  name: string,
  metas: Meta[],
  info?: VersionInfo,
): Promise<{ root: string; store: LocalDirStore; version: StoredVersion; remove: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const store = await openStore(root);
  const digest = `sha256:${Buffer.from(name).toString('hex').padEnd(64, '0').slice(0, 64)}`;
  const version = await store.store(name, info ?? { digest, ref: `r.test/${name}@${digest}`, unpackedAt: '2026-01-01T00:00:00Z' }, { metas });
  return {
    root,
    store,
    version,
    remove: async () => {
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The current test's store (ingesting in process) and unpack cache. */
interface StoreBed {
  readonly root: string;
  readonly store: LocalDirStore;
  readonly unpackCache: ImageCache;
}

/**
 * Registers the hooks that give each test of the calling suite a new temporary directory
 * (`prefix` names it) with an opened store in `store/` and an image unpack cache in `unpack/`;
 * the store is closed and the directory deleted after the test. The function returned gives the
 * running test's.
 */
export function storePerTest(prefix: string): () => StoreBed {
  return perTest(
    async () => {
      const root = await mkdtemp(join(tmpdir(), prefix));
      const store = new LocalDirStore({ root: join(root, 'store'), ingest: ingestInProcess, logger: pino({ level: 'silent' }) });
      await store.open();
      return { root, store, unpackCache: createDiskImageCache(join(root, 'unpack')) };
    },
    async (bed) => {
      await bed.store.close();
      await rm(bed.root, { recursive: true, force: true });
    },
  );
}

/** Catalog image `digestRef` as the image client opens it for streaming: one layer, `layer`, under `/configs`. */
export function openedCatalogImage(digestRef: string, layer: BuiltLayer): OpenedImage {
  return {
    digest: digestRef.slice(digestRef.indexOf('@') + 1),
    digestRef,
    config: { labels: {}, raw: {} },
    pathFilter: '/configs',
    limits: CATALOG_IMAGE_LIMITS,
    layers: [
      {
        digest: layer.digest,
        size: layer.size,
        async *open() {
          yield layer.data;
        },
      },
    ],
  };
}
