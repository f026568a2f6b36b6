/**
 * pkg/shared/controller: the generic controller runtime (workqueue, controller loop, conditions,
 * status/finalizer writing, health and metrics endpoints, serving certificates, shutdown wiring).
 */
export {
  MAX_CONDITION_MESSAGE_BYTES,
  TRUNCATION_SUFFIX,
  removeCondition,
  setStatusCondition,
  truncateConditionMessage,
  type Condition,
} from './conditions.ts';
export { progressingFromError } from './error-condition.ts';
export { addFinalizers, hasFinalizer, isDeleting, removeFinalizer } from './finalizers.ts';
export { POLL, runSteps, stepDurationTimer, type Step, type StepOutcome, type StepTimer } from './steps.ts';
export { StepReconciler } from './step-reconciler.ts';
export { Controller, type CancelFunc, type KeyFunc } from './controller.ts';
export { HealthServer, informersSynced } from './health-server.ts';
export { keepingOptions, loadCertificate, watchCertificate, type CertificatePaths } from './certificates.ts';
export { MetricsServer } from './metrics-server.ts';
export { MetricsAuth } from './metrics-auth.ts';
export { ExponentialFailureRateLimiter, type RateLimiter } from './rate-limiter.ts';
export { PanicError, isPanic, type ReconcileContext, type ReconcileResult, type Reconciler } from './reconciler.ts';
export { jsonEqual, type StatusClient } from './status-writer.ts';
export { LOW_PRIORITY, WorkQueue } from './workqueue.ts';
