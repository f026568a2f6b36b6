import { describe, expect, it } from 'vitest';
import { hopelessReason, lapTimer } from './wait-available.ts';

function pod(status: object): Parameters<typeof hopelessReason>[0] {
  return { metadata: { name: 'p' }, status: { containerStatuses: [{ name: 'manager', ...status }] } };
}

describe('hopelessReason', () => {
  it.each([
    [
      { state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "x"' } } },
      'container manager waiting: ImagePullBackOff (Back-off pulling image "x")',
    ],
    [{ state: { waiting: { reason: 'ErrImagePull' } } }, 'container manager waiting: ErrImagePull'],
    [{ state: { waiting: { reason: 'CrashLoopBackOff' } } }, 'container manager waiting: CrashLoopBackOff'],
    [
      { state: { waiting: { reason: 'CreateContainerConfigError', message: 'secret "s" not found' } } },
      'container manager waiting: CreateContainerConfigError (secret "s" not found)',
    ],
    [
      { restartCount: 2, state: { running: {} }, lastState: { terminated: { reason: 'Error', exitCode: 137 } } },
      'container manager restarted 2 times (last: Error, exit code 137)',
    ],
  ])('reports %j', (status, reason) => {
    expect(hopelessReason(pod(status))).toBe(reason);
  });

  it.each([[{ state: { waiting: { reason: 'ContainerCreating' } } }], [{ state: { running: {} }, restartCount: 1 }], [{}]])(
    'waits on %j',
    (status) => {
      expect(hopelessReason(pod(status))).toBeUndefined();
    },
  );
});

describe('lapTimer', () => {
  it('returns the time since the previous lap, the first since it was made', () => {
    const clock = [100, 130, 130, 250];
    const lap = lapTimer(() => clock.shift() ?? Number.NaN);
    expect([lap(), lap(), lap()]).toEqual([30, 0, 120]);
  });
});
