/**
 * A de-duplicating, rate-limited work queue of string keys with client-go's semantics:
 * - a key is queued at most once (adding a queued key is a no-op);
 * - a key is handed to one worker at a time; re-added while in flight, it is queued again
 *   when the worker calls `done`;
 * - `addAfter` delays an add (the earliest pending delay of a key wins);
 * - `addRateLimited` delays by the rate limiter; `forget` resets the key's backoff.
 *
 * Besides, a key's requeue (`requeueAfter`): one delayed add a key has at most, which the next
 * replaces and `cancelRequeue` drops, for a controller whose latest reconcile says whether and
 * when to come back (Controller `replaceRequeues`).
 *
 * One addition, as controller-runtime's priority queue: `add(key, priority)` hands out keys of
 * a higher priority first (default 0; keys of one priority in the order they were queued). A
 * key queued again with a higher priority moves up; a lower one leaves it where it is. A key
 * added while in flight is queued, when it is done, at the highest priority it was added with.
 */
import type { Registry } from 'prom-client';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';
import { workQueueMetrics, type WorkQueueMetrics } from './workqueue-metrics.ts';

/** The priority of a key nothing but a poll asked for (controller-runtime's handler.LowPriority): behind every event's (0). */
export const LOW_PRIORITY = -100;

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
  /** FIFOs by priority, highest first; an entry that is not its key's current one (moved up, or handed out) is skipped. */
  #levels: Level[] = [];
  /** Keys queued and not handed out: the number of their current entry. */
  readonly #queued = new Map<string, number>();
  #entries = 0;
  /** Keys to process (queued, or added while in flight), with the highest priority they were added with. */
  readonly #dirty = new Map<string, number>();
  readonly #processing = new Map<string, number>();
  readonly #addedAt = new Map<string, number>();
  /** How long each key in flight waited in the queue before a worker took it (ms). */
  readonly #waited = new Map<string, number>();
  readonly #waiting = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  readonly #requeues = new Map<string, NodeJS.Timeout>();
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

  /** Queues `key` unless already queued (then at most raises its priority) or shutting down. */
  add(key: string, priority = 0): void {
    if (this.#shuttingDown) return;
    const dirty = this.#dirty.get(key);
    if (dirty !== undefined) {
      if (priority <= dirty) return;
      this.#dirty.set(key, priority);
      // Queued: moved up (the old entry is skipped); in flight: queued at this priority when done.
      if (this.#queued.has(key)) this.#enqueue(key, priority);
      this.#wake();
      return;
    }
    this.#dirty.set(key, priority);
    if (!this.#addedAt.has(key)) this.#addedAt.set(key, Date.now());
    this.#metrics?.adds.inc();
    this.#metrics?.depth.inc();
    if (this.#processing.has(key)) return;
    this.#enqueue(key, priority);
    this.#wake();
  }

  /** Queues `key` at `priority` after `delayMs` (at once when <= 0); an earlier pending delay is kept, with its priority. */
  addAfter(key: string, delayMs: number, priority = 0): void {
    if (this.#shuttingDown) return;
    this.#metrics?.retries.inc();
    if (delayMs <= 0) {
      this.add(key, priority);
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
      this.add(key, priority);
    }, delayMs);
    this.#waiting.set(key, { at, timer });
  }

  /** Queues `key` at `priority` after `delayMs`, instead of the requeue it had pending (delayed adds of `addAfter` stay). */
  requeueAfter(key: string, delayMs: number, priority = 0): void {
    if (this.#shuttingDown) return;
    this.cancelRequeue(key);
    this.#metrics?.retries.inc();
    const timer = setTimeout(() => {
      this.#requeues.delete(key);
      this.add(key, priority);
    }, delayMs);
    this.#requeues.set(key, timer);
  }

  /** Drops the requeue `key` has pending, if any. */
  cancelRequeue(key: string): void {
    clearTimeout(this.#requeues.get(key));
    this.#requeues.delete(key);
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
    return this.#queued.size;
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

  /** How long `key`, now in flight, waited in the queue before a worker took it (ms); undefined when not in flight. */
  waitedMs(key: string): number | undefined {
    return this.#waited.get(key);
  }

  /** Marks `key` finished; queues it again if it was added while in flight. */
  done(key: string): void {
    const started = this.#processing.get(key);
    if (started === undefined) return;
    this.#processing.delete(key);
    this.#waited.delete(key);
    this.#metrics?.workDuration.observe((Date.now() - started) / 1000);
    if (this.#processing.size === 0) this.#stopGauges();
    const again = this.#dirty.get(key);
    if (again !== undefined) {
      this.#enqueue(key, again);
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
    for (const timer of this.#requeues.values()) clearTimeout(timer);
    this.#requeues.clear();
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

  #enqueue(key: string, priority: number): void {
    const entry = ++this.#entries;
    this.#queued.set(key, entry);
    let i = this.#levels.findIndex((l) => l.priority <= priority);
    if (i === -1) i = this.#levels.length;
    let level = this.#levels[i];
    if (level?.priority !== priority) {
      level = new Level(priority);
      this.#levels.splice(i, 0, level);
    }
    level.push({ key, entry });
  }

  /** The next queued key; only called when `length > 0`. */
  #pop(): string {
    let key: string | undefined;
    while (key === undefined) {
      const level = this.#levels[0] as Level;
      const next = level.shift();
      if (next === undefined) {
        // Keep the default level, which nearly every key goes through, rather than make it again.
        if (level.priority !== 0 || this.#levels.length > 1) this.#levels.shift();
        continue;
      }
      if (this.#queued.get(next.key) === next.entry) key = next.key;
    }
    this.#queued.delete(key);
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
    this.#waited.set(key, added === undefined ? 0 : now - added);
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

/** One queued key: `entry` numbers its queueing, so that an entry left behind when it moved is told apart. */
interface Entry {
  key: string;
  entry: number;
}

/** The keys queued at one priority, in order; a FIFO with a moving head. */
class Level {
  readonly priority: number;
  #items: Entry[] = [];
  #head = 0;

  constructor(priority: number) {
    this.priority = priority;
  }

  push(e: Entry): void {
    this.#items.push(e);
  }

  shift(): Entry | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const key = this.#items[this.#head] as Entry;
    this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return key;
  }
}
