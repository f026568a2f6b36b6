import { describe, expect, it } from 'vitest';
import { DEFAULT_PROBE_WAIT, ProbeWaits, nextWaiting, probeWaitMs } from './probe-wait.ts';

describe('the poll of a revision waiting on its probes', () => {
  it('counts the waits since a phase more passed, and starts over when one did (or one failed again)', () => {
    const first = nextWaiting(undefined, 2);
    expect(first).toEqual({ passed: 2, waits: 0 });
    const again = nextWaiting(nextWaiting(first, 2), 2);
    expect(again).toEqual({ passed: 2, waits: 2 });
    expect(nextWaiting(again, 3)).toEqual({ passed: 3, waits: 0 });
    expect(nextWaiting(again, 1)).toEqual({ passed: 1, waits: 0 });
  });

  it('waits 10 s after progress, doubling to 5 minutes, never past the deadline', () => {
    const waits = [0, 1, 2, 3, 4, 5, 6, 40].map((n) => probeWaitMs({ passed: 0, waits: n }, DEFAULT_PROBE_WAIT, undefined));
    expect(waits).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
    expect(probeWaitMs({ passed: 0, waits: 4 }, DEFAULT_PROBE_WAIT, { remainingMs: 7_000, exceeded: false })).toBe(7_000);
    // Past the deadline (reported by this reconcile): the schedule's wait.
    expect(probeWaitMs({ passed: 0, waits: 4 }, DEFAULT_PROBE_WAIT, { remainingMs: -1, exceeded: true })).toBe(160_000);
  });

  it('keeps each revision apart and forgets one that no longer waits', () => {
    const w = new ProbeWaits({ firstMs: 100, maxMs: 1000 });
    expect([w.next('a', 0, undefined), w.next('a', 0, undefined), w.next('b', 0, undefined), w.next('a', 0, undefined)]).toEqual([
      100, 200, 100, 400,
    ]);
    expect(w.next('a', 1, undefined)).toBe(100);
    w.next('a', 1, undefined);
    w.forget('a');
    expect(w.next('a', 1, undefined)).toBe(100);
  });
});
