/**
 * `LimitExceededError`: a failure because an input exceeded a resource limit: time (an ingest
 * that did not finish within its timeout), size (a decompression or file-count cap), memory (an
 * ingest process that died of it). Retrying at once fails the same way and costs the same
 * resources again, so controllers retry it no sooner than a floor instead of with their short
 * initial backoff (upstream's controller-runtime default: 5 ms doubling per failure).
 */
import { findCause } from './cause-chain.ts';

/** See the module comment. The message says which limit was exceeded and what sets it. */
export class LimitExceededError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LimitExceededError';
  }
}

/** True when `err`, or any error among its causes, is a LimitExceededError. */
export function isLimitExceeded(err: unknown): boolean {
  return findCause(err, (e): e is LimitExceededError => e instanceof LimitExceededError) !== undefined;
}
