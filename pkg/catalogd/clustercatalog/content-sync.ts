/**
 * Content sync (controller `catalogd-content-sync`), run by EVERY replica: its own store serves
 * exactly what the leader published in `status.resolvedSource`, and drops catalogs that are
 * deleted or Unavailable, so all replicas answer every request (upstream's non-leaders have no
 * content: decision 0080). A no-op on the leader, which stores before it publishes. Bounded by
 * the ingest timeout (ingest-bounds.ts).
 */
import type { Logger } from 'pino';
import { AvailabilityMode, type ClusterCatalog } from '../../shared/api/index.ts';
import type { ReconcileContext, ReconcileResult, Reconciler } from '../../shared/controller/index.ts';
import { wrapError } from '../../shared/errors/index.ts';
import type { ImageCache } from '../../shared/image/index.ts';
import type { Informer, KubeObject } from '../../shared/kube/index.ts';
import type { LocalDirStore } from '../storage/index.ts';
import { type CatalogContentMetrics, type CatalogImages, ContentStepError, storeCatalogImage } from './catalog-content.ts';
import { DEFAULT_INGEST_TIMEOUT_MS, withIngestTimeout } from './ingest-bounds.ts';

export interface ContentSyncOptions {
  /** The ClusterCatalog informer's cache: only `get` is called. */
  catalogs: Pick<Informer<KubeObject>, 'get'>;
  images: Pick<CatalogImages, 'pull' | 'openLayers'>;
  unpackCache: ImageCache;
  store: LocalDirStore;
  metrics?: CatalogContentMetrics;
  log: Logger;
  /** Bound of one sync's ingest (default DEFAULT_INGEST_TIMEOUT_MS). */
  ingestTimeoutMs?: number;
}

/** Name of this controller (metrics label and log field). */
export const CONTENT_SYNC_CONTROLLER_NAME = 'catalogd-content-sync';

export class ContentSyncReconciler implements Reconciler {
  readonly #o: ContentSyncOptions;

  constructor(options: ContentSyncOptions) {
    this.#o = options;
  }

  async reconcile(name: string, ctx: ReconcileContext): Promise<ReconcileResult | void> {
    const { store, unpackCache } = this.#o;
    const cc = this.#o.catalogs.get(name) as Readonly<ClusterCatalog> | undefined;
    const gone = cc === undefined || cc.metadata.deletionTimestamp !== undefined || cc.spec?.availabilityMode === AvailabilityMode.Unavailable;
    if (gone) {
      if (store.get(name) !== undefined) ctx.log.info({ catalog: name }, 'removing catalog content');
      await store.delete(name);
      await unpackCache.delete(name);
      return;
    }
    const ref = cc.status?.resolvedSource?.image?.ref;
    const at = ref?.lastIndexOf('@') ?? -1;
    if (ref === undefined || at < 0) return; // nothing published yet
    const digest = ref.slice(at + 1);
    if (store.contentExists(name, digest)) return;

    let stored;
    try {
      stored = await withIngestTimeout(ctx.signal, this.#o.ingestTimeoutMs ?? DEFAULT_INGEST_TIMEOUT_MS, (signal) =>
        storeCatalogImage(this.#o, {
          name,
          ref,
          unpackedAt: (at) => cc.status?.lastUnpacked ?? at.toISOString(),
          log: ctx.log,
          signal,
        }),
      );
    } catch (err) {
      throw wrapError(`syncing content of catalog "${name}"`, err instanceof ContentStepError ? err.error : err);
    }
    ctx.log.info({ catalog: name, ref: stored.version.info.ref, streamed: stored.streamed }, 'stored catalog content');
  }
}
