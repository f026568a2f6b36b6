/**
 * A de-duplicating, rate-limited work queue of string keys with client-go's semantics:
 * - a key is queued at most once (adding a queued key is a no-op);
 * - a key is handed to one worker at a time; re-added while in flight, it is queued again
 *   when the worker calls `done`;
 * - `addAfter` delays an add (the earliest pending delay of a key wins);
 * - `addRateLimited` delays by the rate limiter; `forget` resets the key's backoff.
 */
import type { Registry } from 'prom-client';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';
import { workQueueMetrics, type WorkQueueMetrics } from './workqueue-metrics.ts';

/** Construction options of a WorkQueue. */
interface WorkQueueOptions {
  /** The `name` label of the `workqueue_*` metrics (the controller name). */
  name: string;
  rateLimiter?: RateLimiter;
  registry?: Registry;
}

/** See the module comment. Time is taken from `Date.now` and timers from `setTimeout`. */
export class WorkQueue {
  readonly name: string;
  readonly #limiter: RateLimiter;
  readonly #metrics: WorkQueueMetrics | undefined;
  #queue: string[] = [];
  #head = 0;
  readonly #dirty = new Set<string>();
  readonly #processing = new Map<string, number>();
  readonly #addedAt = new Map<string, number>();
  readonly #waiting = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  #getters: Array<(key: string | undefined) => void> = [];
  #idle: Array<() => void> = [];
  #shuttingDown = false;
  /** Refreshes the in-flight gauges every 500 ms (client-go's), only while a key is in flight. */
  #gaugeTimer: NodeJS.Timeout | undefined;

  constructor(options: WorkQueueOptions) {
    this.name = options.name;
    this.#limiter = options.rateLimiter ?? defaultControllerRateLimiter();
    this.#metrics = options.registry === undefined ? undefined : workQueueMetrics(options.registry, options.name);
  }

  /** Queues `key` unless already queued or shutting down. */
  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (!this.#addedAt.has(key)) this.#addedAt.set(key, Date.now());
    this.#metrics?.adds.inc();
    this.#metrics?.depth.inc();
    if (this.#processing.has(key)) return;
    this.#queue.push(key);
    this.#wake();
  }

  /** Queues `key` after `delayMs` (at once when <= 0); an earlier pending delay is kept. */
  addAfter(key: string, delayMs: number): void {
    if (this.#shuttingDown) return;
    this.#metrics?.retries.inc();
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = Date.now() + delayMs;
    const pending = this.#waiting.get(key);
    if (pending !== undefined) {
      if (pending.at <= at) return;
      clearTimeout(pending.timer);
    }
    const timer = setTimeout(() => {
      this.#waiting.delete(key);
      this.add(key);
    }, delayMs);
    this.#waiting.set(key, { at, timer });
  }

  /** Queues `key` after the rate limiter's delay (one more failure of `key`), or after `floorMs` if that is longer. */
  addRateLimited(key: string, floorMs = 0): void {
    this.addAfter(key, Math.max(floorMs, this.#limiter.when(key)));
  }

  /** Resets the rate limiter's backoff of `key`. */
  forget(key: string): void {
    this.#limiter.forget(key);
  }

  /** Failures of `key` recorded by the rate limiter since its last `forget`. */
  numRequeues(key: string): number {
    return this.#limiter.numRequeues(key);
  }

  /** Keys queued and not yet handed out. */
  get length(): number {
    return this.#queue.length - this.#head;
  }

  /** True after `shutdown()`. */
  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * The next key once queued; after `shutdown()` the backlog, then undefined. Call `done(key)`.
   */
  get(): Promise<string | undefined> {
    if (this.length > 0) return Promise.resolve(this.#pop());
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /** Marks `key` finished; queues it again if it was added while in flight. */
  done(key: string): void {
    const started = this.#processing.get(key);
    if (started === undefined) return;
    this.#processing.delete(key);
    this.#metrics?.workDuration.observe((Date.now() - started) / 1000);
    if (this.#processing.size === 0) this.#stopGauges();
    if (this.#dirty.has(key)) {
      this.#queue.push(key);
      this.#wake();
    }
    this.#checkIdle();
  }

  /** Stops accepting adds, drops pending delayed adds and releases waiting `get()` callers. */
  shutdown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    for (const w of this.#waiting.values()) clearTimeout(w.timer);
    this.#waiting.clear();
    clearInterval(this.#gaugeTimer);
    this.#gaugeTimer = undefined;
    const getters = this.#getters;
    this.#getters = [];
    for (const g of getters) g(undefined);
    this.#checkIdle();
  }

  /** Resolves once nothing is queued and nothing is in flight. */
  drain(): Promise<void> {
    if (this.length === 0 && this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #pop(): string {
    const key = this.#queue[this.#head] as string;
    this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    const now = Date.now();
    this.#dirty.delete(key);
    this.#processing.set(key, now);
    if (this.#metrics !== undefined && this.#gaugeTimer === undefined && !this.#shuttingDown) {
      this.#gaugeTimer = setInterval(() => this.#updateInFlightGauges(), 500);
      this.#gaugeTimer.unref();
    }
    this.#metrics?.depth.dec();
    const added = this.#addedAt.get(key);
    this.#addedAt.delete(key);
    if (added !== undefined) this.#metrics?.queueDuration.observe((now - added) / 1000);
    return key;
  }

  #wake(): void {
    while (this.#getters.length > 0 && this.length > 0) {
      const getter = this.#getters.shift() as (key: string | undefined) => void;
      getter(this.#pop());
    }
  }

  #checkIdle(): void {
    if (this.length !== 0 || this.#processing.size !== 0) return;
    const idle = this.#idle;
    this.#idle = [];
    for (const r of idle) r();
  }

  #stopGauges(): void {
    if (this.#gaugeTimer === undefined) return;
    clearInterval(this.#gaugeTimer);
    this.#gaugeTimer = undefined;
    this.#updateInFlightGauges();
  }

  #updateInFlightGauges(): void {
    const now = Date.now();
    let total = 0;
    let longest = 0;
    for (const started of this.#processing.values()) {
      const s = (now - started) / 1000;
      total += s;
      longest = Math.max(longest, s);
    }
    this.#metrics?.unfinished.set(total);
    this.#metrics?.longest.set(longest);
  }
}
