/**
 * pkg/operator-controller/clusterextension: the steps of the ClusterExtension reconciler
 * (reconciler.ts lists them) and what only they use: status, uninstall, records and events.
 * Drift watches and health (pkg/operator-controller/drift), bundle pulls
 * (pkg/operator-controller/bundlepull) and the cluster as resolution sees it
 * (pkg/operator-controller/dependencyview) are modules of their own. Assembled in
 * cmd/operator-controller/reconcilers.ts.
 */
export { extensionWatches } from './extension-events.ts';
export type { ExtensionFeatures, ExtensionState } from './pipeline-state.ts';
export { extensionFeatures } from './features.ts';
export { revisionInstaller, type ServiceAccountRef } from './installer.ts';
export { EXTENSION_CONTROLLER_NAME, newExtensionState } from './reconciler.ts';
export { OPERATOR_CONTROLLER_REPORTER } from './recorded-events.ts';
export { installedStep, resolveStep } from './steps.ts';
export { validateStep } from './steps-validate.ts';
export { pullStep, renderStep } from './steps-pull.ts';
export { applyStep, preauthorizeStep } from './steps-apply.ts';
export { preflightStep } from './steps-preflight.ts';
export { healthStep } from './steps-health.ts';
export { policyStep } from './steps-policy.ts';
export { upgradeableStep } from './steps-upgradeable.ts';
export { windowStep } from './steps-window.ts';
export { migrateStep } from './steps-migrate.ts';
export { rollbackHoldStep, rollbackStep } from './steps-rollback.ts';
export { ResolveAhead } from './resolve-ahead.ts';
export { createUpgradeNotices, type UpgradeNotices } from './upgrade-notices.ts';
export { finalizersStep } from './uninstall.ts';
export { watchInstallerAccounts } from './installer-accounts.ts';
export { watchExtensions } from './watches.ts';
