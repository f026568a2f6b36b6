/**
 * catalogd's ClusterCatalog reconciler (`catalogd-clustercatalog-controller`), leader only: a
 * StepReconciler whose steps (lifecycle-steps.ts, poll-steps.ts, content-step.ts) resolve the
 * image, store its content and write status and the finalizer (cmd/catalogd/reconcilers.ts lists
 * them). Upstream's algorithm, except that content is keyed by digest in a store that survives
 * restarts: a poll or restart resolving to a stored digest neither pulls nor rewrites anything
 * (decision 0080). A failed reconcile keeps the previous content served and forgets the poll entry.
 */
import { CLUSTER_CATALOG, type ClusterCatalog } from '../../shared/api/index.ts';
import type { ReconcileContext, StepReconciler } from '../../shared/controller/index.ts';
import type { EventRecorder } from '../../shared/kube/index.ts';
import type { VersionInfo } from '../storage/index.ts';
import type { ContentStore } from './catalog-content.ts';

export interface StoredContent {
  info: VersionInfo;
}

/** The content store as the reconciler's steps use it (LocalDirStore satisfies it). */
export interface CatalogStore extends ContentStore<StoredContent> {
  get(catalog: string): StoredContent | undefined;
  contentExists(catalog: string, digest?: string): boolean;
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
