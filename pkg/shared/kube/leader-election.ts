/**
 * Leader election on a `coordination.k8s.io/v1` Lease, with client-go's algorithm and defaults
 * (lease 15 s, renew deadline 10 s, retry 2 s). Never two leaders: a leader stops once
 * `renewDeadline` passed since its last successful renew began (its own clock) or when it sees
 * another holder; a candidate takes over only a record it saw unchanged for `leaseDuration`.
 * The deadline is read from the clock, not only from a timer: after the event loop was blocked
 * past it (a stopped process, a long collection), the leader stops on resume without renewing,
 * whichever timer runs first.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { isAlreadyExists, isConflict, isNotFound } from './api-error.ts';
import { settlesWithin, sleepUnlessAborted } from './backoff.ts';
import type { KubeClient } from './client.ts';
import { gaugeOn } from './metrics.ts';
import type { KubeObject } from '../unstructured/index.ts';

/** How often a candidate with a long retry period looks for a released lease (client-go's default retry period). */
const RELEASE_POLL_MS = 2_000;

/** Construction options of a LeaderElector. */
interface LeaderElectionOptions {
  /** Reads, creates and updates the Lease: all it calls. */
  client: Pick<KubeClient, 'get' | 'create' | 'update'>;
  /** Namespace and name of the Lease. */
  namespace: string;
  name: string;
  /** Unique per process (e.g. `<pod name>_<uuid>`). */
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  log: Logger;
  registry?: Registry;
  /** Called when leadership starts; `signal` aborts when it ends. Must stop work on abort. */
  onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called once leadership has ended (lost or released). */
  onStoppedLeading?: () => void;
  /** Called when a different holder is observed (including this process). */
  onNewLeader?: (identity: string) => void;
}

/** How `run` ended: `lost` = renew failed or another holder appeared; `cancelled` = signal aborted. */
export type LeaderElectionOutcome = 'lost' | 'cancelled';

interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number;
}

interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/** The three durations of leader election, in ms. */
export interface LeaderElectionDurations {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/**
 * Throws when the durations break client-go's rules: the lease outlasts the renew deadline
 * (decision 0062), which leaves room for more than one jittered retry.
 */
export function checkLeaderElectionDurations(d: LeaderElectionDurations): void {
  if (!(d.leaseDurationMs > d.renewDeadlineMs)) throw new Error('leaseDuration must be greater than renewDeadline');
  if (!(d.renewDeadlineMs > d.retryPeriodMs * 1.2)) throw new Error('renewDeadline must be greater than retryPeriod*1.2');
  if (!(d.retryPeriodMs > 0)) throw new Error('retryPeriod must be greater than zero');
}

/** Kubernetes MicroTime: RFC 3339 with six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Runs leader election for one Lease; see the module comment for the guarantees. */
export class LeaderElector {
  readonly #o: Required<Pick<LeaderElectionOptions, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>> & LeaderElectionOptions;
  readonly #gauge;
  #leading = false;
  /** While leading: when leadership ends unless renewed before (its own clock). */
  #leadUntil = 0;
  #observed: { record: string; holder: string; durationMs: number; at: number } | undefined;
  /** The Lease as this process last wrote it (create or update answer), for the renew fast path. */
  #written: Lease | undefined;

