/**
 * Getting a catalog image's content into the store, for the ClusterCatalog reconciler and content
 * sync. The layers are streamed into the ingest (decision 0086); when that is not possible or
 * fails for anything but the catalog's own content, the image is pulled into the unpack cache and
 * its directory ingested as before, so users see the same errors and nothing served changes on a
 * failure. A crossed image cap is final for both, reported as the pull reports it.
 */
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { CONFIGS_LOCATION_LABEL } from '../../shared/api/index.ts';
import { isLimitExceeded, wrapError } from '../../shared/errors/index.ts';
import {
  type ImageCache,
  ImageLimitError,
  type OpenedImage,
  type PullOptions,
  type PullResult,
  type ResolvedReference,
} from '../../shared/image/index.ts';
import { CatalogContentError, type ContentSource, type StoredVersion, type VersionInfo } from '../storage/index.ts';

/** The image operations the ClusterCatalog reconciler and content sync need (ImageClient satisfies it). */
export interface CatalogImages {
  resolveDigest(ref: string, signal?: AbortSignal): Promise<ResolvedReference>;
  pull(ref: string, options: PullOptions): Promise<PullResult>;
  openLayers(ref: string, options: Pick<PullOptions, 'labelPathFilter' | 'signal'>): Promise<OpenedImage>;
}

/** Which step failed: getting the image (`source`) or storing its content (`store`). */
export class ContentStepError extends Error {
  readonly step: 'source' | 'store';
  readonly error: unknown;

  constructor(step: 'source' | 'store', error: unknown) {
    super(error instanceof Error ? error.message : String(error), { cause: error });
    this.name = 'ContentStepError';
    this.step = step;
    this.error = error;
  }
}

/** What storing needs of the store (LocalDirStore satisfies it); `V` is what it keeps of a version. */
export interface ContentStore<V extends { info: VersionInfo } = StoredVersion> {
  /** See LocalDirStore.prepareIngest. */
  prepareIngest(): void;
  /** See LocalDirStore.store. */
  store(catalog: string, info: VersionInfo, source: ContentSource, options?: { signal?: AbortSignal | undefined }): Promise<V>;
}

interface CatalogContentDeps<V extends { info: VersionInfo } = StoredVersion> {
  images: Pick<CatalogImages, 'pull' | 'openLayers'>;
  unpackCache: ImageCache;
  store: ContentStore<V>;
  metrics?: CatalogContentMetrics | undefined;
}

/** Counts of stored catalog versions by how their content got in. */
export interface CatalogContentMetrics {
  stored(method: 'streamed' | 'unpacked'): void;
}

/**
 * `catalogd_catalog_contents_stored_total{method}` (`streamed` from the layer stream, `unpacked`
 * after unpacking) on `registry`; one instance serves every controller of the process.
 */
export function createCatalogContentMetrics(registry: Registry): CatalogContentMetrics {
  const counter = new Counter({
    name: 'catalogd_catalog_contents_stored_total',
    help: 'Catalog versions stored, by how the content was read: streamed from the image layers, or unpacked first.',
    labelNames: ['method'] as const,
    registers: [registry],
  });
  return { stored: (method) => counter.inc({ method }) };
}

interface StoreImageOptions {
  /** The catalog (store key and unpack cache owner). */
  name: string;
  /** The image reference: the spec's (reconciler) or the published digest reference (sync). */
  ref: string;
  /** `unpackedAt` recorded for the version, from when the content was fetched. */
  unpackedAt: (fetchedAt: Date) => string;
  log: Logger;
  signal?: AbortSignal | undefined;
}

/** What {@link storeCatalogImage} stored, and how. */
interface StoredImage<V extends { info: VersionInfo } = StoredVersion> {
  version: V;
  streamed: boolean;
}

/**
 * Stores the content of `ref` for catalog `name` and switches to it. The unpack cache of the
 * catalog is emptied once the content is stored.
 *
 * @throws ContentStepError wrapping the image client's or the store's error.
 */
export async function storeCatalogImage<V extends { info: VersionInfo }>(deps: CatalogContentDeps<V>, o: StoreImageOptions): Promise<StoredImage<V>> {
  const { images, store, unpackCache } = deps;
  // The ingest process starts while the image's metadata or layers are fetched.
  store.prepareIngest();
  let opened: OpenedImage;
  try {
    opened = await images.openLayers(o.ref, { labelPathFilter: CONFIGS_LOCATION_LABEL, signal: o.signal });
  } catch (err) {
    throw new ContentStepError('source', err);
  }
  // A tree left in the unpack cache (a store that failed before) is used instead of a download.
  const cached = await unpackCache.fetch(o.name, opened.digest).catch(() => undefined);
  if (cached === undefined) {
    const signal = o.signal;
    const both = (reader?: AbortSignal): AbortSignal | undefined =>
      reader === undefined ? signal : signal === undefined ? reader : AbortSignal.any([signal, reader]);
    const layers = {
      pathFilter: opened.pathFilter,
      layers: opened.layers.map((l) => ({ digest: l.digest, size: l.size, open: (reader?: AbortSignal) => l.open(both(reader)) })),
      image: { ref: opened.digestRef, limits: opened.limits },
    };
    try {
      const info = { digest: opened.digest, ref: opened.digestRef, unpackedAt: o.unpackedAt(new Date()) };
      const version = await store.store(o.name, info, { layers }, { signal });
      deps.metrics?.stored('streamed');
      await dropUnpacked(deps, o);
      return { version, streamed: true };
    } catch (err) {
      if (err instanceof CatalogContentError) throw new ContentStepError('store', err);
      // An image cap is reported as the pull reports it (it would cross it too).
      if (err instanceof ImageLimitError) throw new ContentStepError('source', wrapError('error applying image', err));
      // Cancelled or timed out, or past a limit: unpacking would not get further.
      if (signal?.aborted === true || isLimitExceeded(err)) throw new ContentStepError('store', err);
      o.log.info(
        { catalog: o.name, ref: opened.digestRef, reason: err instanceof Error ? err.message : String(err) },
        'catalog image not streamed, unpacking it',
      );
      store.prepareIngest();
    }
  }

  let pulled;
  try {
    // Pulled by the caller's reference: a missing configs label is terminal only for digest refs.
    pulled = await images.pull(o.ref, { owner: o.name, cache: unpackCache, labelPathFilter: CONFIGS_LOCATION_LABEL, signal: o.signal });
  } catch (err) {
    throw new ContentStepError('source', err);
  }
  let version;
  try {
    version = await store.store(
      o.name,
      { digest: pulled.digest, ref: pulled.digestRef, unpackedAt: o.unpackedAt(pulled.unpackedAt) },
      { fbcDir: pulled.dir },
      { signal: o.signal },
    );
  } catch (err) {
    throw new ContentStepError('store', err);
  }
  deps.metrics?.stored('unpacked');
  await dropUnpacked(deps, o);
  return { version, streamed: false };
}

/** The store holds the content now: unpacked trees of the catalog are no longer needed. */
async function dropUnpacked(deps: Pick<CatalogContentDeps, 'unpackCache'>, o: StoreImageOptions): Promise<void> {
  await deps.unpackCache.delete(o.name).catch((err: unknown) => o.log.warn({ catalog: o.name, err }, 'removing unpacked catalog image failed'));
}
