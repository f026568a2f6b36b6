/**
 * A controller: informer events -> key functions -> de-duplicating workqueue -> N workers
 * running the reconciler, with controller-runtime's result handling and metrics. Two additions
 * for reconciles that can run long (catalogd's ingests): an event can cancel the reconcile in
 * flight for its key (Watch.cancels), and a failure for a resource limit is retried no sooner
 * than a floor (ControllerOptions.limitRetryFloorMs). And one for reconciles over the whole
 * cluster under one key (the upgrade gate): a watch's events can queue their keys at most once
 * per interval (Watch.paceMs), so a burst of events costs one reconcile per interval, not one each.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { errorMessage, isLimitExceeded, isTerminal } from '../errors/index.ts';
import { objectKey, settlesWithin, untilAborted, type Informer, type InformerEventType, type KubeObject } from '../kube/index.ts';
import { controllerMetrics, type ControllerMetrics } from './controller-metrics.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { ReconcileCancelledError, isPanic, type ReconcileResult, type Reconciler } from './reconciler.ts';
import { WorkQueue } from './workqueue.ts';

/** A function of an informer event; it runs inside the informer's event delivery: no I/O. */
type EventFunc<T extends KubeObject, R> = (type: InformerEventType, obj: Readonly<T>, oldObj: Readonly<T> | undefined) => R;

/** Maps an informer event to the keys to reconcile (none: undefined or []). */
export type KeyFunc<T extends KubeObject = KubeObject> = EventFunc<T, string | readonly string[] | undefined>;

/**
 * Says whether an event makes the reconcile in flight for its keys pointless (the object was
 * deleted, its spec changed): the reason why, or undefined.
 */
export type CancelFunc<T extends KubeObject = KubeObject> = EventFunc<T, string | undefined>;

/** One informer the controller reacts to; `keys` defaults to the object's own key. */
interface Watch<T extends KubeObject = KubeObject> {
  informer: Informer<T>;
  keys?: KeyFunc<T>;
  /**
   * A reason it gives aborts a running reconcile of the event's keys (ReconcileCancelledError);
   * the keys are queued as usual and reconciled again at once, without backoff.
   */
  cancels?: CancelFunc<T>;
  /**
   * Least time (ms) between the starts of two reconciles of a key this watch's events queue: an
   * event within that time of the last start queues the key for when it has passed (events
   * meanwhile coalesce into that one reconcile); later events queue it at once. For a key whose
   * reconcile walks every object (the upgrade gate's), which a mass install changes several
   * times a second. Keys queued otherwise (enqueue, requeues, other watches) are not paced.
   */
  paceMs?: number;
}

/** Construction options of a Controller. */
interface ControllerOptions {
  /** `controller` label and log field, e.g. `controller-operator-cluster-extension-controller`. */
  name: string;
  reconciler: Reconciler;
  /**
   * The queue, when the caller builds it first (so the parts that queue keys can be built
   * before the reconciler over them). Default: a new queue named `name` with `rateLimiter`.
   */
  queue?: WorkQueue;
  log: Logger;
  registry?: Registry;
  // Watch<any>: handlers are contravariant in T, so a list of differently-typed watches
  // cannot be expressed with Watch<KubeObject>.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  watches: ReadonlyArray<Watch<any>>;
  /** Workers (default 1: a key is never reconciled concurrently anyway). */
  concurrency?: number;
  rateLimiter?: RateLimiter;
  /** Least delay (ms) before retrying a reconcile failed for a LimitExceededError (default 0). */
  limitRetryFloorMs?: number;
  /**
   * A reconcile's `requeueAfterMs` replaces the one an earlier reconcile of the key left pending,
   * and a reconcile that asks for none drops it (WorkQueue `requeueAfter`): the latest reconcile
   * saw the latest state. Default (client-go's): the earliest pending delay is kept, and a
   * requeue comes even after a later reconcile found nothing left to wait for.
   */
  replaceRequeues?: boolean;
  /** How long `run` waits for in-flight reconciles after its signal aborted (default 30 s). */
  shutdownTimeoutMs?: number;
  /**
   * The kind reconciled (its apiVersion and kind), for upstream's `reconcile ending` line: at info
   * after each reconcile, with controller-runtime's fields naming the object (upstream's e2e
   * reads it in the leader's log). Absent: no such line (controllers upstream does not have).
   */
  reconciles?: { apiVersion: string; kind: string };
}

