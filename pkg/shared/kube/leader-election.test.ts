import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, LeaderElector, type KubeClient, type KubeObject } from './index.ts';
import { type LeaderElectionDurations, type LeaderElectionOutcome } from './leader-election.ts';

const log = pino({ level: 'silent' });

// One in-memory Lease "server" with resourceVersion checks; each candidate gets its own
// client view whose requests can be made to fail (a network partition).
class LeaseStore {
  lease: KubeObject | undefined;
  rv = 1;
  /** Requests served, by verb. */
  calls = { get: 0, create: 0, update: 0 };

  client(): {
    client: Pick<KubeClient, 'get' | 'create' | 'update'>;
    partitioned: { value: boolean };
    answerAfter: { value: Promise<void> | undefined };
  } {
    const partitioned = { value: false };
    // The next update is applied, and answered only once this settles (a process stopped mid-request).
    const answerAfter: { value: Promise<void> | undefined } = { value: undefined };
    const check = (): void => {
      if (partitioned.value) throw new Error('connect ETIMEDOUT');
    };
    const fake: Pick<KubeClient, 'get' | 'create' | 'update'> = {
      get: async <T extends KubeObject>() => {
        check();
        this.calls.get++;
        if (this.lease === undefined) throw new ApiError(404, 'NotFound', 'leases.coordination.k8s.io "l" not found');
        return structuredClone(this.lease) as T;
      },
      create: async <T extends KubeObject>(obj: KubeObject) => {
        check();
        if (this.lease !== undefined) throw new ApiError(409, 'AlreadyExists', 'exists');
        this.lease = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } };
        return structuredClone(this.lease) as T;
      },
      update: async <T extends KubeObject>(obj: KubeObject) => {
        check();
        this.calls.update++;
        if (obj.metadata.resourceVersion !== this.lease?.metadata.resourceVersion)
          throw new ApiError(409, 'Conflict', 'the object has been modified');
        this.lease = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } };
        const answer = structuredClone(this.lease) as T;
        const after = answerAfter.value;
        answerAfter.value = undefined;
        if (after !== undefined) await after;
        return answer;
      },
    };
    return { client: fake, partitioned, answerAfter };
  }

  get holder(): string | null | undefined {
    return (this.lease?.spec as { holderIdentity?: string | null } | undefined)?.holderIdentity;
  }
}

function candidate(store: LeaseStore, identity: string, registry?: Registry, durations: Partial<LeaderElectionDurations> = {}) {
  const { client, partitioned, answerAfter } = store.client();
  const ctl = new AbortController();
  const events: string[] = [];
  const elector = new LeaderElector({
    client,
    namespace: 'ns',
    name: 'l',
    identity,
    log,
    ...durations,
    ...(registry === undefined ? {} : { registry }),
    onStartedLeading: (signal) => {
      events.push('started');
      return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    },
    onStoppedLeading: () => events.push('stopped'),
  });
  let outcome: LeaderElectionOutcome | undefined;
  const done = elector.run(ctl.signal).then((o) => (outcome = o));
  return { elector, ctl, events, partitioned, answerAfter, done, outcome: () => outcome };
}

let store: LeaseStore;
beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  store = new LeaseStore();
});
afterEach(() => {
  vi.useRealTimers();
});

// Advances fake time in 100 ms steps, failing if two candidates ever lead at once.
async function run(ms: number, ...cs: Array<{ elector: LeaderElector }>): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    await vi.advanceTimersByTimeAsync(100);
    expect(cs.filter((c) => c.elector.isLeader).length).toBeLessThanOrEqual(1);
  }
}

