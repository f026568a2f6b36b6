/**
 * pkg/shared/kube: the only module that talks to the Kubernetes API server (and the only importer
 * of @kubernetes/client-node). Object traffic goes through a raw JSON transport so manifests
 * are sent byte-for-byte; see decision 0060 for the informer and 0061 for the transport.
 */
export {
  ApiError,
  StatusReason,
  apiErrorFromResponse,
  apiErrorFromStatus,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isStatusObject,
  isUnauthorized,
  type Status,
  type StatusDetails,
} from './api-error.ts';
export {
  canI,
  serviceAccountSubject,
  type AccessAttributes,
  type AccessDecision,
  type AccessSubject,
  type NonResourceAccess,
  type ResourceAccess,
} from './access-review.ts';
export { Backoff, settlesWithin, sleepUnlessAborted, type BackoffOptions } from './backoff.ts';
export {
  PatchType,
  createKubeClient,
  type ApplyOptions,
  type DeleteOptions,
  type FieldValidation,
  type KubeClient,
  type ListOptions,
  type WatchOptions,
  type WriteOptions,
} from './client.ts';
export {
  anonymousChannels,
  bearerConnection,
  connect,
  connectionFromKubeConfig,
  type Connection,
  type ConnectionOptions,
  type KubeContext,
  type SharedChannels,
  type ServerTls,
} from './connection.ts';
export { COMBINED_PREFIX, type CorrelatorOptions, type EventObjectRef, type EventSpec, type EventType } from './event-correlator.ts';
export {
  CLUSTER_EVENT_NAMESPACE,
  KubeEventRecorder,
  NOTE_MAX_BYTES,
  discardEvents,
  truncateNote,
  type EventRecorder,
  type KubeEventRecorderOptions,
} from './event-recorder.ts';
export { loadKubeConfig, type KubeAuth, type KubeConfigSource, type ResolvedKubeConfig } from './kubeconfig.ts';
export { Informer, type InformerEventType, type InformerHandler, type InformerOptions } from './informer.ts';
export {
  LAST_APPLIED_ANNOTATION,
  clientListWatch,
  deepFreeze,
  stripManagedFields,
  type ListWatchScope,
  type ListWatchSource,
} from './informer-source.ts';
export { LeaderElector, microTime, type LeaderElectionOptions, type LeaderElectionOutcome } from './leader-election.ts';
export { counterOn, exponentialBuckets, gaugeOn, histogramOn } from './metrics.ts';
export {
  NoKindMatchError,
  createResourceMapper,
  groupVersion,
  isNoKindMatch,
  resourcePath,
  type PathParts,
  type ResourceInfo,
  type ResourceMapper,
} from './resource-mapper.ts';
export { createOpenApiSchemas, type OpenApiSchemas } from './openapi.ts';
export { OPEN_SCHEMA, compileSchemas, type ListItems, type ObjectFields, type ObjectSchema, type SchemaTable } from './openapi-schema.ts';
export { createScopedClientFactory, type ScopedClientFactory, type ScopedClientFactoryOptions } from './scoped-client.ts';
export { ServiceAccountNotFoundError, TokenGetter, type TokenGetterOptions } from './token-getter.ts';
export { reviewToken, type TokenReviewResult } from './token-review.ts';
export { createWatchChannel, type ChannelStats, type WatchChannel, type WatchChannelOptions } from './watch-channel.ts';
export {
  createTransport,
  parseWarnings,
  retryAfterMs,
  type QueryParams,
  type RequestOptions,
  type Transport,
  type TransportOptions,
} from './transport.ts';
// The shared unstructured object type that kube's API takes and returns, re-exported so kube's
// users need one import.
export {
  gvkOf,
  objectKey,
  splitObjectKey,
  type KubeObject,
  type ObjectList,
  type ObjectMeta,
  type ObjectRef,
  type OwnerReference,
  type TypeRef,
  type WatchEvent,
} from '../unstructured/index.ts';
export { decodeWatchStream, jitteredWatchTimeoutSeconds } from './watch.ts';
