/**
 * A controller: informer events -> key functions -> de-duplicating workqueue -> N workers
 * running the reconciler, with controller-runtime's result handling and metrics.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { isTerminal } from '../errors/index.ts';
import { objectKey, settlesWithin, type Informer, type InformerEventType, type KubeObject } from '../kube/index.ts';
import { controllerMetrics, type ControllerMetrics } from './controller-metrics.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { isPanic, type ReconcileResult, type Reconciler } from './reconciler.ts';
import { WorkQueue } from './workqueue.ts';

/**
 * Maps an informer event to the keys to reconcile (none: undefined or []). Runs inside the
 * informer's event delivery: compute keys only, no I/O.
 */
export type KeyFunc<T extends KubeObject = KubeObject> = (
  type: InformerEventType,
  obj: Readonly<T>,
  oldObj: Readonly<T> | undefined,
) => string | readonly string[] | undefined;

/** One informer the controller reacts to; `keys` defaults to the object's own key. */
export interface Watch<T extends KubeObject = KubeObject> {
  informer: Informer<T>;
  keys?: KeyFunc<T>;
}

/** Construction options of a Controller. */
export interface ControllerOptions {
  /** `controller` label and log field, e.g. `controller-operator-cluster-extension-controller`. */
  name: string;
  reconciler: Reconciler;
  log: Logger;
  registry?: Registry;
  // Watch<any>: handlers are contravariant in T, so a list of differently-typed watches
  // cannot be expressed with Watch<KubeObject>.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  watches: ReadonlyArray<Watch<any>>;
  /** Workers (default 1: a key is never reconciled concurrently anyway). */
  concurrency?: number;
  rateLimiter?: RateLimiter;
  /** How long `run` waits for in-flight reconciles after its signal aborted (default 30 s). */
  shutdownTimeoutMs?: number;
}

/** See the module comment. Handlers are registered at construction; `run` starts the workers. */
export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  readonly #o: ControllerOptions;
  readonly #metrics: ControllerMetrics | undefined;
  readonly #unsubscribe: Array<() => void> = [];
  #started = false;
  #ran = false;

  constructor(options: ControllerOptions) {
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`controller ${options.name}: concurrency must be a positive integer`);
    this.name = options.name;
    this.#o = { ...options, concurrency };
    const queueOpts = { name: options.name, ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }) };
    this.queue = new WorkQueue(options.registry === undefined ? queueOpts : { ...queueOpts, registry: options.registry });
    this.#metrics = options.registry === undefined ? undefined : controllerMetrics(options.registry, options.name);
    this.#metrics?.maxConcurrent.set(concurrency);
    this.#metrics?.activeWorkers.set(0);
    for (const w of options.watches) {
      const keys: KeyFunc = w.keys ?? ((_t, obj) => objectKey(obj));
      this.#unsubscribe.push(w.informer.addHandler((type, obj, old) => this.#enqueueAll(keys(type, obj, old))));
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
   * Waits for every watched informer to sync, runs the workers until `signal` aborts, then
   * waits (at most shutdownTimeoutMs) for in-flight reconciles. Informers are
   * started by the caller (they are usually shared between controllers). Rejects only when
   * called a second time.
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
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
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

  #enqueueAll(keys: string | readonly string[] | undefined): void {
    if (keys === undefined) return;
    if (typeof keys === 'string') {
      if (keys !== '') this.queue.add(keys);
      return;
    }
    for (const k of keys) if (k !== '') this.queue.add(k);
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
    let result: ReconcileResult | void;
    try {
      result = await this.#o.reconciler.reconcile(key, { signal, log });
    } catch (err) {
      if (isPanic(err)) {
        m?.panics.inc();
        log.error({ err }, 'Observed a panic in reconciler');
      }
      if (isTerminal(err)) {
        m?.terminalErrors.inc();
      } else {
        this.queue.addRateLimited(key);
      }
      m?.errors.inc();
      m?.total.inc({ result: 'error' });
      log.error({ err, terminal: isTerminal(err) }, 'Reconciler error');
      return;
    } finally {
      m?.duration.observe((performance.now() - started) / 1000);
      m?.activeWorkers.dec();
    }
    if (result?.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
      this.queue.forget(key);
      this.queue.addAfter(key, result.requeueAfterMs);
      m?.total.inc({ result: 'requeue_after' });
    } else if (result?.requeue === true) {
      this.queue.addRateLimited(key);
      m?.total.inc({ result: 'requeue' });
    } else {
      this.queue.forget(key);
      m?.total.inc({ result: 'success' });
    }
  }
}
