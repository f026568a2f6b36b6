import { describe, expect, it } from 'vitest';
import { createHubSnapshots } from './hub-snapshot.ts';

function reads(): { read: () => Promise<number>; count: () => number; finish: (v: number, at?: number) => void; fail: (e: Error) => void } {
  const waiting: { resolve: (v: number) => void; reject: (e: Error) => void }[] = [];
  return {
    read: () => new Promise<number>((resolve, reject) => waiting.push({ resolve, reject })),
    count: () => waiting.length,
    finish: (v, at = -1) => waiting.at(at)?.resolve(v),
    fail: (e) => waiting.at(-1)?.reject(e),
  };
}

describe('createHubSnapshots', () => {
  it('waits for the first read, shares it, and serves the index it has while a stale one is read again', async () => {
    let now = 0;
    const r = reads();
    const hub = createHubSnapshots({ read: r.read, ttlMs: 30_000, now: () => now });
    const first = hub.get();
    const second = hub.get();
    expect(r.count()).toBe(1);
    r.finish(1);
    expect([await first, await second]).toEqual([1, 1]);
    now = 10_000;
    expect(await hub.get()).toBe(1);
    expect(r.count()).toBe(1);
    now = 31_000;
    // Stale: answered at once with the index it has; a new read starts behind it.
    expect(await hub.get()).toBe(1);
    expect(r.count()).toBe(2);
    expect(await hub.get()).toBe(1);
    expect(r.count()).toBe(2);
    r.finish(2);
    await expect.poll(() => hub.get()).toBe(2);
  });

  it('keeps the last index when a new read fails, and reads again at the next visit', async () => {
    let now = 0;
    const r = reads();
    const hub = createHubSnapshots({ read: r.read, ttlMs: 1_000, now: () => now });
    const first = hub.get();
    r.finish(1);
    await first;
    now = 2_000;
    expect(await hub.get()).toBe(1);
    r.fail(new Error('catalogd is down'));
    await expect.poll(() => hub.get()).toBe(1);
    await expect.poll(() => r.count()).toBe(3);
  });

  it('after drop, waits for a new read, and an older read finishing late does not come back', async () => {
    const r = reads();
    const hub = createHubSnapshots({ read: r.read, ttlMs: 30_000, now: () => 0 });
    void hub.get();
    hub.drop();
    const fresh = hub.get();
    expect(r.count()).toBe(2);
    r.finish(2);
    expect(await fresh).toBe(2);
    r.finish(1, 0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await hub.get()).toBe(2);
  });

  it('a first read that fails is tried again', async () => {
    const r = reads();
    const hub = createHubSnapshots({ read: r.read, ttlMs: 30_000, now: () => 0 });
    const first = hub.get();
    r.fail(new Error('no'));
    await expect(first).rejects.toThrow('no');
    const again = hub.get();
    expect(r.count()).toBe(2);
    r.finish(3);
    expect(await again).toBe(3);
  });
});
