/**
 * Read-modify-write against optimistic concurrency, as client-go's `retry.RetryOnConflict` with
 * `retry.DefaultRetry`: `update` (which reads the object, changes it and writes it at the read
 * resourceVersion) runs again when the API server refuses the write for a conflict (409: someone
 * changed the object in between), a few times at most and a few milliseconds apart.
 */
import { isConflict } from './api-error.ts';
import { sleepUnlessAborted } from './backoff.ts';

/** How `retryOnConflict` retries; the defaults are client-go's DefaultRetry. */
interface ConflictRetry {
  /** Tries in all (default 5). */
  attempts?: number;
  /** The pause between tries, in milliseconds, stretched by up to a tenth (default 10). */
  delayMs?: number;
  /** Stops the retries: the last conflict is thrown at once. */
  signal?: AbortSignal;
  random?: () => number;
}

/**
 * Runs `update` until it does not throw a conflict: its value, or the first error that is not a
 * conflict, or the last conflict when the tries are spent (or `signal` aborted).
 */
export async function retryOnConflict<T>(update: () => Promise<T>, options: ConflictRetry = {}): Promise<T> {
  const attempts = options.attempts ?? 5;
  const delayMs = options.delayMs ?? 10;
  const random = options.random ?? Math.random;
  const signal = options.signal ?? new AbortController().signal;
  for (let attempt = 1; ; attempt++) {
    try {
      return await update();
    } catch (err) {
      if (!isConflict(err) || attempt >= attempts || signal.aborted) throw err;
    }
    await sleepUnlessAborted(Math.round(delayMs * (1 + 0.1 * random())), signal);
  }
}
