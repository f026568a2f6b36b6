/**
 * An informer: a read-only cache of one kind kept current by list+watch, notifying handlers of
 * changes. Unlike client-node's (which stops for good on any error but a 410; decision 0060) it
 * never stops, restarts with capped jittered backoff, relists on 410 Gone, re-watches a silent
 * watch, reports `hasSynced` only after a real list, and hands out frozen objects.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { LogOnChange } from '../logchange/index.ts';
import { isGone } from './api-error.ts';
import { Backoff, sleepUnlessAborted, type BackoffOptions } from './backoff.ts';
import { deepFreeze, type ListWatchSource } from './informer-source.ts';
import { counterOn } from './metrics.ts';
import { objectKey, type KubeObject, type ObjectList, type WatchEvent } from '../unstructured/index.ts';
import { jitteredWatchTimeoutSeconds } from './watch.ts';

/** Kinds of change delivered to handlers. */
export type InformerEventType = 'add' | 'update' | 'delete';

/**
 * Receives changes; `oldObj` is the cached one (`obj === oldObj` on resyncs). Handlers should only
 * compute keys and enqueue; exceptions are logged and ignored.
 */
export type InformerHandler<T extends KubeObject> = (type: InformerEventType, obj: Readonly<T>, oldObj: Readonly<T> | undefined) => void;

/** Construction options of an Informer. */
interface InformerOptions<T extends KubeObject> {
  /** Metric label and log field. */
  name: string;
  source: ListWatchSource<T>;
  log: Logger;
  /** Registry for `informer_restarts_total` and `informer_{list,watch}_errors_total`. */
  registry?: Registry;
  /** Applied to each decoded object before it is frozen and cached (e.g. stripManagedFields). */
  transform?: (obj: T) => T;
  /** Re-deliver every cached object as an update this often; 0 disables (default 10 h). */
  resyncPeriodMs?: number;
  /** Abort and re-watch a watch that delivered nothing, not even a bookmark, this long (default 5 min). */
  watchdogMs?: number;
  /** `timeoutSeconds` of each watch (default jittered 300-600). */
  watchTimeoutSeconds?: () => number;
  backoff?: BackoffOptions;
  /** List page size (default 500). */
  pageSize?: number;
}

/** A watch that was aborted by the watchdog. */
class WatchdogExpired extends Error {}

/** See the module comment. Objects handed out are deeply frozen; clone before mutating. */
export class Informer<T extends KubeObject = KubeObject> {
  readonly name: string;
  readonly #o: InformerOptions<T>;
  readonly #cache = new Map<string, Readonly<T>>();
  readonly #handlers = new Set<InformerHandler<T>>();
  readonly #backoff: Backoff;
  readonly #metrics: ReturnType<typeof informerMetrics> | undefined;
  #resourceVersion = '';
  #synced = false;
  #syncWaiters: Array<() => void> = [];
  #running = false;
  /**
   * The failures last logged at warn, per phase: a failure repeating at every backoff is logged
   * at warn when it starts and changes, at debug in between.
   */
  readonly #failure = new LogOnChange();

  constructor(options: InformerOptions<T>) {
    this.name = options.name;
    this.#o = options;
    this.#backoff = new Backoff(options.backoff);
    this.#metrics = options.registry === undefined ? undefined : informerMetrics(options.registry);
  }

  /** True once the first list succeeded; stays true across restarts (the cache is kept). */
  get hasSynced(): boolean {
    return this.#synced;
  }

  /** The resourceVersion the next watch would start from. */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  /** Resolves when synced; rejects with `signal.reason` if `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal?.reason);
      this.#syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Registers a handler (given an `add` per cached object once synced); returns its removal. */
  addHandler(handler: InformerHandler<T>): () => void {
    this.#handlers.add(handler);
    if (this.#synced) for (const obj of this.#cache.values()) this.#call(handler, 'add', obj, undefined);
    return () => this.#handlers.delete(handler);
  }

  /** The cached object with key `namespace/name` (or `name`), frozen. */
  get(key: string): Readonly<T> | undefined {
    return this.#cache.get(key);
  }

  /** All cached objects, frozen. */
  list(): Array<Readonly<T>> {
    return [...this.#cache.values()];
  }

  /** All cached keys. */
  keys(): string[] {
    return [...this.#cache.keys()];
  }

  /** Runs until `signal` aborts, retrying failures; never rejects. Throws when already running. */
  run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error(`informer ${this.name} is already running`);
    this.#running = true;
    const resync = this.#startResync(signal);
    return this.#loop(signal).finally(() => {
      clearInterval(resync);
      this.#running = false;
    });
  }

