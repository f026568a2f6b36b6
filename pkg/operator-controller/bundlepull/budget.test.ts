import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { RegistryV1Bundle } from '../bundle/index.ts';
import { BundleBudget, type BundleLease } from './budget.ts';
import { BundlePulls } from './pulls.ts';
import type { FetchedBundle } from './source.ts';

/** Records the order in which leases are granted. */
function track(budget: BundleBudget, name: string, bytes: number, order: string[], signal?: AbortSignal): Promise<BundleLease> {
  return budget.acquire(bytes, signal).then((lease) => {
    order.push(name);
    return lease;
  });
}

describe('BundleBudget', () => {
  it('grants leases that fit at once and holds back one that does not until bytes are given back', async () => {
    const budget = new BundleBudget(100);
    const order: string[] = [];
    const a = await track(budget, 'a', 60, order);
    const b = await track(budget, 'b', 40, order);
    const c = track(budget, 'c', 30, order);
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['a', 'b']);
    expect(budget.held).toBe(100);
    expect(budget.waiting).toBe(1);
    a.release();
    a.release(); // a second release gives nothing back twice
    await c;
    expect(order).toEqual(['a', 'b', 'c']);
    expect(budget.held).toBe(70);
    b.release();
    (await c).release();
    expect(budget.held).toBe(0);
  });

  it('grants a cache only what fits now, never ahead of a waiting request', async () => {
    const budget = new BundleBudget(100);
    const cached = budget.tryAcquire(60);
    expect(cached?.bytes).toBe(60);
    expect(budget.tryAcquire(50)).toBeUndefined();
    cached?.release();
    const held = await budget.acquire(50);
    const waiting = budget.acquire(60);
    expect(budget.waiting).toBe(1);
    // 20 bytes would fit, but a request waits first: the cache gets nothing.
    expect(budget.tryAcquire(20)).toBeUndefined();
    held.release();
    (await waiting).release();
    expect(budget.held).toBe(0);
  });

  it('asks caches for the bytes a request lacks before it would wait', async () => {
    const budget = new BundleBudget(100);
    const kept = [budget.tryAcquire(30), budget.tryAcquire(30), budget.tryAcquire(30)];
    const asked: number[] = [];
    budget.onShortage((bytes) => {
      asked.push(bytes);
      let freed = 0;
      for (const lease of [...kept]) {
        if (freed >= bytes || lease === undefined) continue;
        freed += lease.bytes;
        lease.release();
        kept.splice(kept.indexOf(lease), 1);
      }
    });
    // 90 held by the cache, 50 wanted: 40 lacking, two entries go, granted at once.
    const a = await budget.acquire(50);
    expect(asked).toEqual([40]);
    expect(budget.held).toBe(80);
    // A reconcile's lease holds the rest back: the cache gives its last entry, the request still waits for it.
    const b = budget.acquire(60);
    expect(asked).toEqual([40, 40]);
    expect(kept).toEqual([]);
    expect(budget.waiting).toBe(1);
    a.release();
    expect((await b).bytes).toBe(60);
    expect(budget.held).toBe(60);
  });

  it('lets a bundle larger than the whole budget go alone, and nothing beside it', async () => {
    const budget = new BundleBudget(100);
    const order: string[] = [];
    const small = await track(budget, 'small', 10, order);
    const huge = track(budget, 'huge', 500, order);
    const after = track(budget, 'after', 1, order);
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['small']);
    small.release();
    const h = await huge;
    await new Promise((r) => setImmediate(r));
    // Granted in arrival order: the 1-byte request waits behind the huge one.
    expect(order).toEqual(['small', 'huge']);
    h.release();
    await after;
    expect(order).toEqual(['small', 'huge', 'after']);
  });

  it('counts a negative or NaN size as nothing', async () => {
    const budget = new BundleBudget(10);
    const a = await budget.acquire(Number.NaN);
    const b = await budget.acquire(-5);
    expect([a.bytes, b.bytes, budget.held]).toEqual([0, 0, 0]);
  });

  it('drops a waiting request whose signal aborts, and lets the ones behind it go when they fit', async () => {
    const budget = new BundleBudget(100);
    const order: string[] = [];
    const held = await track(budget, 'held', 50, order);
    const abort = new AbortController();
    const big = track(budget, 'big', 80, order, abort.signal);
    const small = track(budget, 'small', 20, order);
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['held']);
    abort.abort(new Error('superseded'));
    await expect(big).rejects.toThrow('superseded');
    await small;
    expect(order).toEqual(['held', 'small']);
    expect(budget.waiting).toBe(0);
    held.release();
    await expect(budget.acquire(1, abort.signal)).rejects.toThrow('superseded');
  });
});

describe('BundlePulls with leases', () => {
  function leased(budget: BundleBudget) {
    const leases: BundleLease[] = [];
    const resolvers: ((f: FetchedBundle) => void)[] = [];
    const enqueued: string[] = [];
    const pulls = new BundlePulls({
      fetch: async (_extension, ref) => {
        const lease = await budget.acquire(10);
        leases.push(lease);
        return new Promise<FetchedBundle>((resolve) =>
          resolvers.push(() => resolve({ bundle: {} as RegistryV1Bundle, digestRef: `${ref}@d`, fromCache: false, lease })),
        );
      },
      cached: () => Promise.resolve(undefined),
      enqueue: (n) => enqueued.push(n),
      log: pino({ level: 'silent' }),
      waitMs: 0,
      claimMs: 20,
    });
    return { pulls, leases, resolvers, enqueued };
  }

  it('leaves the lease of a bundle handed out to the reconcile that took it', async () => {
    const budget = new BundleBudget(100);
    const s = leased(budget);
    expect((await s.pulls.get('ext', 'r:1')).state).toBe('pending');
    await expect.poll(() => s.resolvers.length, { interval: 1 }).toBe(1);
    s.resolvers[0]?.({} as FetchedBundle);
    await s.pulls.settled();
    const got = await s.pulls.get('ext', 'r:1');
    expect(got.state === 'done' && got.fetched.lease !== undefined).toBe(true);
    expect(budget.held).toBe(10);
  });

  it('gives back the lease of a finished bundle that is superseded, forgotten or not taken in time', async () => {
    const budget = new BundleBudget(100);
    const s = leased(budget);
    await s.pulls.get('a', 'r:1');
    await s.pulls.get('b', 'r:1');
    await s.pulls.get('c', 'r:1');
    await expect.poll(() => s.resolvers.length, { interval: 1 }).toBe(3);
    for (const r of s.resolvers) r({} as FetchedBundle);
    await s.pulls.settled();
    expect(budget.held).toBe(30);
    // a: the target changed; b: the extension is deleted; c: nobody asks within claimMs.
    await s.pulls.get('a', 'r:2');
    s.pulls.forget('b');
    expect(budget.held).toBe(10 + 10);
    await expect.poll(() => budget.held, { interval: 1 }).toBe(10);
    expect(s.enqueued).toEqual(['a', 'b', 'c']);
  });

  it('gives back the lease of a pull cancelled while it was finishing', async () => {
    const budget = new BundleBudget(100);
    const s = leased(budget);
    await s.pulls.get('a', 'r:1');
    await expect.poll(() => s.resolvers.length, { interval: 1 }).toBe(1);
    s.pulls.forget('a');
    s.resolvers[0]?.({} as FetchedBundle);
    await expect.poll(() => budget.held, { interval: 1 }).toBe(0);
    expect(s.leases).toHaveLength(1);
  });
});
