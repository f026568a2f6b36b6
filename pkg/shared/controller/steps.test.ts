import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { runSteps, stepDurationTimer, type Step } from './steps.ts';

interface State {
  trail: string[];
}

function step(
  name: string,
  run: (s: State) => Promise<{ requeueAfterMs?: number } | undefined> | { requeueAfterMs?: number } | undefined,
): Step<State> {
  return {
    name,
    run: (s) => {
      s.trail.push(name);
      return run(s);
    },
  };
}

function recordingTimer(): { timer: (step: string, seconds: number) => void; timed: [string, number][] } {
  const timed: [string, number][] = [];
  return { timer: (name, seconds) => timed.push([name, seconds]), timed };
}

describe('runSteps', () => {
  it('runs every step in order over the shared state and resolves with an empty result', async () => {
    const state: State = { trail: [] };
    const { timer, timed } = recordingTimer();
    const result = await runSteps([step('a', () => undefined), step('b', async () => undefined), step('c', () => undefined)], state, timer);
    expect(result).toEqual({});
    expect(state.trail).toEqual(['a', 'b', 'c']);
    expect(timed.map(([n]) => n)).toEqual(['a', 'b', 'c']);
    for (const [, seconds] of timed) expect(seconds).toBeGreaterThanOrEqual(0);
  });

  it('stops at the first step returning a result and resolves with it', async () => {
    const state: State = { trail: [] };
    const { timer, timed } = recordingTimer();
    const result = await runSteps(
      [step('a', () => undefined), step('b', () => ({ requeueAfterMs: 5000 })), step('c', () => undefined)],
      state,
      timer,
    );
    expect(result).toEqual({ requeueAfterMs: 5000 });
    expect(state.trail).toEqual(['a', 'b']);
    expect(timed.map(([n]) => n)).toEqual(['a', 'b']);
  });

  it('rethrows a step error unchanged, timing the failing step and running nothing after it', async () => {
    // The step's duration is what is timed: fake time.
    vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] });
    try {
      const state: State = { trail: [] };
      const { timer, timed } = recordingTimer();
      const boom = new Error('boom');
      const steps = [
        step('a', () => undefined),
        step('b', async () => {
          await new Promise((r) => setTimeout(r, 20));
          throw boom;
        }),
        step('c', () => undefined),
      ];
      const failed = expect(runSteps(steps, state, timer)).rejects.toBe(boom);
      await vi.advanceTimersByTimeAsync(20);
      await failed;
      expect(state.trail).toEqual(['a', 'b']);
      expect(timed).toEqual([
        ['a', 0],
        ['b', 0.02],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('runs the always steps after a stop, keeping the stopping outcome or the first error', async () => {
    const always = (name: string, run: Parameters<typeof step>[1]): Step<State> => ({ ...step(name, run), always: true });
    const state: State = { trail: [] };
    const result = await runSteps(
      [step('a', () => ({ requeueAfterMs: 5 })), step('b', () => undefined), always('c', () => ({ requeueAfterMs: 9 }))],
      state,
    );
    expect(result).toEqual({ requeueAfterMs: 5 });
    expect(state.trail).toEqual(['a', 'c']);
    const boom = new Error('boom');
    const later = new Error('later');
    const failed: State = { trail: [] };
    const run = runSteps(
      [step('a', () => Promise.reject(boom)), always('b', () => Promise.reject(later)), step('c', () => undefined), always('d', () => undefined)],
      failed,
    );
    await expect(run).rejects.toBe(boom);
    expect(failed.trail).toEqual(['a', 'b', 'd']);
    // With no earlier failure, an always step's error is the reconcile's.
    await expect(runSteps([always('a', () => Promise.reject(later))], { trail: [] })).rejects.toBe(later);
  });

  it('works without a timer', async () => {
    await expect(runSteps([step('a', () => ({ requeueAfterMs: 1 }))], { trail: [] })).resolves.toEqual({ requeueAfterMs: 1 });
  });

  it('stepDurationTimer observes a histogram labelled by controller and step', async () => {
    const registry = new Registry();
    const timer = stepDurationTimer(registry, 'ctl');
    await runSteps([step('validate', () => undefined), step('apply', () => undefined)], { trail: [] }, timer);
    const text = await registry.metrics();
    expect(text).toContain('controller_reconcile_step_duration_seconds_count{controller="ctl",step="validate"} 1');
    expect(text).toContain('controller_reconcile_step_duration_seconds_count{controller="ctl",step="apply"} 1');
  });
});
