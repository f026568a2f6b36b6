/**
 * The content step of the ClusterCatalog reconciler: resolves the catalog's image (no registry
 * call for a digest reference) and, only when that digest is not stored yet, streams or pulls and
 * stores it (catalog-content.ts) within the ingest timeout, announcing new content with an
 * `Unpacked` event; the version is left in `state.served`. Failures are reported on Progressing
 * and in an `UnpackFailed` event as `source catalog content: ...` (getting the image) or `error
 * storing fbc: ...`; one past a resource limit names the retry floor and holds the catalog until
 * it. A catalog never served gets Serving False; a cancelled reconcile reports nothing.
 */
import type { ClusterCatalog } from '../../shared/api/index.ts';
import type { ReconcileContext, Step } from '../../shared/controller/index.ts';
import { isLimitExceeded, wrapError } from '../../shared/errors/index.ts';
import { signaturePolicyDetail, type ImageCache } from '../../shared/image/index.ts';
import type { EventRecorder } from '../../shared/kube/index.ts';
import { type CatalogContentMetrics, type CatalogImages, ContentStepError, storeCatalogImage } from './catalog-content.ts';
import type { CatalogMemory } from './catalog-memory.ts';
import { CatalogEventReason, catalogEventRef, type CatalogState, type CatalogStore, type StoredContent } from './catalog-reconciler.ts';
import { withIngestTimeout, withRetryFloor } from './ingest-bounds.ts';
import { setNeverServed, setProgressingError } from './status.ts';

interface ContentStepDeps {
  images: CatalogImages;
  store: Pick<CatalogStore, 'get' | 'prepareIngest' | 'store'>;
  /** Where images are unpacked when they cannot be streamed; emptied for a catalog once its content is stored. */
  unpackCache: ImageCache;
  /** `Unpacked` when new content is served, `UnpackFailed` (fire and forget). */
  events: EventRecorder;
  metrics?: CatalogContentMetrics | undefined;
  /** Holds a catalog that failed for a resource limit. */
  memory: CatalogMemory;
  /** The time a hold starts. */
  clock: () => Date;
  /**
   * `ingestMs` bounds one ingest; after a failure for a resource limit the catalog is not tried
   * again at its generation before `limitRetryFloorMs` (give the controller the same floor).
   */
  timeouts: { ingestMs: number; limitRetryFloorMs: number };
}

export function contentStep(deps: ContentStepDeps): Step<CatalogState> {
  return {
    name: 'content',
    async run(state) {
      const { catalog, ctx } = state;
      try {
        state.served = await ensureContent(deps, catalog, ctx);
      } catch (err) {
        if (isLimitExceeded(err) && !ctx.signal.aborted) {
          const until = deps.clock().getTime() + deps.timeouts.limitRetryFloorMs;
          deps.memory.held.set(catalog.metadata.name, { generation: catalog.metadata.generation ?? 0, until, error: err as Error });
        }
        setNeverServed(catalog);
        throw err;
      }
      return undefined;
    },
  };
}

async function ensureContent(deps: ContentStepDeps, cc: ClusterCatalog, ctx: ReconcileContext): Promise<StoredContent> {
  const { images, store, events } = deps;
  const name = cc.metadata.name;
  const ref = cc.spec.source.image.ref;
  let resolving = true;
  try {
    return await withIngestTimeout(ctx.signal, deps.timeouts.ingestMs, async (signal) => {
      const resolved = await images.resolveDigest(ref, signal);
      resolving = false;
      const current = store.get(name);
      if (current !== undefined && current.info.digest === resolved.digest) return current;
      const stored = await storeCatalogImage(deps, {
        name,
        ref,
        unpackedAt: (at) => truncateToSeconds(at).toISOString(),
        log: ctx.log,
        signal,
      });
      ctx.log.info({ catalog: name, ref: stored.version.info.ref, streamed: stored.streamed }, 'stored catalog content');
      // Only a digest not stored before is news: a restart or a poll finding the same one is not.
      events.event(catalogEventRef(cc), 'Normal', CatalogEventReason.Unpacked, 'Unpack', `Unpacked and serving ${stored.version.info.ref}`);
      return stored.version;
    });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    let wrapped: Error;
    if (err instanceof ContentStepError) wrapped = wrapError(err.step === 'source' ? 'source catalog content' : 'error storing fbc', err.error);
    else if (resolving || isLimitExceeded(err)) wrapped = wrapError('source catalog content', err);
    else throw err;
    if (isLimitExceeded(wrapped)) wrapped = new Error(withRetryFloor(wrapped.message, deps.timeouts.limitRetryFloorMs), { cause: wrapped });
    setProgressingError(cc, wrapped);
    events.event(catalogEventRef(cc), 'Warning', CatalogEventReason.UnpackFailed, 'Unpack', wrapped.message + signaturePolicyDetail(err));
    throw wrapped;
  }
}

function truncateToSeconds(d: Date): Date {
  return new Date(Math.floor(d.getTime() / 1000) * 1000);
}