  async #loop(signal: AbortSignal): Promise<void> {
    let goneInARow = 0;
    while (!signal.aborted) {
      let phase: 'list' | 'watch' = 'list';
      try {
        await this.#relist(signal);
        if (this.#failure.clear('list')) this.#recovered();
        phase = 'watch';
        await this.#watchUntilError(signal, () => {
          goneInARow = 0;
          if (this.#failure.clear('watch')) this.#recovered();
        });
      } catch (err) {
        if (signal.aborted) break;
        if (isGone(err) && goneInARow++ === 0) {
          // Expected after etcd compaction: relist at once (but not in a loop).
          this.#metrics?.restarts.inc({ name: this.name, reason: 'gone' });
          this.#o.log.info({ informer: this.name, err }, 'watch expired, relisting');
          continue;
        }
        const counter = phase === 'list' ? this.#metrics?.listErrors : this.#metrics?.watchErrors;
        counter?.inc({ name: this.name });
        this.#metrics?.restarts.inc({ name: this.name, reason: 'error' });
        const delayMs = this.#backoff.next();
        const repeated = !this.#failure.changed(phase, err instanceof Error ? err.message : String(err));
        this.#o.log[repeated ? 'debug' : 'warn'](
          { informer: this.name, source: this.#o.source.description, phase, err, delayMs },
          'informer failed, restarting after backoff',
        );
        await sleepUnlessAborted(delayMs, signal);
      }
    }
  }

  #recovered(): void {
    this.#o.log.info({ informer: this.name, source: this.#o.source.description }, 'informer recovered');
  }

  // Lists every page, then reconciles the cache with the result: synthetic deletes for
  // vanished keys, adds for new ones, updates for changed resourceVersions.
  async #relist(signal: AbortSignal): Promise<void> {
    const fresh = new Map<string, Readonly<T>>();
    let cont: string | undefined;
    let rv = '';
    const add = (item: T): void => {
      const obj = this.#prepare(item);
      fresh.set(objectKey(obj), obj);
    };
    do {
      const options = { limit: this.#o.pageSize ?? 500, signal, ...(cont === undefined ? {} : { continue: cont }) };
      const meta = await this.#listPage(options, add);
      rv = meta?.resourceVersion ?? rv;
      cont = meta?.continue || undefined;
    } while (cont !== undefined);
    if (signal.aborted) return;
    for (const [key, old] of this.#cache) {
      if (fresh.has(key)) continue;
      this.#cache.delete(key);
      this.#emit('delete', old, old);
    }
    for (const [key, obj] of fresh) {
      const old = this.#cache.get(key);
      this.#cache.set(key, obj);
      if (old === undefined) this.#emit('add', obj, undefined);
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.#emit('update', obj, old);
    }
    this.#resourceVersion = rv;
    this.#markSynced();
  }

  // One page into `add`: item by item where the source streams them, else the page whole (its
  // objects are let go before the next page is asked for).
  async #listPage(
    options: { limit: number; continue?: string; signal: AbortSignal },
    add: (item: T) => void,
  ): Promise<ObjectList['metadata'] | undefined> {
    if (this.#o.source.listEach !== undefined) return (await this.#o.source.listEach(options, add)).metadata;
    const page = await this.#o.source.list(options);
    for (const item of page.items ?? []) add(item);
    return page.metadata;
  }

  // Watches from the current resourceVersion, again and again; returns only on abort.
  async #watchUntilError(signal: AbortSignal, onHealthy: () => void): Promise<void> {
    const watchdogMs = this.#o.watchdogMs ?? 5 * 60_000;
    while (!signal.aborted) {
      const ctl = new AbortController();
      const stop = (): void => ctl.abort(signal.reason);
      signal.addEventListener('abort', stop, { once: true });
      let timer: NodeJS.Timeout | undefined;
      // Re-armed on every event (each bookmark of an idle watch): refresh() restarts the same
      // timer instead of allocating a new one.
      const arm = (): void => {
        if (timer === undefined) timer = setTimeout(() => ctl.abort(new WatchdogExpired(`no watch event for ${watchdogMs} ms`)), watchdogMs);
        else timer.refresh();
      };
      const started = Date.now();
      let events = 0;
      try {
        arm();
        const timeoutSeconds = (this.#o.watchTimeoutSeconds ?? jitteredWatchTimeoutSeconds)();
        const onEvent = (ev: WatchEvent<T>): void => {
          arm();
          if (events++ === 0) {
            this.#backoff.reset();
            onHealthy();
          }
          this.#apply(ev);
        };
        const request = { resourceVersion: this.#resourceVersion, timeoutSeconds, signal: ctl.signal };
        const source = this.#o.source;
        if (source.watchEvents !== undefined) await source.watchEvents(request, onEvent);
        else for await (const ev of source.watch(request)) onEvent(ev);
        // A server that closes watches at once would otherwise make this a busy loop.
        if (events === 0 && Date.now() - started < 1000) throw new Error('the watch ended immediately without events');
      } catch (err) {
        if (signal.aborted) return;
        if (!(ctl.signal.reason instanceof WatchdogExpired)) throw err;
        this.#metrics?.restarts.inc({ name: this.name, reason: 'watchdog' });
        this.#o.log.warn({ informer: this.name, source: this.#o.source.description, watchdogMs }, 'watch silent too long, re-watching');
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', stop);
      }
    }
  }

  #apply(ev: WatchEvent<T>): void {
    const rv = ev.object?.metadata?.resourceVersion;
    if (ev.type === 'BOOKMARK') {
      if (rv !== undefined && rv !== '') this.#resourceVersion = rv;
      return;
    }
    const obj = this.#prepare(ev.object);
    const key = objectKey(obj);
    const old = this.#cache.get(key);
    if (ev.type === 'DELETED') {
      this.#cache.delete(key);
      this.#emit('delete', obj, old);
    } else {
      this.#cache.set(key, obj);
      this.#emit(old === undefined ? 'add' : 'update', obj, old);
    }
    if (rv !== undefined && rv !== '') this.#resourceVersion = rv;
  }

  #prepare(item: T): Readonly<T> {
    const obj = this.#o.transform === undefined ? item : this.#o.transform(item);
    return deepFreeze(obj);
  }

  #markSynced(): void {
    if (this.#synced) return;
    this.#synced = true;
    const waiters = this.#syncWaiters;
    this.#syncWaiters = [];
    for (const w of waiters) w();
  }

  #startResync(signal: AbortSignal): NodeJS.Timeout | undefined {
    const period = this.#o.resyncPeriodMs ?? 10 * 60 * 60_000;
    if (period <= 0) return undefined;
    const timer = setInterval(() => {
      if (signal.aborted || !this.#synced) return;
      for (const obj of this.#cache.values()) this.#emit('update', obj, obj);
    }, period);
    timer.unref();
    return timer;
  }

  #emit(type: InformerEventType, obj: Readonly<T>, old: Readonly<T> | undefined): void {
    for (const h of this.#handlers) this.#call(h, type, obj, old);
  }

  #call(h: InformerHandler<T>, type: InformerEventType, obj: Readonly<T>, old: Readonly<T> | undefined): void {
    try {
      h(type, obj, old);
    } catch (err) {
      this.#o.log.error({ informer: this.name, err, eventType: type, key: objectKey(obj) }, 'informer event handler threw');
    }
  }
}

function informerMetrics(registry: Registry) {
  return {
    restarts: counterOn(registry, 'informer_restarts_total', 'Restarts of informer list/watch loops, by cause (error, gone, watchdog).', [
      'name',
      'reason',
    ]),
    listErrors: counterOn(registry, 'informer_list_errors_total', 'Failed informer list requests.', ['name']),
    watchErrors: counterOn(registry, 'informer_watch_errors_total', 'Failed or broken informer watches.', ['name']),
  };
}
