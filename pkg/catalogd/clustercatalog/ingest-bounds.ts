/**
 * Bounds on the work one catalog can make catalogd do, so one bad catalog never starves the
 * others: an ingest has a timeout (past it: cancelled, with a LimitExceededError); a reconcile
 * whose ingest became pointless is cancelled by the event that made it so (Watch.cancels); a
 * catalog that failed for a resource limit is retried no sooner than a floor.
 */
import type { ClusterCatalog } from '../../shared/api/index.ts';
import type { CancelFunc } from '../../shared/controller/index.ts';
import { LimitExceededError } from '../../shared/errors/index.ts';
import { goDuration } from '../../gocompat/gotext/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';

/** Default of catalogd's `--ingest-timeout`. */
export const DEFAULT_INGEST_TIMEOUT_MS = 10 * 60_000;

/**
 * Runs `fn` with a signal that aborts with `signal`, or after `timeoutMs`. In the second case
 * `fn`'s failure is replaced by a LimitExceededError naming the timeout (with it as cause).
 */
export async function withIngestTimeout<T>(signal: AbortSignal, timeoutMs: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error('ingest timeout')), timeoutMs);
  try {
    return await fn(AbortSignal.any([signal, timeout.signal]));
  } catch (err) {
    if (!timeout.signal.aborted || signal.aborted) throw err;
    throw new LimitExceededError(
      `the catalog image was not pulled and stored within the ingest timeout of ${goDuration(timeoutMs)} (catalogd --ingest-timeout)`,
      { cause: err },
    );
  } finally {
    clearTimeout(timer);
  }
}

/** `message` with the note that the catalog is retried after `floorMs` at the earliest. */
export function withRetryFloor(message: string, floorMs: number): string {
  return `${message}; retrying in ${goDuration(floorMs)} at the earliest`;
}

/** Why an event ends a catalog's life: deleted, or its deletion started. */
function deletion(type: string, obj: Readonly<KubeObject>, old: Readonly<KubeObject> | undefined): string | undefined {
  if (type === 'delete') return 'the ClusterCatalog was deleted';
  if (type === 'update' && obj.metadata.deletionTimestamp !== undefined && old?.metadata.deletionTimestamp === undefined) {
    return 'the ClusterCatalog is being deleted';
  }
  return undefined;
}

/** Why an event makes the leader's reconcile of a catalog pointless: deleted, or its spec changed. */
export const catalogReconcileCancels: CancelFunc<KubeObject> = (type, obj, old) => {
  const reason = deletion(type, obj, old);
  if (reason !== undefined || type !== 'update' || old === undefined) return reason;
  const [was, now] = [old.metadata.generation, obj.metadata.generation];
  return was === now ? undefined : `the ClusterCatalog's spec changed (generation ${was} to ${now})`;
};

/**
 * Why an event makes a replica's content sync pointless: deleted, made Unavailable, or another
 * source published (other spec changes reach replicas through what the leader publishes).
 */
export const contentSyncCancels: CancelFunc<KubeObject> = (type, obj, old) => {
  const reason = deletion(type, obj, old);
  if (reason !== undefined || type !== 'update' || old === undefined) return reason;
  const [was, now] = [old as Readonly<ClusterCatalog>, obj as Readonly<ClusterCatalog>];
  if (now.spec?.availabilityMode !== was.spec?.availabilityMode) return 'the ClusterCatalog availability mode changed';
  const ref = (c: Readonly<ClusterCatalog>): string | undefined => c.status?.resolvedSource?.image?.ref;
  return ref(now) === ref(was) ? undefined : 'the ClusterCatalog published another resolved source';
};
