/**
 * pkg/shared/kube: the only module that talks to the Kubernetes API server (and the only importer
 * of @kubernetes/client-node). Object traffic goes through a raw JSON transport so manifests
 * are sent byte-for-byte; see decision 0060 for the informer and 0061 for the transport.
 */
export { ApiError, isAlreadyExists, isConflict, isForbidden, isInvalid, isNotFound, isUnauthorized } from './api-error.ts';
export { canI, selfCanI, serviceAccountSubject, type AccessAttributes, type AccessSubject, type NonResourceAccess } from './access-review.ts';
export { mapLimited } from './map-limited.ts';
export { settlesWithin, sleepUnlessAborted, untilAborted, type BackoffOptions } from './backoff.ts';
export { retryOnConflict } from './retry-conflict.ts';
export { type KubeClient, type ListOptions } from './client.ts';
export { anonymousChannels, bearerConnection } from './connection.ts';
export { connect, type KubeContext } from './kube-context.ts';
export { type EventType } from './event-correlator.ts';
export { KubeEventRecorder, type EventRecorder } from './event-recorder.ts';
export { loadKubeConfig, type KubeConfigSource, type ResolvedKubeConfig } from './kubeconfig.ts';
export { Informer, type InformerEventType, type InformerHandler } from './informer.ts';
export { LAST_APPLIED_ANNOTATION, clientListWatch, stripManagedFields, type ListWatchSource } from './informer-source.ts';
export { LeaderElector } from './leader-election.ts';
export { NamedGauge, counterOn, exponentialBuckets, gaugeOn, histogramOn } from './metrics.ts';
export { NoKindMatchError, isNoKindMatch } from './resource-mapper.ts';
export { createOpenApiSchemas, type OpenApiSchemas } from './openapi.ts';
export { compileSchemas, type ObjectSchema } from './openapi-schema.ts';
export { createScopedClientFactory, type ScopedClientFactory } from './scoped-client.ts';
export { labelIndex } from './label-index.ts';
export { ServiceAccountNotFoundError, TokenGetter } from './token-getter.ts';
export { reviewToken, type TokenReviewResult } from './token-review.ts';
export { createTransport, type RequestOptions, type Transport } from './transport.ts';
// The shared unstructured object type that kube's API takes and returns, re-exported so kube's
// users need one import.
export {
  gvkOf,
  objectKey,
  type KubeObject,
  type ObjectList,
  type ObjectMeta,
  type ObjectRef,
  type OwnerReference,
  type TypeRef,
  type WatchEvent,
} from '../unstructured/index.ts';
export { decodeWatchStream, jitteredWatchTimeoutSeconds } from './watch.ts';
