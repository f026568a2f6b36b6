/**
 * pkg/operator-controller/clusterextension: the steps of the ClusterExtension reconciler (reconciler.ts lists
 * them) and what they are made of (catalog selection, bundle fetching, status, uninstall,
 * catalog events, drift watches). Assembled in cmd/operator-controller/reconcilers.ts.
 */
export { BundleBudget } from './bundle-budget.ts';
export { bundleProperties, fetchBundle, cachedBundle, type BundleSpill } from './bundle-source.ts';
export { BundlePulls, PULL_END_PRIORITY, type BundlePullScheduler, type PullStatus } from './bundle-pulls.ts';
export { watchCatalogEvents } from './catalog-events.ts';
export { DriftWatches } from './drift-watches.ts';
export type { DriftTracker } from './drift-tracker.ts';
export { shareableDriftKinds } from './drift-shared.ts';
export { extensionKeys } from './extension-events.ts';
export { contentRef, selectedCatalogs, selectedPackageNames, type CatalogSource } from './catalogs.ts';
export { dependencyCheck, dependentsToWake, providersText, unmetProviders, type DependencyPorts } from './dependency-view.ts';
export { DependencyGauge } from './dependency-gauge.ts';
export { upgradeHold } from './dependents-check.ts';
export { InstalledIndex } from './installed-index.ts';
export type { ExtensionFeatures, ExtensionState } from './pipeline-state.ts';
export { type ServiceAccountRef } from './installer.ts';
export { EXTENSION_CONTROLLER_NAME, newExtensionState } from './reconciler.ts';
export { OPERATOR_CONTROLLER_REPORTER } from './recorded-events.ts';
export { installedStep, resolveStep } from './steps.ts';
export { validateStep } from './steps-validate.ts';
export { pullStep, renderStep } from './steps-pull.ts';
export { applyStep, preauthorizeStep } from './steps-apply.ts';
export { preflightStep } from './steps-preflight.ts';
export { repairStep } from './steps-repair.ts';
export { ExtensionHealthGauge } from './health-gauge.ts';
export { healthStep } from './steps-health.ts';
export { policyStep } from './steps-policy.ts';
export { upgradeableStep } from './steps-upgradeable.ts';
export { ResolveAhead } from './resolve-ahead.ts';
export { createUpgradeNotices, type UpgradeNotices } from './upgrade-notices.ts';
export { finalizersStep } from './uninstall.ts';
