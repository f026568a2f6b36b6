import { describe, expect, it } from 'vitest';
import { settleAll } from './settle.ts';

describe('settleAll', () => {
  it('resolves with every value in order', async () => {
    await expect(settleAll([Promise.resolve(1), Promise.resolve('two')])).resolves.toEqual([1, 'two']);
  });

  it('waits for the slower promise before throwing the first rejection in argument order', async () => {
    let finished = false;
    const slow = new Promise<void>((resolve) => setTimeout(() => ((finished = true), resolve()), 20));
    const first = new Error('first');
    const outcome = settleAll([Promise.reject(first), slow, Promise.reject(new Error('second'))]);
    await expect(outcome).rejects.toBe(first);
    expect(finished).toBe(true);
  });
});
