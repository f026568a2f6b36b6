/**
 * catalogd's ClusterCatalog reconciler (controller `catalogd-clustercatalog-controller`),
 * run by the leader only: it resolves the image, stores its content, and writes status and the
 * `olm.operatorframework.io/delete-server-cache` finalizer. Followers serve content through
 * content-sync.ts.
 *
 * It is a StepReconciler (pkg/shared/controller) over the typed ClusterCatalog; its steps are
 * built by the factories of lifecycle-steps.ts, poll-steps.ts and content-step.ts and listed,
 * in this order, by cmd/catalogd/reconcilers.ts:
 *   availability  an Unavailable catalog: remove its content, report it, drop the finalizer, stop;
 *   finalizers    add the finalizer, or on deletion remove the content and the finalizer, stop;
 *   poll          nothing to do yet: stop, requeued after the rest of the poll interval;
 *   hold          a catalog that failed for a resource limit rests until the retry floor;
 *   content       resolve the digest and, when it is not stored yet, stream or pull and store it;
 *   serving       report the served content, remember it, requeue after the poll interval.
 *
 * The algorithm is upstream's (resolve, unpack, store, report, requeue), with one difference
 * (decision 0080): content is keyed by digest in a store that survives restarts, so a poll or
 * restart that resolves to an already stored digest neither pulls nor rewrites anything.
 *
 * Failure behaviour: a failed pull or store keeps the previous content served (Serving stays
 * True) and reports Progressing True/Retrying, or False/Blocked for terminal errors (bad
 * reference, missing configs label on a digest reference), with the cause in the message.
 * An ingest is bounded in time and cancelled when it becomes pointless, and a catalog that
 * failed for a resource limit is not tried again before the retry floor (ingest-bounds.ts).
 * Any failed reconcile forgets the catalog's poll entry (CatalogMemory), so the next attempt
 * re-checks the source.
 */
import { CLUSTER_CATALOG, type ClusterCatalog } from '../../shared/api/index.ts';
import type { ReconcileContext, StepReconciler } from '../../shared/controller/index.ts';
import type { EventRecorder } from '../../shared/kube/index.ts';
import type { VersionInfo } from '../storage/index.ts';
import type { ContentStore } from './catalog-content.ts';

/** What a stored version is to the reconciler: its digest, digest reference and unpack time. */
export interface StoredContent {
  info: VersionInfo;
}

/** The content store as the reconciler's steps use it (LocalDirStore satisfies it). */
export interface CatalogStore extends ContentStore<StoredContent> {
  /** The version served for `catalog`, if any. */
  get(catalog: string): StoredContent | undefined;
  /** True when `catalog` is served, and (if given) at `digest`. */
  contentExists(catalog: string, digest?: string): boolean;
  /** Stops serving `catalog` and removes its content. */
  delete(catalog: string): Promise<void>;
}

/** What the steps of one reconcile share. */
export interface CatalogState {
  /** The typed working copy: steps change its status and finalizers, which are written back. */
  catalog: ClusterCatalog;
  /** Its cancellation (Watch.cancels, shutdown) and logger. */
  ctx: ReconcileContext;
  /** When this reconcile started: the poll time recorded on success. */
  now: Date;
  /** The version the content step found stored or stored, for the serving step. */
  served?: StoredContent;
}

/** The ClusterCatalog reconciler: a StepReconciler over CatalogState (assembled in cmd/catalogd). */
export type CatalogReconciler = StepReconciler<ClusterCatalog, CatalogState>;

/** The state builder of the reconciler: the typed working copy, read at `clock()`. */
export function catalogState(clock: () => Date): (catalog: ClusterCatalog, ctx: ReconcileContext) => CatalogState {
  return (catalog, ctx) => ({ catalog, ctx, now: clock() });
}

/** The event target of a catalog (what the event recorder reads of an object). */
export function catalogEventRef(cc: ClusterCatalog): Parameters<EventRecorder['event']>[0] {
  // The parsed object may lack apiVersion and kind (optional in the API module's schema).
  return { apiVersion: CLUSTER_CATALOG.apiVersion, kind: CLUSTER_CATALOG.kind, metadata: cc.metadata };
}

/** `reportingController` of catalogd's events. */
export const CATALOGD_REPORTER = 'olm.operatorframework.io/catalogd';

/** Every reason catalogd records on a ClusterCatalog (docs/operations.md, "Events"). */
export const CatalogEventReason = { Unpacked: 'Unpacked', UnpackFailed: 'UnpackFailed' } as const;

/** Name of this controller (metrics label and log field). */
export const CATALOG_CONTROLLER_NAME = 'catalogd-clustercatalog-controller';
