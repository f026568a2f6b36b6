import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isPortTaken, withFreePorts } from './ports.ts';
import { ServerExitedError } from './wait.ts';

/** The error Node gives a listen on a port another server holds. */
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

describe('a server that lost its port to another process', () => {
  it('is recognised by a process log or by Node listen error anywhere in the cause chain', async () => {
    const taken = await listenOnTakenPort();
    expect(isPortTaken(new ServerExitedError('etcd exited', 'listen tcp 127.0.0.1:4: bind: address already in use'))).toBe(true);
    expect(isPortTaken(new Error('catalogd exited during start-up', { cause: taken }))).toBe(true);
    expect(isPortTaken(new ServerExitedError('etcd exited', 'permission denied'))).toBe(false);
    expect(isPortTaken(new Error('catalogd exited during start-up', { cause: new Error('no kubeconfig') }))).toBe(false);
    expect(isPortTaken('address already in use')).toBe(false);
  });

  it('is started again on new ports, three times at most; other failures are not retried', async () => {
    const taken = await listenOnTakenPort();
    const seen: number[][] = [];
    const lose = (ports: number[]): Promise<string> => (seen.push(ports), Promise.reject(new Error('exited', { cause: taken })));
    await expect(withFreePorts(2, (ports, attempt) => (attempt < 3 ? lose(ports) : Promise.resolve('up')))).resolves.toBe('up');
    expect(seen).toHaveLength(2);
    for (const ports of seen) expect(ports).toHaveLength(2);
    seen.length = 0;
    await expect(withFreePorts(1, lose)).rejects.toThrow('exited');
    expect(seen).toHaveLength(3);
    let calls = 0;
    await expect(withFreePorts(1, () => (calls++, Promise.reject(new Error('bad flag'))))).rejects.toThrow('bad flag');
    expect(calls).toBe(1);
  });
});
