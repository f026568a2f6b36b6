import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeCluster } from '../../test/support/fake-cluster.ts';
import { runLeading } from './component.ts';
import { exitOnLostLeadership } from './lost-leadership.ts';

/** A pino logger whose lines are kept. */
function capturedLog(): { log: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { log, lines };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('exitOnLostLeadership', () => {
  it("logs upstream's line, starts the stop and exits with 1 after the bound at the latest, once", async () => {
    const { log, lines } = capturedLog();
    const proc = { exitCode: undefined as number | undefined, exit: vi.fn() };
    const stop = new AbortController();
    const lost = exitOnLostLeadership(proc, stop, log, 3_000);
    lost();
    lost();
    expect(lines.filter((l) => l['msg'] === 'problem running manager')).toEqual([
      expect.objectContaining({ level: 50, err: expect.objectContaining({ message: 'leader election lost' }) }),
    ]);
    expect(proc.exitCode).toBe(1);
    expect(stop.signal.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(2_900);
    expect(proc.exit).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(200);
    expect(proc.exit).toHaveBeenCalledTimes(1);
    expect(proc.exit).toHaveBeenCalledWith(1);
  });
});

describe('runLeading', () => {
  const options = {
    leaderElect: true,
    systemNamespace: 'ns',
    leaderElectionId: 'lock',
    identity: 'me',
    leaderElection: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
  };

  it('on a lost Lease calls onLost, fails readiness and resolves lost-leadership; the leader work is stopped', async () => {
    const cluster = fakeCluster();
    const checks = new Map<string, () => true | string>();
    const onLost = vi.fn();
    let leading: AbortSignal | undefined;
    const outcome = runLeading(
      options,
      {
        client: cluster.client,
        log: pino({ level: 'silent' }),
        registry: new Registry(),
        health: { addReadinessCheck: (n, c) => checks.set(n, c) },
        onLost,
      },
      async (signal) => {
        leading = signal;
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
      },
      new AbortController().signal,
    );
    await vi.advanceTimersByTimeAsync(100);
    expect(leading?.aborted).toBe(false);
    expect(checks.get('leader-election')?.()).toBe(true);
    // Another holder in the Lease: this replica has lost it.
    cluster.edit({ kind: 'Lease', metadata: { namespace: 'ns', name: 'lock' } }, (lease) => {
      (lease['spec'] as { holderIdentity: string }).holderIdentity = 'other';
    });
    await vi.advanceTimersByTimeAsync(2_500);
    await expect(outcome).resolves.toBe('lost-leadership');
    expect(onLost).toHaveBeenCalledTimes(1);
    expect(leading?.aborted).toBe(true);
    expect(checks.get('leader-election')?.()).toBe('leader election lost');
  });

  it('without leader election runs the work until the signal aborts and adds no check', async () => {
    const checks = new Map<string, () => true | string>();
    const stop = new AbortController();
    const outcome = runLeading(
      { ...options, leaderElect: false },
      {
        client: fakeCluster().client,
        log: pino({ level: 'silent' }),
        registry: new Registry(),
        health: { addReadinessCheck: (n, c) => checks.set(n, c) },
        onLost: () => undefined,
      },
      (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve())),
      stop.signal,
    );
    stop.abort();
    await expect(outcome).resolves.toBe('stopped');
    expect(checks.size).toBe(0);
  });
});
