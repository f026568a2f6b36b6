/**
 * Capped exponential backoff with jitter, an abortable sleep and a wait for an abort.
 */

/** Settings of a Backoff. */
export interface BackoffOptions {
  /** First delay (default 800 ms, as client-go's reflector). */
  initialMs?: number;
  /** Cap of the un-jittered delay (default 30 s). */
  maxMs?: number;
  random?: () => number;
}

/**
 * Delays initialMs, 2x, 4x, ... capped at maxMs, each stretched by up to half;
 * `reset()` starts over after a success.
 */
export class Backoff {
  readonly #initial: number;
  readonly #max: number;
  readonly #random: () => number;
  #attempt = 0;

  constructor(options: BackoffOptions = {}) {
    this.#initial = options.initialMs ?? 800;
    this.#max = options.maxMs ?? 30_000;
    this.#random = options.random ?? Math.random;
    if (!(this.#initial > 0) || !(this.#max >= this.#initial)) {
      throw new Error(`invalid backoff: initialMs ${this.#initial} must be > 0 and <= maxMs ${this.#max}`);
    }
  }

  /** The next delay in milliseconds. */
  next(): number {
    const base = Math.min(this.#max, this.#initial * 2 ** Math.min(this.#attempt, 40));
    this.#attempt++;
    return Math.round(base * (1 + 0.5 * this.#random()));
  }

  /** Forgets past failures. */
  reset(): void {
    this.#attempt = 0;
  }
}

/** Resolves after `ms`, or early (without throwing) when `signal` aborts. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Resolves when `signal` aborts, at once when it already has: an abort listener added after the
 * abort is never called (a revision controller started while its process was told to stop waited forever).
 */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** True when `p` settles (either way) within `ms`; the timer is cleared either way. */
export function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const done = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    p.then(done, done);
  });
}
