import { describe, expect, it } from 'vitest';
import { pollUntilDone } from './poll.ts';

/** A clock that moves only when slept on. */
function fakeClock() {
  let t = 0;
  const slept: number[] = [];
  return { now: () => t, sleep: async (ms: number) => void (slept.push(ms), (t += ms)), slept };
}

describe('pollUntilDone', () => {
  it('tells each change of progress once, a second apart, and returns the state that is done', async () => {
    const states = ['a', 'a', 'b', 'done'];
    const told: string[] = [];
    const clock = fakeClock();
    const last = await pollUntilDone(
      60_000,
      async () => states.shift() ?? 'done',
      (s) => (s === 'done' ? undefined : `at ${s}`),
      (t) => told.push(t),
      clock,
    );
    expect(last).toBe('done');
    expect(told).toEqual(['at a', 'at b']);
    expect(clock.slept).toEqual([1000, 1000, 1000]);
  });

  it('returns the last state read once the time is up, sleeping no longer than what is left', async () => {
    const clock = fakeClock();
    const last = await pollUntilDone(
      2500,
      async () => 'stuck',
      () => 'waiting',
      () => undefined,
      clock,
    );
    expect(last).toBe('stuck');
    expect(clock.slept).toEqual([1000, 1000, 500]);
  });
});
