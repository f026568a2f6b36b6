/**
 * Bundle pulls in the background, so that a slow or stalled registry never holds a reconcile
 * worker for long (decision 0067). The pull step asks for a bundle with `get`:
 *
 * - A bundle in the unpack cache is handed out at once (digest references only: that needs no
 *   registry call).
 * - Otherwise the pull runs in the background, one per extension: asking again for the same
 *   reference joins it, asking for another reference cancels it (the extension's target
 *   changed, and the cache keeps one image per extension). `get` waits up to `waitMs` for it
 *   (a healthy registry answers a bundle pull within that, and the reconcile goes on as
 *   before) and otherwise says since when it is pending; the reconcile then stops without an
 *   error and is queued again (`enqueue`) when the pull ends.
 * - A finished pull is handed out to the next `get` of that reference, once: a failure is
 *   reported by one reconcile (which fails with the controller's backoff) and the one after
 *   starts a new pull.
 * - `forget` cancels the extension's pull (it is being deleted); leadership ending cancels all.
 * - A finished bundle holds its share of the memory budget (bundlepull/budget.ts) until the
 *   reconcile that takes it ends; one dropped unused (cancelled, superseded, or not taken
 *   within `claimMs`) gives its share back at once. The next `get` then reads the cache or
 *   pulls again.
 *
 * A pull is bounded as a whole by `maxPullMs` (default 10 min) besides the image client's
 * connect and read timeouts, so a registry that trickles a byte now and then cannot keep an
 * extension pulling forever.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { goDuration } from '../../gocompat/gotext/index.ts';
import { counterOn, gaugeOn } from '../../shared/kube/index.ts';
import type { FetchedBundle } from './source.ts';

/** What `get` says about the pull of one reference. */
export type PullStatus =
  { state: 'done'; fetched: FetchedBundle } | { state: 'failed'; error: unknown; startedAt: Date } | { state: 'pending'; startedAt: Date };

/** Options of one `get`. */
interface PullRequestOptions {
  /** The reconcile's signal: ends the wait (not the pull). */
  signal?: AbortSignal;
  /** How long to wait for a pull that is not finished (default the scheduler's `waitMs`; 0: do not wait). */
  waitMs?: number;
}

/** What the reconcile uses of the scheduler (the pull step, steps-pull.ts). */
export interface BundlePullScheduler {
  /**
   * The bundle of `ref` for `extension`: from the cache, or a finished pull (handed out once),
   * or the pull started (unless running) and awaited up to the wait bound. Never throws but for
   * the `signal` aborting; a failed pull is a `failed` status.
   */
  get(extension: string, ref: string, options?: PullRequestOptions): Promise<PullStatus>;
  /** Cancels the extension's pull and drops its finished one (the extension is being deleted). */
  forget(extension: string): void;
}

/** The I/O the scheduler drives. */
interface BundlePullPorts {
  /** Pulls `ref` into the extension's cache and parses it (fetchBundle). */
  fetch(extension: string, ref: string, signal: AbortSignal): Promise<FetchedBundle>;
  /** The bundle when the cache holds `ref` (a digest reference), without a registry call; else undefined. */
  cached(extension: string, ref: string): Promise<FetchedBundle | undefined>;
  /** Queues a reconcile of the extension (at PULL_END_PRIORITY). */
  enqueue(extension: string): void;
}

/** Construction options of BundlePulls. */
export interface BundlePullsOptions extends BundlePullPorts {
  log: Logger;
  registry?: Registry;
  /** Leadership: running pulls are cancelled when it aborts, and later ones start cancelled. */
  signal?: AbortSignal;
  /** Default wait of `get` for an unfinished pull (default 1.5 s). */
  waitMs?: number;
  /**
   * True while other reconciles wait for a worker (the work queue holds keys): `get` then holds
   * its worker for an unfinished pull at most BUSY_WAIT_MS (checked every BUSY_CHECK_MS) rather
   * than `waitMs`, and says `pending`. In a burst of installs a worker waiting on a pull would
   * otherwise keep every queued extension waiting too (issue 60); the pull's end queues the
   * extension at PULL_END_PRIORITY. Default: never busy.
   */
  busy?: () => boolean;
  /** Bound of one whole pull (default 10 min). */
  maxPullMs?: number;
  /** How long a finished pull's bundle waits to be taken before it is dropped (default 1 min). */
  claimMs?: number;
  now?: () => Date;
}

/**
 * The work-queue priority (pkg/shared/controller WorkQueue.add) of the reconcile a pull's end
 * queues: that reconcile has its bundle and installs it, so it goes ahead of the queued ones
 * that have not started (in a burst of installs, every other extension's), rather than wait
 * behind all of them a second time (issue 60).
 */
