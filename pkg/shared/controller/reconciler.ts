/**
 * The reconciler contract (controller-runtime's Reconciler/Result, TerminalError from
 * pkg/shared/errors) and the "panic" classification.
 */
import type { Logger } from 'pino';

/** What a reconcile asks for besides success. */
export interface ReconcileResult {
  /** Reconcile again after this many ms, without counting a failure (e.g. polling). */
  requeueAfterMs?: number;
  /** Reconcile again after the rate limiter's delay, without an error. */
  requeue?: boolean;
  /**
   * The queue priority of the key queued again after `requeueAfterMs` (WorkQueue `add`; default 0,
   * an event's): a poll nothing asked for goes below the events (LOW_PRIORITY), as
   * controller-runtime's priority queue puts what was not edge-triggered behind what was.
   */
  priority?: number;
}

/** Per-reconcile context. */
export interface ReconcileContext {
  /**
   * Aborts when the controller stops, or with a ReconcileCancelledError when an event made
   * this reconcile pointless (Watch.cancels); long operations must honour it.
   */
  signal: AbortSignal;
  /** Child logger carrying `controller`, `key` and `reconcileID`. */
  log: Logger;
}

/**
 * Brings the world in line with the object named by `key`. Level-triggered: it must read the
 * current state itself, and be idempotent. Throw TerminalError (pkg/shared/errors) for failures
 * retrying cannot fix (logged, counted, not requeued); any other error is requeued with
 * rate-limited backoff; returning forgets the key's backoff.
 */
export interface Reconciler {
  reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileResult | void>;
}

/**
 * A programming error detected at run time (a Go panic's analogue), e.g. a reconciler that
 * changed spec: counted as a panic, then handled as controller-runtime handles recovered ones.
 */
export class PanicError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PanicError';
  }
}

/** True for PanicError, JS runtime errors (TypeError, ReferenceError, RangeError, SyntaxError) and non-Error throws. */
export function isPanic(err: unknown): boolean {
  if (!(err instanceof Error)) return true;
  return (
    err instanceof PanicError || err instanceof TypeError || err instanceof ReferenceError || err instanceof RangeError || err instanceof SyntaxError
  );
}

/** The abort reason of a reconcile an event cancelled (Watch.cancels); the message says why. */
export class ReconcileCancelledError extends Error {
  constructor(reason: string) {
    super(`reconcile cancelled: ${reason}`);
    this.name = 'ReconcileCancelledError';
  }
}
