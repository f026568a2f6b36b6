import { describe, expect, it } from 'vitest';
import { breakdown, traceBurst } from './burst-trace.ts';

const C = 'controller-operator-cluster-extension-controller';
const line = (o: Record<string, unknown>): string => JSON.stringify({ level: 'debug', component: 'operator-controller', ...o });

describe('traceBurst and breakdown', () => {
  it("joins each reconcile's wait, time and steps, and tells the wait from a pull's end to the next reconcile", () => {
    const log = [
      line({ ts: 1100, controller: C, key: 'a', reconcileID: 'r1', msg: 'reconcile steps', steps: { finalizers: 1 }, ms: 20 }),
      line({ ts: 1120, controller: C, key: 'a', reconcileID: 'r1', msg: 'reconcile finished', queuedMs: 100, ms: 20, outcome: 'success' }),
      line({ ts: 1350, extension: 'a', msg: 'bundle pull started' }),
      line({ ts: 2900, controller: C, key: 'a', reconcileID: 'r2', msg: 'reconcile steps', steps: { pull: 1500 }, ms: 1600 }),
      line({ ts: 2900, controller: C, key: 'a', reconcileID: 'r2', msg: 'reconcile finished', queuedMs: 900, ms: 1600, outcome: 'success' }),
      line({ ts: 3000, extension: 'a', msg: 'bundle pull finished' }),
      line({ ts: 4800, controller: C, key: 'a', reconcileID: 'r3', msg: 'reconcile steps', steps: { apply: 700 }, ms: 800 }),
      line({ ts: 4800, controller: C, key: 'a', reconcileID: 'r3', msg: 'reconcile finished', queuedMs: 1000, ms: 800, outcome: 'success' }),
      line({ ts: 4900, controller: 'other', key: 'a', reconcileID: 'r4', msg: 'reconcile finished', queuedMs: 5, ms: 5, outcome: 'success' }),
      line({ ts: 1500, controller: C, key: 'b', reconcileID: 'r5', msg: 'reconcile finished', queuedMs: 5, ms: 5, outcome: 'success' }),
      'not json',
    ].join('\n');
    const traces = traceBurst(log, C, new Set(['a']), 1000);
    expect([...traces.keys()]).toEqual(['a']);
    expect(traces.get('a')?.pulls).toEqual([{ startMs: 350, endMs: 2000 }]);
    const b = breakdown(traces.get('a'), 3900);
    expect(b).toMatchObject({
      reconciles: 3,
      queuedMs: 2000,
      reconcilingMs: 2420,
      steps: { finalizers: 1, pull: 1500, apply: 700 },
      afterPullMs: 1000,
    });
    expect(b.timeline).toBe(
      '+100 waited 100 ran 20 success []; +300 waited 900 ran 1600 success [pull 1500]; +3000 waited 1000 ran 800 success [apply 700]; pull 350-2000',
    );
    // Reconciles after the install are not its cost.
    expect(breakdown(traces.get('a'), 2000)).toMatchObject({ reconciles: 2, afterPullMs: Number.NaN });
  });
});
