import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isPortTakenError, retryOnPortTaken } from '../support/component-start.ts';

/** The error Node gives a listen on a port another process holds. */
async function listenOnTakenPort(): Promise<Error> {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const address = holder.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  try {
    const second = createServer();
    return await new Promise<Error>((resolve, reject) => {
      second.once('error', resolve);
      second.listen(address.port, '127.0.0.1', () => reject(new Error('second listen succeeded')));
    });
  } finally {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
  }
}

describe('a component that lost its port to another process', () => {
  it('is recognised by the listen error in its cause chain or the log tail in its message', async () => {
    const taken = await listenOnTakenPort();
    expect(isPortTakenError(new Error('catalogd exited during start-up', { cause: taken }))).toBe(true);
    expect(isPortTakenError(new Error('op exited during start-up\nlisten tcp 127.0.0.1:4: bind: address already in use'))).toBe(true);
    expect(isPortTakenError(new Error('catalogd exited during start-up', { cause: new Error('no kubeconfig') }))).toBe(false);
    expect(isPortTakenError('address already in use')).toBe(false);
  });

  it('is started again, three times at most, and other failures are not retried', async () => {
    const taken = await listenOnTakenPort();
    let calls = 0;
    await expect(retryOnPortTaken(async () => (++calls < 3 ? Promise.reject(new Error('exited', { cause: taken })) : 'up'))).resolves.toBe('up');
    expect(calls).toBe(3);
    calls = 0;
    await expect(retryOnPortTaken(async () => (++calls, Promise.reject(new Error('exited', { cause: taken }))))).rejects.toThrow('exited');
    expect(calls).toBe(3);
    calls = 0;
    await expect(retryOnPortTaken(async () => (++calls, Promise.reject(new Error('bad flag'))))).rejects.toThrow('bad flag');
    expect(calls).toBe(1);
  });
});
