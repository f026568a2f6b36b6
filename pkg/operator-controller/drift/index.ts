/**
 * pkg/operator-controller/drift: what keeps an installed release as it was applied, and tells how
 * it runs: watches on the kinds of every release's objects (one shared informer per kind where
 * the extension may list it, its own scoped watch where not), which wake the extension's
 * reconcile on a change or deletion of an object it owns; and the health verdict of a release's
 * objects (health.ts), reported by the watches and the health step.
 */
export { ExtensionHealthGauge } from './health-gauge.ts';
export { type ObjectHealth, type ReleaseHealth, healthVerdict, objectHealth } from './health.ts';
export { startDriftWatches } from './start.ts';
export { fingerprint as driftFingerprint } from './targets.ts';
export type { DriftTracker } from './tracker.ts';
export { DriftWatches } from './watches.ts';
