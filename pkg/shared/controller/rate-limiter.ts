/**
 * Requeue rate limiters with client-go's semantics (util/workqueue/default_rate_limiters.go):
 * per-item exponential failure backoff, an overall token bucket, and their maximum.
 */

/** Decides how long a key waits before it is retried. */
export interface RateLimiter {
  /** Delay in ms for the next retry of `key`; records one more failure of it. */
  when(key: string): number;
  /** Forgets the failures of `key` (after a success). */
  forget(key: string): void;
  /** How many failures of `key` were recorded since the last forget. */
  numRequeues(key: string): number;
}

/** `base * 2^failures`, capped at `max` (client-go ItemExponentialFailureRateLimiter). */
export class ExponentialFailureRateLimiter implements RateLimiter {
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #failures = new Map<string, number>();

  constructor(baseMs: number, maxMs: number) {
    if (!(baseMs > 0) || !(maxMs >= baseMs)) throw new Error(`invalid exponential rate limiter: base ${baseMs} ms, max ${maxMs} ms`);
    this.#baseMs = baseMs;
    this.#maxMs = maxMs;
  }

  when(key: string): number {
    const exp = this.#failures.get(key) ?? 0;
    this.#failures.set(key, exp + 1);
    const delay = this.#baseMs * 2 ** exp;
    return Number.isFinite(delay) && delay < this.#maxMs ? delay : this.#maxMs;
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/** A token bucket shared by all keys (golang.org/x/time/rate): `burst` tokens refilled at `qps`. */
export class BucketRateLimiter implements RateLimiter {
  readonly #qps: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #last: number;

  constructor(qps: number, burst: number, now: () => number = Date.now) {
    if (!(qps > 0) || !(burst >= 1)) throw new Error(`invalid bucket rate limiter: qps ${qps}, burst ${burst}`);
    this.#qps = qps;
    this.#burst = burst;
    this.#now = now;
    this.#tokens = burst;
    this.#last = now();
  }

  when(): number {
    const now = this.#now();
    const elapsedS = Math.max(0, now - this.#last) / 1000;
    this.#tokens = Math.min(this.#burst, this.#tokens + elapsedS * this.#qps) - 1;
    this.#last = now;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens / this.#qps) * 1000);
  }

  forget(): void {}

  numRequeues(): number {
    return 0;
  }
}

/** The largest delay of several limiters (client-go MaxOfRateLimiter). */
export class MaxOfRateLimiter implements RateLimiter {
  readonly #limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    if (limiters.length === 0) throw new Error('MaxOfRateLimiter needs at least one limiter');
    this.#limiters = limiters;
  }

  when(key: string): number {
    let max = 0;
    for (const l of this.#limiters) max = Math.max(max, l.when(key));
    return max;
  }

  forget(key: string): void {
    for (const l of this.#limiters) l.forget(key);
  }

  numRequeues(key: string): number {
    let max = 0;
    for (const l of this.#limiters) max = Math.max(max, l.numRequeues(key));
    return max;
  }
}

/**
 * controller-runtime's default: max of per-item backoff 5 ms doubling to 1000 s and a
 * 10 qps / burst 100 bucket (decision 0063).
 */
export function defaultControllerRateLimiter(now: () => number = Date.now): RateLimiter {
  return new MaxOfRateLimiter(new ExponentialFailureRateLimiter(5, 1_000_000), new BucketRateLimiter(10, 100, now));
}
