/**
 * catalogd's ClusterCatalog reconciler (controller `catalogd-clustercatalog-controller`),
 * run by the leader only: it resolves the image, stores its content, and writes status and the
 * `olm.operatorframework.io/delete-server-cache` finalizer. Followers serve content through
 * content-sync.ts.
 *
 * The algorithm is upstream's (reference api-and-controllers.md §4.1), with one difference
 * (decision 0080): content is keyed by digest in a store that survives restarts, so a poll or
 * restart that resolves to an already stored digest neither pulls nor rewrites anything.
 *
 * Failure behaviour: a failed pull or store keeps the previous content served (Serving stays
 * True) and reports Progressing True/Retrying, or False/Blocked for terminal errors (bad
 * reference, missing configs label on a digest reference), with the cause in the message.
 * An ingest is bounded in time and cancelled when it becomes pointless, and a catalog that
 * failed for a resource limit is not tried again before the retry floor (ingest-bounds.ts).
 */
import type { Logger } from 'pino';
import { AvailabilityMode, CLUSTER_CATALOG, DELETE_SERVER_CACHE_FINALIZER, parseClusterCatalog } from '../../shared/api/index.ts';
import {
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  addFinalizers,
  hasFinalizer,
  isDeleting,
  jsonEqual,
  reconcileWithStatus,
  removeFinalizer,
} from '../../shared/controller/index.ts';
import { TerminalError, isLimitExceeded, wrapError } from '../../shared/errors/index.ts';
import type { ImageCache, OpenedImage, PullOptions, PullResult, ResolvedReference } from '../../shared/image/index.ts';
import type { EventRecorder, KubeClient, KubeObject } from '../../shared/kube/index.ts';
import type { LocalDirStore } from '../storage/index.ts';
import { type CatalogContentMetrics, ContentStepError, storeCatalogImage } from './catalog-content.ts';
import { DEFAULT_INGEST_TIMEOUT_MS, withIngestTimeout, withRetryFloor } from './ingest-bounds.ts';
import { type PollEntry, PollSchedule } from './poll-state.ts';
import {
  type CatalogStatus,
  knownConditionsOnly,
  setDeleted,
  setNeverServed,
  setProgressingError,
  setServing,
  setUserUnavailable,
  statusOf,
} from './status.ts';

/** The image operations the reconciler needs (ImageClient satisfies it). */
export interface CatalogImages {
  resolveDigest(ref: string, signal?: AbortSignal): Promise<ResolvedReference>;
  pull(ref: string, options: PullOptions): Promise<PullResult>;
  openLayers(ref: string, options: Pick<PullOptions, 'labelPathFilter' | 'signal'>): Promise<OpenedImage>;
}

export interface CatalogReconcilerOptions {
  client: KubeClient;
  /** Events on the ClusterCatalog: `Unpacked` when new content is served, `UnpackFailed` (fire and forget). */
  events: EventRecorder;
  images: CatalogImages;
  /** Where images are unpacked when they cannot be streamed; emptied for a catalog once its content is stored. */
  unpackCache: ImageCache;
  store: LocalDirStore;
  metrics?: CatalogContentMetrics;
  /** `status.urls.base` of a catalog: `<scheme>://<external address>/catalogs/<name>`. */
  baseURL: (name: string) => string;
  log: Logger;
  now?: () => Date;
  schedule?: PollSchedule;
  /** Bound of one ingest (default DEFAULT_INGEST_TIMEOUT_MS). */
  ingestTimeoutMs?: number;
  /**
   * After a failure for a resource limit, the catalog is not tried again at its generation
   * before this many ms (default: the ingest timeout). Give the controller the same floor.
   */
  limitRetryFloorMs?: number;
}

/** A catalog that failed for a resource limit: its generation then, and until when it rests. */
interface Held {
  generation: number;
  until: number;
  error: Error;
}

/** `reportingController` of catalogd's events. */
export const CATALOGD_REPORTER = 'olm.operatorframework.io/catalogd';