  /** Throws when the durations are inconsistent (same rules as client-go). */
  constructor(options: LeaderElectionOptions) {
    this.#o = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, ...options };
    checkLeaderElectionDurations(this.#o);
    if (options.identity === '') throw new Error('leader election identity must not be empty');
    this.#gauge =
      options.registry === undefined
        ? undefined
        : gaugeOn(options.registry, 'leader_election_master_status', 'Whether this process leads the named lease (1) or not (0).', ['name']);
    this.#gauge?.set({ name: options.name }, 0);
  }

  /** True while this process holds the lease and its renew deadline has not passed. */
  get isLeader(): boolean {
    return this.#leading && Date.now() < this.#leadUntil;
  }

  /**
   * Campaigns until leading, leads until leadership is lost or `signal` aborts, then returns.
   * Never rejects. After `lost` the caller must stop leader-only work (upstream exits).
   */
  async run(signal: AbortSignal): Promise<LeaderElectionOutcome> {
    const { retryPeriodMs, renewDeadlineMs, log } = this.#o;
    log.info({ lease: this.#leaseName(), identity: this.#o.identity }, 'attempting to acquire leader lease');
    while (!signal.aborted) {
      if ((await this.#tryAcquireOrRenew(renewDeadlineMs, signal)) === 'held') break;
      // client-go's jitter factor 1.2.
      await this.#waitToRetry(retryPeriodMs * (1 + Math.random() * 1.2), signal);
    }
    if (signal.aborted) return 'cancelled';
    return this.#lead(signal);
  }

  /**
   * A candidate's wait of `ms` before its next attempt. With a retry period longer than
   * RELEASE_POLL_MS (operator-controller's 26 s), a GET every RELEASE_POLL_MS ends it early when
   * the lease was released, so a rolling restart hands over at once; a held lease is never taken
   * any sooner.
   */
  async #waitToRetry(ms: number, signal: AbortSignal): Promise<void> {
    const until = Date.now() + ms;
    const step = this.#o.retryPeriodMs > RELEASE_POLL_MS ? RELEASE_POLL_MS : ms;
    for (;;) {
      await sleepUnlessAborted(Math.max(0, Math.min(step, until - Date.now())), signal);
      if (signal.aborted || Date.now() >= until) return;
      const lease = await this.#o.client.get<Lease>(this.#leaseRef(), { signal }).catch(() => undefined);
      if (lease !== undefined && (lease.spec?.holderIdentity ?? '') === '') return;
    }
  }

  async #lead(signal: AbortSignal): Promise<LeaderElectionOutcome> {
    const { retryPeriodMs, renewDeadlineMs, log } = this.#o;
    const leadCtl = new AbortController();
    this.#setLeading(true);
    log.info({ lease: this.#leaseName(), identity: this.#o.identity }, 'successfully acquired lease');
    const work = Promise.resolve()
      .then(() => this.#o.onStartedLeading(leadCtl.signal))
      .catch((err: unknown) => log.error({ err }, 'leader work failed'));
    // The local deadline: a leader that cannot renew stops before any candidate may take over.
    this.#leadUntil = (this.#observed?.at ?? Date.now()) + renewDeadlineMs;
    let lost = false;
    const deadline = new AbortController();
    let timer = setTimeout(() => deadline.abort(), Math.max(0, this.#leadUntil - Date.now()));
    const stopOnCancel = (): void => deadline.abort();
    signal.addEventListener('abort', stopOnCancel, { once: true });
    try {
      while (!deadline.signal.aborted) {
        await sleepUnlessAborted(retryPeriodMs, deadline.signal);
        if (deadline.signal.aborted) break;
        const start = Date.now();
        // A renewal now would extend a leadership that already ended: the event loop was
        // blocked past the deadline and the deadline's timer has not run yet.
        if (start >= this.#leadUntil) {
          log.warn({ lease: this.#leaseName(), overdueMs: start - this.#leadUntil }, 'renew deadline passed before the lease could be renewed');
          break;
        }
        const outcome = await this.#tryAcquireOrRenew(this.#leadUntil - start, deadline.signal);
        if (outcome === 'held') {
          this.#leadUntil = start + renewDeadlineMs;
          clearTimeout(timer);
          timer = setTimeout(() => deadline.abort(), Math.max(0, this.#leadUntil - Date.now()));
        } else if (outcome === 'other') {
          break;
        }
      }
      lost = !signal.aborted;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stopOnCancel);
    }
    leadCtl.abort(new Error(lost ? 'leader election lost' : 'leader election cancelled'));
    this.#setLeading(false);
    if (lost) {
      // client-go's line; the process's own (upstream's `problem running manager`) follows in cmd/.
      log.error({ lease: this.#leaseName(), identity: this.#o.identity }, 'failed to renew lease');
      this.#o.onStoppedLeading?.();
      return 'lost';
    }
    // Let leader work wind down, never beyond the lease, then clear the holder so a standby
    // takes over at once.
    if (await settlesWithin(work, this.#o.leaseDurationMs)) await this.#release();
    this.#o.onStoppedLeading?.();
    return 'cancelled';
  }

  // 'held' = we hold the lease now; 'other' = someone else holds a live lease; 'failed' = error.
  async #tryAcquireOrRenew(timeoutMs: number, outer: AbortSignal): Promise<'held' | 'other' | 'failed'> {
    const signal = AbortSignal.any([outer, AbortSignal.timeout(Math.max(1, timeoutMs))]);
    const { client, namespace, name, identity } = this.#o;
    const now = Date.now();
    const durationSeconds = Math.ceil(this.#o.leaseDurationMs / 1000);
    if ((await this.#renewOptimistically(now, durationSeconds, signal)) === 'held') return 'held';
    try {
      let lease: Lease;
      try {
        lease = await client.get<Lease>(this.#leaseRef(), { signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
        const spec: LeaseSpec = {
          holderIdentity: identity,
          leaseDurationSeconds: durationSeconds,
          acquireTime: microTime(now),
          renewTime: microTime(now),
          leaseTransitions: 0,
        };
        this.#written = await client.create<Lease>(
          { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { namespace, name }, spec },
          { signal },
        );
        this.#observe(spec, now);
        return 'held';
      }
      const spec = lease.spec ?? {};
      this.#observe(spec, now);
      const holder = spec.holderIdentity ?? '';
      const observed = this.#observed;
      if (holder !== '' && holder !== identity && observed !== undefined && observed.at + observed.durationMs > now) return 'other';
      const mine = holder === identity;
      const next: LeaseSpec = {
        holderIdentity: identity,
        leaseDurationSeconds: durationSeconds,
        acquireTime: mine && spec.acquireTime ? spec.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: mine ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
      };
      this.#written = await client.update<Lease>({ ...lease, spec: next }, { signal });
      this.#observe(next, now);
      return 'held';
    } catch (err) {
      if (outer.aborted) return 'failed';
      const level = isConflict(err) || isAlreadyExists(err) ? 'debug' : 'warn';
      this.#o.log[level]({ lease: this.#leaseName(), err }, 'failed to acquire or renew lease');
      return 'failed';
    }
  }

  /**
   * client-go's renew fast path: a leader whose lease is valid by its own clock updates the Lease
   * as it last wrote it, unread; its resourceVersion makes that fail if anyone changed it. Any
   * failure falls back to read-then-update within the same attempt.
   */
  async #renewOptimistically(now: number, durationSeconds: number, signal: AbortSignal): Promise<'held' | 'fallback'> {
    const written = this.#written;
    const observed = this.#observed;
    if (!this.#leading || written === undefined || observed === undefined || observed.at + observed.durationMs <= now) return 'fallback';
    if ((written.spec?.holderIdentity ?? '') !== this.#o.identity) return 'fallback';
    const next: LeaseSpec = { ...written.spec, leaseDurationSeconds: durationSeconds, renewTime: microTime(now) };
    try {
      this.#written = await this.#o.client.update<Lease>({ ...written, spec: next }, { signal });
    } catch (err) {
      this.#written = undefined;
      if (!signal.aborted) this.#o.log.debug({ lease: this.#leaseName(), err }, 'optimistic lease renewal failed, reading the lease');
      return 'fallback';
    }
    this.#observe(next, now);
    return 'held';
  }

  // Remembers when the lease record last changed, by our clock (never the record's own times).
  #observe(spec: LeaseSpec, now: number): void {
    const record = JSON.stringify([
      spec.holderIdentity ?? '',
      spec.renewTime ?? '',
      spec.acquireTime ?? '',
      spec.leaseTransitions ?? 0,
      spec.leaseDurationSeconds ?? 0,
    ]);
    if (this.#observed?.record === record) return;
    const holder = spec.holderIdentity ?? '';
    if (holder !== '' && holder !== this.#observed?.holder) this.#o.onNewLeader?.(holder);
    this.#observed = { record, holder, durationMs: (spec.leaseDurationSeconds ?? 0) * 1000, at: now };
  }

  // Clears the holder (if still ours) so the next candidate attempt succeeds at once.
  async #release(): Promise<void> {
    const { client, identity, log } = this.#o;
    const signal = AbortSignal.timeout(this.#o.renewDeadlineMs);
    try {
      const lease = await client.get<Lease>(this.#leaseRef(), { signal });
      if ((lease.spec?.holderIdentity ?? '') !== identity) return;
      const now = Date.now();
      const spec: LeaseSpec = {
        ...lease.spec,
        holderIdentity: null,
        leaseDurationSeconds: 1,
        renewTime: microTime(now),
        acquireTime: microTime(now),
      };
      await client.update({ ...lease, spec }, { signal });
      this.#written = undefined;
      log.info({ lease: this.#leaseName(), identity }, 'released leader lease');
    } catch (err) {
      log.warn({ lease: this.#leaseName(), err }, 'failed to release leader lease');
    }
  }

  #setLeading(leading: boolean): void {
    this.#leading = leading;
    this.#gauge?.set({ name: this.#o.name }, leading ? 1 : 0);
  }

  #leaseRef(): { apiVersion: string; kind: string; namespace: string; name: string } {
    return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: this.#o.namespace, name: this.#o.name };
  }

  #leaseName(): string {
    return `${this.#o.namespace}/${this.#o.name}`;
  }
}
