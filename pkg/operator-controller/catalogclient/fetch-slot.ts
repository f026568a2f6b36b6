/**
 * One cached value fetched at most once at a time (the catalog content cache's building block):
 * it holds a value until dropped, or an error until its doubling retry time (an `unheld` error
 * not at all: the next call fetches again); callers arriving
 * during a fetch share it. The fetch is aborted, and nothing cached, only when every waiting
 * caller has given up.
 */

/** How long errors are served from cache, and the clock used for it. */
export interface RetryPolicy {
  now: () => number;
  /** Delay after the first failure; each further consecutive failure doubles it. */
  firstDelayMs: number;
  /** Upper bound of the delay. */
  maxDelayMs: number;
  /** Errors that are not held: the callers waiting get them, the next call fetches again. */
  unheld?: (error: Error) => boolean;
}

/** How a lookup was answered, for metrics. */
export type LookupOutcome = 'content' | 'error' | 'in_flight' | 'fetch';

interface Flight<T> {
  readonly controller: AbortController;
  readonly promise: Promise<T>;
  /** Callers waiting with a signal that has not aborted; callers without one count forever. */
  waiters: number;
}

type Held<T> = { ok: true; value: T } | { ok: false; error: Error; retryAt: number };

/** A cache slot; see the module comment. Not shared between processes or keys. */
export class FetchSlot<T> {
  #held: Held<T> | undefined;
  #failures = 0;
  #flight: Flight<T> | undefined;

  /**
   * The held value; the held error (rethrown, same Error) until its retry time; else the
   * result of the running fetch or of a new `fetch(signal)`.
   *
   * @param onLookup told how this call was answered, before it waits.
   * @throws the fetch's error (non-Errors are wrapped), or `signal.reason` (an Error) when the
   *   caller's `signal` aborts first; the latter is this caller's alone and is not cached.
   */
  async get(
    fetch: (signal: AbortSignal) => Promise<T>,
    policy: RetryPolicy,
    signal?: AbortSignal,
    onLookup?: (outcome: LookupOutcome) => void,
  ): Promise<T> {
    if (signal?.aborted === true) throw abortError(signal);
    const held = this.#held;
    if (held?.ok === true) {
      onLookup?.('content');
      return held.value;
    }
    if (held !== undefined && this.#flight === undefined && policy.now() < held.retryAt) {
      onLookup?.('error');
      throw held.error;
    }
    let flight = this.#flight;
    if (flight === undefined) {
      onLookup?.('fetch');
      flight = this.#start(fetch, policy);
    } else {
      onLookup?.('in_flight');
    }
    return this.#wait(flight, signal);
  }

  #start(fetch: (signal: AbortSignal) => Promise<T>, policy: RetryPolicy): Flight<T> {
    const controller = new AbortController();
    // An async wrapper turns a synchronous throw of `fetch` into a rejection.
    const run = async (): Promise<T> => {
      try {
        return await fetch(controller.signal);
      } catch (err) {
        throw err instanceof Error ? err : new Error(String(err), { cause: err });
      }
    };
    const flight: Flight<T> = { controller, promise: run(), waiters: 0 };
    this.#flight = flight;
    // Registered before any waiter's handlers, so waiters resume with the outcome recorded.
    // A flight that was abandoned (all waiters gone) records nothing.
    flight.promise.then(
      (value) => {
        if (this.#flight !== flight) return;
        this.#flight = undefined;
        this.#failures = 0;
        this.#held = { ok: true, value };
      },
      (error: Error) => {
        if (this.#flight !== flight) return;
        this.#flight = undefined;
        if (policy.unheld?.(error) === true) {
          this.#held = undefined;
          return;
        }
        this.#failures++;
        const delay = Math.min(policy.firstDelayMs * 2 ** (this.#failures - 1), policy.maxDelayMs);
        this.#held = { ok: false, error, retryAt: policy.now() + delay };
      },
    );
    return flight;
  }

  #wait(flight: Flight<T>, signal: AbortSignal | undefined): Promise<T> {
    flight.waiters++;
    if (signal === undefined) return flight.promise;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        reject(abortError(signal));
        flight.waiters--;
        if (flight.waiters > 0 || this.#flight !== flight) return;
        this.#flight = undefined;
        flight.controller.abort(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (err: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
  }
}

/** What an aborted caller is rejected with: the signal's reason when it is an Error. */
function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('request aborted', { cause: reason });
}
