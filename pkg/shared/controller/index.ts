/**
 * pkg/shared/controller: the generic controller runtime (workqueue, controller loop, conditions,
 * status/finalizer writing, health and metrics endpoints, serving certificates, shutdown wiring).
 */
export {
  MAX_CONDITION_MESSAGE_BYTES,
  TRUNCATION_SUFFIX,
  findCondition,
  isConditionTrue,
  metaTime,
  removeCondition,
  setStatusCondition,
  truncateConditionMessage,
  type Condition,
  type ConditionInput,
  type ConditionStatus,
} from './conditions.ts';
export { RETRYING_REASON, progressingFromError, type ErrorCondition } from './error-condition.ts';
export { addFinalizers, hasFinalizer, isDeleting, removeFinalizer } from './finalizers.ts';
export { POLL, isPoll, runSteps, stepDurationTimer, type PollOutcome, type Step, type StepOutcome, type StepTimer } from './steps.ts';
export { StepReconciler, type StepReconcilerConfig } from './step-reconciler.ts';
export { Controller, type CancelFunc, type ControllerOptions, type KeyFunc, type Watch } from './controller.ts';
export { HealthServer, informersSynced, type HealthCheck, type HealthServerOptions } from './health-server.ts';
export {
  keepingOptions,
  loadCertificate,
  watchCertificate,
  type Certificate,
  type CertificatePaths,
  type SecureContextTarget,
} from './certificates.ts';
export { hasProgrammingError, logErrorSerializer } from './log-error.ts';
export { MetricsServer, type MetricsServerOptions, type ProfileOptions } from './metrics-server.ts';
export { MetricsAuth, bearerToken, type MetricsAccess, type MetricsAuthOptions, type MetricsAuthReviews } from './metrics-auth.ts';
export {
  BucketRateLimiter,
  ExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
  type RateLimiter,
} from './rate-limiter.ts';
export { PanicError, ReconcileCancelledError, isPanic, type ReconcileContext, type ReconcileResult, type Reconciler } from './reconciler.ts';
export { wireShutdownSignals, type ShutdownOptions, type SignalProcess } from './shutdown.ts';
export {
  UNEXPECTED_CHANGE_MESSAGE,
  joinErrors,
  jsonEqual,
  reconcileParsedWithStatus,
  reconcileWithStatus,
  type ParsedStatusWriteRequest,
  type StatusWriteRequest,
  type WorkingObject,
} from './status-writer.ts';
export { WorkQueue, type WorkQueueOptions } from './workqueue.ts';
