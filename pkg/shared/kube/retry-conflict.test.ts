import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.ts';
import { retryOnConflict } from './retry-conflict.ts';

const conflict = (): ApiError =>
  new ApiError(409, 'Conflict', 'the object has been modified; please apply your changes to the latest version and try again');

/** An update that throws `errors` in turn, then returns the number of its call. */
function updateFailing(errors: readonly unknown[]): { update: () => Promise<number>; calls: () => number } {
  let calls = 0;
  return {
    update: async () => {
      const err = errors[calls++];
      if (err !== undefined) throw err;
      return calls;
    },
    calls: () => calls,
  };
}

describe('retryOnConflict', () => {
  it('runs the update again after conflicts and returns its value', async () => {
    const u = updateFailing([conflict(), conflict()]);
    expect(await retryOnConflict(u.update, { delayMs: 1 })).toBe(3);
    expect(u.calls()).toBe(3);
  });

  it('throws the last conflict after five tries, as client-go DefaultRetry', async () => {
    const last = conflict();
    const u = updateFailing([conflict(), conflict(), conflict(), conflict(), last, conflict()]);
    await expect(retryOnConflict(u.update, { delayMs: 1 })).rejects.toBe(last);
    expect(u.calls()).toBe(5);
  });

  it('throws any other error at once', async () => {
    const gone = new ApiError(404, 'NotFound', 'gone');
    const u = updateFailing([conflict(), gone, conflict()]);
    await expect(retryOnConflict(u.update, { delayMs: 1 })).rejects.toBe(gone);
    expect(u.calls()).toBe(2);
  });

  it('takes the given number of tries, and none again once the signal aborted', async () => {
    const u = updateFailing([conflict(), conflict(), conflict()]);
    await expect(retryOnConflict(u.update, { attempts: 2, delayMs: 1 })).rejects.toBeInstanceOf(ApiError);
    expect(u.calls()).toBe(2);
    const aborted = updateFailing([conflict(), conflict()]);
    await expect(retryOnConflict(aborted.update, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(ApiError);
    expect(aborted.calls()).toBe(1);
  });
});
