export {
  CATALOGD_REPORTER,
  CATALOG_CONTROLLER_NAME,
  catalogState,
  type CatalogReconciler,
  type CatalogState,
  type CatalogStore,
} from './catalog-reconciler.ts';
export { CatalogMemory } from './catalog-memory.ts';
export { availabilityStep, finalizersStep } from './lifecycle-steps.ts';
export { holdStep, pollStep, servingStep } from './poll-steps.ts';
export { contentStep } from './content-step.ts';
export { CONTENT_SYNC_CONTROLLER_NAME, ContentSyncReconciler } from './content-sync.ts';
export { runGarbageCollector } from './garbage-collector.ts';
export { PollSchedule } from './poll-state.ts';
export {
  type CatalogContentMetrics,
  type CatalogImages,
  ContentStepError,
  createCatalogContentMetrics,
  storeCatalogImage,
} from './catalog-content.ts';
export { DEFAULT_INGEST_TIMEOUT_MS, catalogReconcileCancels, contentSyncCancels } from './ingest-bounds.ts';