/** See the module comment. Handlers are registered at construction; `run` starts the workers. */
export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  readonly #o: ControllerOptions;
  readonly #metrics: ControllerMetrics | undefined;
  readonly #unsubscribe: Array<() => void> = [];
  /** Cancellation of the reconcile running for each key. */
  readonly #inFlight = new Map<string, AbortController>();
  /** Work running beside the reconciles (`besideReconcile`), per key. */
  readonly #beside = new Map<string, Promise<unknown>>();
  /** When the last reconcile of each key started (Date.now), kept only when a watch is paced. */
  readonly #lastStart = new Map<string, number>();
  readonly #paced: boolean;
  #started = false;
  #ran = false;

  constructor(options: ControllerOptions) {
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`controller ${options.name}: concurrency must be a positive integer`);
    this.name = options.name;
    this.#o = { ...options, concurrency };
    const queueOpts = { name: options.name, ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }) };
    this.queue = options.queue ?? new WorkQueue(options.registry === undefined ? queueOpts : { ...queueOpts, registry: options.registry });
    this.#metrics = options.registry === undefined ? undefined : controllerMetrics(options.registry, options.name);
    this.#metrics?.maxConcurrent.set(concurrency);
    this.#metrics?.activeWorkers.set(0);
    this.#paced = options.watches.some((w) => w.paceMs !== undefined);
    for (const w of options.watches) {
      const keys: KeyFunc = w.keys ?? ((_t, obj) => objectKey(obj));
      const cancels: CancelFunc | undefined = w.cancels;
      const paceMs = w.paceMs;
      this.#unsubscribe.push(
        w.informer.addHandler((type, obj, old) => {
          const k = keys(type, obj, old);
          const reason = cancels?.(type, obj, old);
          if (reason !== undefined) this.#cancelAll(k, reason);
          if (paceMs === undefined) this.#enqueueAll(k);
          else this.#enqueuePaced(k, paceMs);
        }),
      );
    }
  }

  /** True once all informers synced and workers are running (a readiness signal). */
  get started(): boolean {
    return this.#started;
  }

  /** Queues `key` for reconciliation (e.g. from a mapping outside the watched informers). */
  enqueue(key: string): void {
    this.queue.add(key);
  }

  /**
   * Runs `fn` for `key` unless a reconcile of `key` (or other work beside it) is in flight, then
   * resolves undefined without calling it; a worker taking `key` meanwhile waits for `fn`. For
   * short writes that must not interleave with a reconcile of the same object.
   */
  async besideReconcile<T>(key: string, fn: () => Promise<T>): Promise<T | undefined> {
    if (this.#inFlight.has(key) || this.#beside.has(key)) return undefined;
    // fn runs synchronously up to its first await, so no worker starts `key` before this entry.
    const running = fn();
    this.#beside.set(key, running);
    try {
      return await running;
    } finally {
      this.#beside.delete(key);
    }
  }

  /**
   * Waits for every watched informer to sync (the caller starts them), runs the workers until
   * `signal` aborts, then waits (at most shutdownTimeoutMs) for in-flight reconciles. Rejects
   * only when called a second time.
   */
  async run(signal: AbortSignal): Promise<void> {
    // A stopped controller has shut its queue down; it cannot run again.
    if (this.#ran) throw new Error(`controller ${this.name} can run only once`);
    this.#ran = true;
    const log = this.#o.log.child({ controller: this.name });
    try {
      await Promise.all(this.#o.watches.map((w) => w.informer.waitForSync(signal)));
    } catch {
      // Aborted before the caches synced: nothing was started.
    }
    if (!signal.aborted) {
      log.info({ workers: this.#o.concurrency }, 'starting workers');
      this.#started = true;
      const workers = Array.from({ length: this.#o.concurrency ?? 1 }, () => this.#worker(signal, log));
      await untilAborted(signal);
      log.info({}, 'shutdown signal received, waiting for in-flight reconciles');
      this.queue.shutdown();
      const drained = await settlesWithin(Promise.all(workers), this.#o.shutdownTimeoutMs ?? 30_000);
      if (!drained) log.warn({ timeoutMs: this.#o.shutdownTimeoutMs ?? 30_000 }, 'in-flight reconciles did not finish in time');
    }
    this.queue.shutdown();
    for (const u of this.#unsubscribe) u();
    this.#started = false;
    log.info({}, 'controller stopped');
  }

  #cancelAll(keys: string | readonly string[] | undefined, reason: string): void {
    for (const k of keyList(keys)) {
      const running = this.#inFlight.get(k);
      if (running === undefined || running.signal.aborted) continue;
      this.#o.log.info({ controller: this.name, key: k, reason }, 'cancelling reconcile in flight');
      running.abort(new ReconcileCancelledError(reason));
    }
  }

  #enqueueAll(keys: string | readonly string[] | undefined): void {
    for (const k of keyList(keys)) if (k !== '') this.queue.add(k);
  }

  /** Queues each key once `paceMs` have passed since its last reconcile started (Watch.paceMs). */
  #enqueuePaced(keys: string | readonly string[] | undefined, paceMs: number): void {
    for (const k of keyList(keys)) {
      if (k === '') continue;
      const wait = (this.#lastStart.get(k) ?? Number.NEGATIVE_INFINITY) + paceMs - Date.now();
      if (wait > 0) this.queue.addAfter(k, wait);
      else this.queue.add(k);
    }
  }

  async #worker(signal: AbortSignal, log: Logger): Promise<void> {
    while (!signal.aborted) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        // After shutdown the queue still hands out its backlog; a stopping controller skips it.
        if (!signal.aborted) await this.#process(key, signal, log);
      } finally {
        this.queue.done(key);
      }
    }
  }

  async #process(key: string, signal: AbortSignal, parent: Logger): Promise<void> {
    const log = parent.child({ key, reconcileID: randomUUID() });
    const m = this.#metrics;
    m?.activeWorkers.inc();
    const started = performance.now();
    // What a burst costs each key (issue 60): its wait in the queue, the reconcile, how it ended.
    let outcome = 'error';
    const finished = (): void => {
      if (!log.isLevelEnabled('debug')) return;
      const ms = Math.round(performance.now() - started);
      log.debug({ queuedMs: this.queue.waitedMs(key), ms, outcome, failures: this.queue.numRequeues(key) }, 'reconcile finished');
    };
    if (this.#paced) this.#lastStart.set(key, Date.now());
    const cancel = new AbortController();
    this.#inFlight.set(key, cancel);
    let result: ReconcileResult | void;
    try {
      const beside = this.#beside.get(key);
      if (beside !== undefined) await beside.catch(() => undefined);
      result = await this.#o.reconciler.reconcile(key, { signal: AbortSignal.any([signal, cancel.signal]), log });
      outcome = 'returned';
    } catch (err) {
      if (cancel.signal.aborted) {
        // The event that cancelled it queued the key again: no backoff, no error.
        outcome = 'cancelled';
        m?.total.inc({ result: 'requeue' });
        log.info({ reason: errorMessage(cancel.signal.reason) }, 'reconcile cancelled');
        return;
      }
      if (isPanic(err)) {
        m?.panics.inc();
        log.error({ err }, 'Observed a panic in reconciler');
      }
      if (isTerminal(err)) {
        m?.terminalErrors.inc();
      } else {
        this.queue.addRateLimited(key, isLimitExceeded(err) ? (this.#o.limitRetryFloorMs ?? 0) : 0);
      }
      m?.errors.inc();
      m?.total.inc({ result: 'error' });
      log.error({ err, terminal: isTerminal(err) }, 'Reconciler error');
      return;
    } finally {
      this.#inFlight.delete(key);
      m?.duration.observe((performance.now() - started) / 1000);
      m?.activeWorkers.dec();
      if (outcome !== 'returned') finished();
      if (this.#o.reconciles !== undefined) reconcileEnding(log, key, this.#o.reconciles);
    }
    const replace = this.#o.replaceRequeues === true;
    if (result?.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
      this.queue.forget(key);
      if (replace) this.queue.requeueAfter(key, result.requeueAfterMs, result.priority);
      else this.queue.addAfter(key, result.requeueAfterMs, result.priority);
      m?.total.inc({ result: 'requeue_after' });
      outcome = 'requeue_after';
    } else if (result?.requeue === true) {
      if (replace) this.queue.cancelRequeue(key);
      this.queue.addRateLimited(key);
      m?.total.inc({ result: 'requeue' });
      outcome = 'requeue';
    } else {
      if (replace) this.queue.cancelRequeue(key);
      this.queue.forget(key);
      m?.total.inc({ result: 'success' });
      outcome = 'success';
    }
    finished();
  }
}

/** upstream's line at the end of a reconcile, as its controllers log it through controller-runtime's logger. */
function reconcileEnding(log: Logger, key: string, { apiVersion, kind }: { apiVersion: string; kind: string }): void {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  log.info({ controllerGroup: group, controllerKind: kind, [kind]: { name: key }, namespace: '', name: key }, 'reconcile ending');
}

function keyList(keys: string | readonly string[] | undefined): readonly string[] {
  return typeof keys === 'string' ? [keys] : (keys ?? []);
}