/** Every reason catalogd records on a ClusterCatalog (docs/operations.md, "Events"). */
export const CatalogEventReason = { Unpacked: 'Unpacked', UnpackFailed: 'UnpackFailed' } as const;

/** Name of this controller (metrics label and log field). */
export const CATALOG_CONTROLLER_NAME = 'catalogd-clustercatalog-controller';

export class CatalogReconciler implements Reconciler {
  readonly #o: CatalogReconcilerOptions;
  readonly #now: () => Date;
  readonly #schedule: PollSchedule;
  readonly #state = new Map<string, PollEntry>();
  readonly #held = new Map<string, Held>();
  readonly #timeoutMs: number;
  readonly #floorMs: number;

  constructor(options: CatalogReconcilerOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => new Date());
    this.#schedule = options.schedule ?? new PollSchedule();
    this.#timeoutMs = options.ingestTimeoutMs ?? DEFAULT_INGEST_TIMEOUT_MS;
    this.#floorMs = options.limitRetryFloorMs ?? this.#timeoutMs;
  }

  async reconcile(name: string, ctx: ReconcileContext): Promise<ReconcileResult | void> {
    try {
      return await reconcileWithStatus<KubeObject>({
        client: this.#o.client,
        ref: { apiVersion: CLUSTER_CATALOG.apiVersion, kind: CLUSTER_CATALOG.kind, name },
        reconcile: (cc) => this.#reconcile(cc, ctx),
        signal: ctx.signal,
      });
    } catch (err) {
      // Any failure forgets what we knew, so the next attempt re-checks the source.
      this.#state.delete(name);
      throw err;
    }
  }

  async #reconcile(cc: KubeObject, ctx: ReconcileContext): Promise<ReconcileResult> {
    const name = cc.metadata.name ?? '';
    const parsed = parseClusterCatalog(cc);
    if (!parsed.ok) throw new TerminalError(parsed.error);
    const spec = parsed.value.spec;

    if (spec.availabilityMode === AvailabilityMode.Unavailable) {
      await this.#removeContent(cc, name, (err) => err);
      setUserUnavailable(cc);
      removeFinalizer(cc, DELETE_SERVER_CACHE_FINALIZER);
      this.#forget(name);
      return {};
    }

    const deleting = isDeleting(cc);
    if (!deleting && addFinalizers(cc, [DELETE_SERVER_CACHE_FINALIZER])) return {};
    if (deleting) {
      if (!hasFinalizer(cc, DELETE_SERVER_CACHE_FINALIZER)) return {};
      await this.#removeContent(cc, name, (err) => wrapError(`finalizer "${DELETE_SERVER_CACHE_FINALIZER}" failed`, err));
      setDeleted(cc);
      removeFinalizer(cc, DELETE_SERVER_CACHE_FINALIZER);
      this.#forget(name);
      return {};
    }

    const interval = spec.source.image.pollIntervalMinutes;
    const generation = cc.metadata.generation ?? 0;
    const now = this.#now();
    const entry = this.#state.get(name);
    if (entry !== undefined && !this.#needsUnpack(cc, entry, generation, interval, now)) {
      const wait = this.#schedule.remaining(entry, interval, now);
      return wait === undefined ? {} : { requeueAfterMs: wait };
    }

    // Our own status write after a limit failure, or a poll, must not start the same work again.
    const held = this.#held.get(name);
    if (held !== undefined && held.generation === generation && now.getTime() < held.until) {
      setProgressingError(cc, held.error);
      throw held.error;
    }
    this.#held.delete(name);

    const ref = spec.source.image.ref;
    let version;
    try {
      version = await this.#ensureContent(cc, name, ref, ctx);
    } catch (err) {
      if (isLimitExceeded(err) && !ctx.signal.aborted) {
        this.#held.set(name, { generation, until: this.#now().getTime() + this.#floorMs, error: err as Error });
      }
      setNeverServed(cc);
      throw err;
    }
    const served = { digestRef: version.info.ref, baseURL: this.#o.baseURL(name), unpackedAt: new Date(version.info.unpackedAt) };
    setServing(cc, served);
    this.#state.set(name, {
      digest: version.info.digest,
      digestRef: version.info.ref,
      unpackedAt: served.unpackedAt,
      lastSuccessfulPoll: now,
      observedGeneration: generation,
    });
    const next = this.#schedule.nextAfterSuccess(interval);
    return next === undefined ? {} : { requeueAfterMs: next };
  }

  /** Upstream's "unpack needed" rule, evaluated against what we last stored. */
  #needsUnpack(cc: KubeObject, entry: PollEntry, generation: number, interval: number | undefined, now: Date): boolean {
    const name = cc.metadata.name ?? '';
    if (!this.#o.store.contentExists(name, entry.digest)) return true;
    if (generation !== entry.observedGeneration) return true;
    if (this.#schedule.due(entry, interval, now)) return true;
    // Someone changed status (or a condition lags): recompute it.
    const expected = structuredClone(statusOf(cc));
    expected.conditions = knownConditionsOnly(expected.conditions);
    const probe = { ...cc, status: expected } as KubeObject;
    setServing(probe, { digestRef: entry.digestRef, baseURL: this.#o.baseURL(name), unpackedAt: entry.unpackedAt });
    return !jsonEqual(cc.status as CatalogStatus, probe.status);
  }

  /**
   * Makes the store hold the content of `ref`'s current digest: resolve the tag (no registry
   * call for digest references), and only when that digest is not stored yet, stream (or pull)
   * and ingest it and switch (catalog-content.ts), all within the ingest timeout. Errors are
   * reported on Progressing and thrown, except a cancellation (the object changed: its status
   * is no longer ours to write).
   */
  async #ensureContent(cc: KubeObject, name: string, ref: string, ctx: ReconcileContext) {
    const { images, store } = this.#o;
    let resolving = true;
    try {
      return await withIngestTimeout(ctx.signal, this.#timeoutMs, async (signal) => {
        const resolved = await images.resolveDigest(ref, signal);
        resolving = false;
        const current = store.get(name);
        if (current !== undefined && current.info.digest === resolved.digest) return current;
        const stored = await storeCatalogImage(this.#o, {
          name,
          ref,
          unpackedAt: (at) => truncateToSeconds(at).toISOString(),
          log: ctx.log,
          signal,
        });
        ctx.log.info({ catalog: name, ref: stored.version.info.ref, streamed: stored.streamed }, 'stored catalog content');
        // Only a digest not stored before is news: a restart or a poll finding the same one is not.
        this.#o.events.event(cc, 'Normal', CatalogEventReason.Unpacked, 'Unpack', `Unpacked and serving ${stored.version.info.ref}`);
        return stored.version;
      });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      let wrapped: Error;
      if (err instanceof ContentStepError) wrapped = wrapError(err.step === 'source' ? 'source catalog content' : 'error storing fbc', err.error);
      else if (resolving || isLimitExceeded(err)) wrapped = wrapError('source catalog content', err);
      else throw err;
      if (isLimitExceeded(wrapped)) wrapped = new Error(withRetryFloor(wrapped.message, this.#floorMs), { cause: wrapped });
      setProgressingError(cc, wrapped);
      this.#o.events.event(cc, 'Warning', CatalogEventReason.UnpackFailed, 'Unpack', wrapped.message);
      throw wrapped;
    }
  }

  /** Forgets what we knew about a catalog whose content is gone. */
  #forget(name: string): void {
    this.#state.delete(name);
    this.#held.delete(name);
  }

  async #removeContent(cc: KubeObject, name: string, wrap: (err: unknown) => unknown): Promise<void> {
    try {
      await this.#o.store.delete(name);
      await this.#o.unpackCache.delete(name);
    } catch (err) {
      const wrapped = wrap(err);
      setProgressingError(cc, wrapped);
      throw wrapped;
    }
  }
}

function truncateToSeconds(d: Date): Date {
  return new Date(Math.floor(d.getTime() / 1000) * 1000);
}