export const PULL_END_PRIORITY = 1;

/** Default of BundlePullsOptions.waitMs: a bundle from a healthy registry takes well under this. */
const DEFAULT_PULL_WAIT_MS = 1500;
/** How often a `get` waiting for a pull asks whether other reconciles wait for its worker (BundlePullsOptions.busy). */
const BUSY_CHECK_MS = 50;
/**
 * The longest a `get` holds its worker for a pull while other reconciles wait for one: a pull
 * from a registry nearby (a mirror in the cluster, the bench's loopback one) ends within it, and
 * saves the reconcile (and status write) more that a pull ending in the background costs.
 */
const BUSY_WAIT_MS = 250;
/** Default of BundlePullsOptions.maxPullMs. */
const DEFAULT_MAX_PULL_MS = 10 * 60_000;
/** Default of BundlePullsOptions.claimMs: the pull's end queues a reconcile, which takes it long before. */
const DEFAULT_CLAIM_MS = 60_000;

/** One extension's pull. */
interface Pull {
  ref: string;
  startedAt: Date;
  abort: AbortController;
  /** Settles (never rejects) once `result` is set. */
  settled: Promise<void>;
  result?: { ok: true; fetched: FetchedBundle } | { ok: false; error: unknown };
  /** Reconciles waiting in `get`: they take the result, so its end enqueues nothing. */
  waiting: number;
  /** Drops a finished bundle nobody took (cleared when it is taken). */
  expiry?: NodeJS.Timeout;
}

/** The whole pull took longer than its bound. */
class PullDeadlineError extends Error {
  constructor(ref: string, ms: number) {
    super(`pulling image ${JSON.stringify(ref)}: not finished within ${goDuration(ms)}`);
    this.name = 'PullDeadlineError';
  }
}

/** See the module comment. */
export class BundlePulls implements BundlePullScheduler {
  readonly #o: BundlePullsOptions;
  readonly #pulls = new Map<string, Pull>();
  /** Every pull not yet ended, cancelled ones too: a cancelled unpack may still be writing. */
  readonly #running = new Set<Promise<void>>();
  readonly #metrics: ReturnType<typeof pullMetrics> | undefined;

