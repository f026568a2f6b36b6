/** The first two steps of the ClusterCatalog reconciler: an Unavailable or deleted catalog loses its content and finalizer. */
import { AvailabilityMode, DELETE_SERVER_CACHE_FINALIZER, type ClusterCatalog } from '../../shared/api/index.ts';
import { addFinalizers, hasFinalizer, isDeleting, removeFinalizer, type Step } from '../../shared/controller/index.ts';
import { wrapError } from '../../shared/errors/index.ts';
import type { ImageCache } from '../../shared/image/index.ts';
import type { CatalogMemory } from './catalog-memory.ts';
import type { CatalogState, CatalogStore } from './catalog-reconciler.ts';
import { setDeleted, setProgressingError, setUserUnavailable } from './status.ts';

interface ContentRemoval {
  store: Pick<CatalogStore, 'delete'>;
  unpackCache: Pick<ImageCache, 'delete'>;
  memory: CatalogMemory;
}

/**
 * `availabilityMode: Unavailable`: removes the content (a failure is reported on Progressing
 * and thrown as is), sets Serving False/UserSpecifiedUnavailable, drops the finalizer, forgets
 * the catalog and stops. Any other mode continues.
 */
export function availabilityStep(deps: ContentRemoval): Step<CatalogState> {
  return {
    name: 'availability',
    async run({ catalog }) {
      if (catalog.spec.availabilityMode !== AvailabilityMode.Unavailable) return undefined;
      await removeContent(deps, catalog, (err) => err);
      setUserUnavailable(catalog);
      removeFinalizer(catalog, DELETE_SERVER_CACHE_FINALIZER);
      deps.memory.forget(catalog.metadata.name);
      return {};
    },
  };
}

/**
 * The delete-server-cache finalizer: a live catalog without it gets it and the reconcile stops
 * (the write starts the next one). A deleted one stops: with the finalizer, after its content is
 * removed (a failure reported on Progressing and thrown, naming the finalizer), Serving False and
 * the finalizer dropped.
 */
export function finalizersStep(deps: ContentRemoval): Step<CatalogState> {
  return {
    name: 'finalizers',
    async run({ catalog }) {
      if (!isDeleting(catalog)) return addFinalizers(catalog, [DELETE_SERVER_CACHE_FINALIZER]) ? {} : undefined;
      if (!hasFinalizer(catalog, DELETE_SERVER_CACHE_FINALIZER)) return {};
      await removeContent(deps, catalog, (err) => wrapError(`finalizer "${DELETE_SERVER_CACHE_FINALIZER}" failed`, err));
      setDeleted(catalog);
      removeFinalizer(catalog, DELETE_SERVER_CACHE_FINALIZER);
      deps.memory.forget(catalog.metadata.name);
      return {};
    },
  };
}

/** Removes the stored and the unpacked content of `cc`; a failure, wrapped by `wrap`, is reported on Progressing and thrown. */
async function removeContent(deps: ContentRemoval, cc: ClusterCatalog, wrap: (err: unknown) => unknown): Promise<void> {
  const name = cc.metadata.name;
  try {
    await deps.store.delete(name);
    await deps.unpackCache.delete(name);
  } catch (err) {
    const wrapped = wrap(err);
    setProgressingError(cc, wrapped);
    throw wrapped;
  }
}
