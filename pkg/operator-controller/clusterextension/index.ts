/**
 * pkg/operator-controller/clusterextension: the steps of the ClusterExtension reconciler (reconciler.ts lists
 * them) and what they are made of (catalog selection, bundle fetching, status, uninstall,
 * catalog events, drift watches). Assembled in cmd/operator-controller/reconcilers.ts.
 */
export { fetchBundle, bundleProperties, cachedBundle, type BundleImages, type FetchedBundle } from './bundle-source.ts';
export {
  BundlePulls,
  DEFAULT_MAX_PULL_MS,
  DEFAULT_PULL_WAIT_MS,
  type BundlePullPorts,
  type BundlePullScheduler,
  type BundlePullsOptions,
  type PullRequestOptions,
  type PullStatus,
} from './bundle-pulls.ts';
export { watchCatalogEvents, type CatalogEventsOptions } from './catalog-events.ts';
export { DriftWatches, type DriftTracker, type DriftWatchesOptions, type TrackedRelease } from './drift-watches.ts';
export { extensionKeys } from './extension-events.ts';
export { contentRef, selectedCatalogs, type CatalogSource, type SelectedCatalogs } from './catalogs.ts';
export type { ExtensionFeatures, ExtensionState, Target } from './pipeline-state.ts';
export { installerOf, noInstallerMessage, parseServiceAccountRef, type Installer, type ServiceAccountRef } from './installer.ts';
export { EXTENSION_CONTROLLER_NAME, newExtensionState } from './reconciler.ts';
export { ExtensionEventReason, OPERATOR_CONTROLLER_REPORTER } from './recorded-events.ts';
export { MESSAGES } from './status.ts';
export { installedStep, resolveStep } from './steps.ts';
export { VALIDATION_PREFIX, validateStep } from './steps-validate.ts';
export { pullStep, renderStep } from './steps-pull.ts';
export { applyStep, preauthorizeStep } from './steps-apply.ts';
export { preflightStep } from './steps-preflight.ts';
export { EXTENSION_FINALIZERS, finalizersStep } from './uninstall.ts';