  constructor(options: BundlePullsOptions) {
    this.#o = options;
    this.#metrics = options.registry === undefined ? undefined : pullMetrics(options.registry);
    options.signal?.addEventListener('abort', () => {
      for (const name of [...this.#pulls.keys()]) this.forget(name);
    });
  }

  async get(extension: string, ref: string, options: PullRequestOptions = {}): Promise<PullStatus> {
    let pull = this.#pulls.get(extension);
    if (pull !== undefined && pull.ref !== ref) {
      // The target changed: the old pull is of no use, and would garbage-collect the new one.
      this.#cancel(extension, pull, 'superseded');
      pull = undefined;
    }
    if (pull === undefined) {
      let cached: FetchedBundle | undefined;
      try {
        cached = await this.#o.cached(extension, ref);
      } catch (error) {
        return { state: 'failed', error, startedAt: this.#now() };
      }
      if (cached !== undefined) return { state: 'done', fetched: cached };
      // The controller runs one reconcile per extension at a time, but another caller may
      // have started a pull while the cache was read: join it, or replace it.
      const other = this.#pulls.get(extension);
      if (other !== undefined && other.ref !== ref) this.#cancel(extension, other, 'superseded');
      pull = other?.ref === ref ? other : this.#start(extension, ref);
    }
    const waitMs = options.waitMs ?? this.#o.waitMs ?? DEFAULT_PULL_WAIT_MS;
    if (pull.result === undefined && waitMs > 0) {
      pull.waiting++;
      try {
        await waitFor(pull.settled, waitMs, options.signal, this.#o.busy);
      } finally {
        pull.waiting--;
      }
    }
    const result = pull.result;
    if (result === undefined) return { state: 'pending', startedAt: pull.startedAt };
    this.#pulls.delete(extension);
    clearTimeout(pull.expiry);
    return result.ok ? { state: 'done', fetched: result.fetched } : { state: 'failed', error: result.error, startedAt: pull.startedAt };
  }

  forget(extension: string): void {
    const pull = this.#pulls.get(extension);
    if (pull !== undefined) this.#cancel(extension, pull, 'forgotten');
  }

  /**
   * Resolves when no pull is running, cancelled ones included (for tests and shutdown: the
   * process's stop waits for an unpack still writing into the cache after its abort).
   */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running);
  }

  #start(extension: string, ref: string): Pull {
    const abort = new AbortController();
    const maxMs = this.#o.maxPullMs ?? DEFAULT_MAX_PULL_MS;
    const deadline = setTimeout(() => abort.abort(new PullDeadlineError(ref, maxMs)), maxMs);
    deadline.unref();
    if (this.#o.signal?.aborted === true) abort.abort(this.#o.signal.reason);
    const started = performance.now();
    const pull: Pull = { ref, startedAt: this.#now(), abort, settled: Promise.resolve(), waiting: 0 };
    const log = this.#o.log.child({ extension, image: ref });
    log.debug({}, 'bundle pull started');
    this.#metrics?.inFlight.inc();
    pull.settled = this.#o
      .fetch(extension, ref, abort.signal)
      .then(
        (fetched) => {
          pull.result = { ok: true, fetched };
        },
        (error: unknown) => {
          // A pull past its bound says so rather than how the abort surfaced in the client.
          const reason: unknown = abort.signal.reason;
          pull.result = { ok: false, error: reason instanceof PullDeadlineError ? reason : error };
        },
      )
      .then(() => {
        clearTimeout(deadline);
        this.#metrics?.inFlight.dec();
        const seconds = (performance.now() - started) / 1000;
        if (this.#pulls.get(extension) !== pull) {
          // Cancelled: nobody asks for it any more.
          dropResult(pull);
          this.#metrics?.finished.inc({ result: 'cancelled' });
          log.debug({ seconds }, 'bundle pull cancelled');
          return;
        }
        const ok = pull.result?.ok === true;
        this.#metrics?.finished.inc({ result: ok ? 'success' : 'failure' });
        if (ok) log.debug({ seconds }, 'bundle pull finished');
        else log.info({ seconds, err: pull.result?.ok === false ? pull.result.error : undefined }, 'bundle pull failed');
        // A reconcile waiting in `get` takes the result itself; otherwise the next one does.
        if (pull.waiting === 0) this.#o.enqueue(extension);
        if (ok) this.#expireUnclaimed(extension, pull);
      });
    const running = pull.settled;
    this.#running.add(running);
    void running.finally(() => this.#running.delete(running));
    this.#pulls.set(extension, pull);
    return pull;
  }

  /** Drops `pull`'s bundle if it is still not taken after `claimMs`. */
  #expireUnclaimed(extension: string, pull: Pull): void {
    pull.expiry = setTimeout(() => {
      if (this.#pulls.get(extension) !== pull) return;
      this.#pulls.delete(extension);
      dropResult(pull);
      this.#o.log.debug({ extension, image: pull.ref }, 'dropping a pulled bundle nobody took');
    }, this.#o.claimMs ?? DEFAULT_CLAIM_MS);
    pull.expiry.unref();
  }

  #cancel(extension: string, pull: Pull, why: string): void {
    this.#pulls.delete(extension);
    if (pull.result !== undefined) {
      dropResult(pull);
      return;
    }
    this.#o.log.debug({ extension, image: pull.ref, why }, 'cancelling bundle pull');
    pull.abort.abort(new Error(`bundle pull ${why}`));
  }

  #now(): Date {
    return this.#o.now?.() ?? new Date();
  }
}

/** Gives back the memory-budget share of a finished pull that nobody will take. */
function dropResult(pull: Pull): void {
  clearTimeout(pull.expiry);
  if (pull.result?.ok === true) pull.result.fetched.lease?.release();
}

/**
 * Resolves when `settled` does, after `ms`, or once `busy` holds after BUSY_WAIT_MS (checked
 * every BUSY_CHECK_MS); rejects with the signal's reason when it aborts first.
 */
function waitFor(settled: Promise<void>, ms: number, signal: AbortSignal | undefined, busy?: () => boolean): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const started = Date.now();
    const check =
      busy === undefined
        ? undefined
        : setInterval(() => {
            if (Date.now() - started >= BUSY_WAIT_MS && busy()) end(resolve);
          }, BUSY_CHECK_MS);
    // Stops the timers and the abort listener, then settles with `then`.
    const end = (then: () => void): void => {
      clearTimeout(timer);
      clearInterval(check);
      signal?.removeEventListener('abort', aborted);
      then();
    };
    const aborted = (): void => end(() => reject(signal?.reason));
    const timer = setTimeout(() => end(resolve), ms);
    signal?.addEventListener('abort', aborted, { once: true });
    void settled.then(() => end(resolve));
  });
}

function pullMetrics(registry: Registry) {
  return {
    inFlight: gaugeOn(registry, 'operator_controller_bundle_pulls_in_flight', 'Bundle image pulls running in the background.', []),
    finished: counterOn(
      registry,
      'operator_controller_bundle_pulls_total',
      'Background bundle image pulls that ended, by result (success, failure, cancelled).',
      ['result'],
    ),
  };
}