describe('LeaderElector', () => {
  it('creates the lease, leads and reports it in the master-status gauge', async () => {
    const registry = new Registry();
    const a = candidate(store, 'a', registry);
    await run(100, a);
    expect(a.elector.isLeader).toBe(true);
    expect(store.lease?.spec).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect((store.lease?.spec as { renewTime: string }).renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const gauge = await registry.getSingleMetric('leader_election_master_status')?.get();
    expect(gauge?.values).toEqual([expect.objectContaining({ labels: { name: 'l' }, value: 1 })]);
    a.ctl.abort();
    await a.done;
  });

  it('keeps a standby waiting while the leader renews', async () => {
    const a = candidate(store, 'a');
    await run(100, a);
    const b = candidate(store, 'b');
    await run(60_000, a, b);
    expect(a.elector.isLeader).toBe(true);
    expect(b.elector.isLeader).toBe(false);
    a.ctl.abort();
    b.ctl.abort();
    await Promise.all([a.done, b.done]);
  });

  it('a partitioned leader stops within the renew deadline; the standby takes over only after the lease duration', async () => {
    const a = candidate(store, 'a');
    await run(100, a);
    const b = candidate(store, 'b');
    await run(5_000, a, b);
    a.partitioned.value = true;
    const cut = Date.now();
    await run(10_500, a, b);
    expect(a.elector.isLeader).toBe(false);
    expect(a.outcome()).toBe('lost');
    expect(a.events).toEqual(['started', 'stopped']);
    expect(b.elector.isLeader).toBe(false); // lease not yet expired
    let tookOver = 0;
    for (let t = 0; t < 20_000 && !b.elector.isLeader; t += 100) {
      await run(100, a, b);
      tookOver = Date.now() - cut;
    }
    expect(b.elector.isLeader).toBe(true);
    expect(tookOver).toBeGreaterThanOrEqual(15_000 - 2_000); // not before the lease (observed) expired
    expect(tookOver).toBeLessThanOrEqual(15_000 + 2 * 4_400);
    expect(store.lease?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    b.ctl.abort();
    await b.done;
  });

  it('releases the lease on cancel so a standby takes over within a retry period', async () => {
    const a = candidate(store, 'a');
    await run(100, a);
    const b = candidate(store, 'b');
    await run(3_000, a, b);
    a.ctl.abort();
    await run(100, a, b);
    expect(a.outcome()).toBe('cancelled');
    expect(store.holder ?? '').not.toBe('a');
    await run(4_500, a, b);
    expect(b.elector.isLeader).toBe(true);
    b.ctl.abort();
    await b.done;
  });

  it("with operator-controller's 26 s retry period, a standby takes a released lease within 2 s and never a held one sooner", async () => {
    const durations = { leaseDurationMs: 137_000, renewDeadlineMs: 107_000, retryPeriodMs: 26_000 };
    const a = candidate(store, 'a', undefined, durations);
    await run(100, a);
    const b = candidate(store, 'b', undefined, durations);
    // Held and renewed: the standby's early looks never take it.
    await run(120_000, a, b);
    expect(a.elector.isLeader).toBe(true);
    expect(b.elector.isLeader).toBe(false);
    a.ctl.abort();
    await run(100, a, b);
    expect(a.outcome()).toBe('cancelled');
    // Released: taken at the standby's next look, not after the rest of a jittered 26-57 s wait.
    await run(2_100, a, b);
    expect(b.elector.isLeader).toBe(true);
    b.ctl.abort();
    await b.done;
  });

  it('stops leading at once when another holder shows up in the lease', async () => {
    const a = candidate(store, 'a');
    await run(100, a);
    const spec = store.lease?.spec as Record<string, unknown>;
    spec.holderIdentity = 'intruder';
    if (store.lease !== undefined) store.lease.metadata.resourceVersion = String(++store.rv);
    await run(2_500, a);
    expect(a.elector.isLeader).toBe(false);
    expect(a.outcome()).toBe('lost');
  });

  it('renews with one update per retry period, without reading the lease it wrote', async () => {
    const a = candidate(store, 'a');
    await run(100, a);
    const before = { ...store.calls };
    await run(20_000, a);
    expect(store.calls.get - before.get).toBe(0);
    expect(store.calls.update - before.update).toBe(10);
    expect(a.elector.isLeader).toBe(true);
    a.ctl.abort();
    await a.done;
  });

  it('after a failed optimistic renewal reads the lease again and renews on', async () => {
    const a = candidate(store, 'a');
    await run(100, a);
    // A write the leader did not make (e.g. an administrator's label) moves the resourceVersion.
    if (store.lease !== undefined) store.lease.metadata.resourceVersion = String(++store.rv);
    const before = { ...store.calls };
    await run(2_100, a);
    expect(store.calls.get - before.get).toBe(1);
    expect(a.elector.isLeader).toBe(true);
    await run(2_000, a);
    expect(store.calls.get - before.get).toBe(1);
    a.ctl.abort();
    await a.done;
  });

  // A stalled event loop (SIGSTOP, a long collection) moves the clock while no timer runs; on
  // resume the overdue timers fire in order, the retry sleep's first. setSystemTime moves the
  // clock the same way without firing anything.
  it('after a stall past the renew deadline, stops on resume without renewing, even with the lease still unexpired', async () => {
    const a = candidate(store, 'a');
    await run(100, a);
    await run(4_000, a);
    const renewTime = (store.lease?.spec as { renewTime: string }).renewTime;
    const before = { ...store.calls };
    // 11 s: past the 10 s renew deadline, within the 15 s lease.
    vi.setSystemTime(Date.now() + 11_000);
    expect(a.elector.isLeader).toBe(false);
    await run(2_100, a);
    expect(a.outcome()).toBe('lost');
    expect(a.events).toEqual(['started', 'stopped']);
    expect(store.calls.update - before.update).toBe(0);
    expect((store.lease?.spec as { renewTime: string }).renewTime).toBe(renewTime);
  });

  it('a stall shorter than the renew deadline changes nothing', async () => {
    const a = candidate(store, 'a');
    await run(100, a);
    vi.setSystemTime(Date.now() + 7_000);
    await run(10_000, a);
    expect(a.elector.isLeader).toBe(true);
    expect(a.outcome()).toBeUndefined();
    a.ctl.abort();
    await a.done;
  });

  it('a renewal whose answer came only after the stall does not extend leadership past the deadline', async () => {
    const a = candidate(store, 'a');
    await run(100, a);
    const before = store.calls.update;
    // The next renewal is applied, and the process stops before its answer is read.
    let resume: () => void = () => undefined;
    a.answerAfter.value = new Promise<void>((resolve) => (resume = resolve));
    await run(2_100, a);
    expect(store.calls.update).toBe(before + 1);
    expect(a.elector.isLeader).toBe(true);
    vi.setSystemTime(Date.now() + 11_000);
    resume();
    await run(100, a);
    expect(a.elector.isLeader).toBe(false);
    expect(a.outcome()).toBe('lost');
    expect(store.calls.update).toBe(before + 1);
  });

  it('rejects inconsistent durations', () => {
    const { client } = store.client();
    const base = { client, namespace: 'ns', name: 'l', identity: 'x', log, onStartedLeading: () => undefined };
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).toThrow(
      'leaseDuration must be greater than renewDeadline',
    );
    expect(() => new LeaderElector({ ...base, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 })).toThrow(
      'renewDeadline must be greater than retryPeriod*1.2',
    );
  });
});
