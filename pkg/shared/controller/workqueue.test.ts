import fc from 'fast-check';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BucketRateLimiter, ExponentialFailureRateLimiter, MaxOfRateLimiter, defaultControllerRateLimiter } from './rate-limiter.ts';
import { LOW_PRIORITY, WorkQueue } from './workqueue.ts';

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

async function metricValue(registry: Registry, name: string): Promise<number> {
  const m = await registry.getSingleMetric(name)?.get();
  return m?.values.find((v) => v.labels.name === 'q')?.value ?? NaN;
}

describe('WorkQueue', () => {
  it('de-duplicates keys that are already queued', async () => {
    const q = new WorkQueue({ name: 'q' });
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.length).toBe(0);
  });

  it('hands a key to one worker at a time and requeues it when re-added in flight', async () => {
    const q = new WorkQueue({ name: 'q' });
    q.add('a');
    expect(await q.get()).toBe('a');
    q.add('a');
    q.add('a');
    expect(q.length).toBe(0); // not handed out again while in flight
    q.done('a');
    expect(q.length).toBe(1);
    expect(await q.get()).toBe('a');
    q.done('a');
    expect(q.length).toBe(0);
  });

  it('tells how long the key in flight waited in the queue, from its first add', async () => {
    const q = new WorkQueue({ name: 'q' });
    q.add('a');
    await vi.advanceTimersByTimeAsync(300);
    q.add('a'); // already queued: the wait counts from the first add
    await vi.advanceTimersByTimeAsync(200);
    expect(await q.get()).toBe('a');
    expect(q.waitedMs('a')).toBe(500);
    q.add('a'); // re-added in flight: queued again from now
    await vi.advanceTimersByTimeAsync(1000);
    q.done('a');
    expect(q.waitedMs('a')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(50);
    expect(await q.get()).toBe('a');
    expect(q.waitedMs('a')).toBe(1050);
  });

  it('wakes a waiting get() when a key arrives', async () => {
    const q = new WorkQueue({ name: 'q' });
    const got = q.get();
    q.add('x');
    await expect(got).resolves.toBe('x');
  });

  it('orders delayed adds by ready time and keeps the earliest delay of a key', async () => {
    const q = new WorkQueue({ name: 'q' });
    q.addAfter('c', 30);
    q.addAfter('a', 10);
    q.addAfter('b', 20);
    q.addAfter('a', 25); // later than the pending 10 ms: ignored
    q.addAfter('c', 15); // earlier than the pending 30 ms: wins
    await vi.advanceTimersByTimeAsync(9);
    expect(q.length).toBe(0);
    await vi.advanceTimersByTimeAsync(21);
    const order = [await q.get(), await q.get(), await q.get()];
    expect(order).toEqual(['a', 'c', 'b']);
    await vi.advanceTimersByTimeAsync(100);
    expect(q.length).toBe(0); // each key came once
  });

  it('delays rate-limited adds with growing per-key backoff until forget', async () => {
    const q = new WorkQueue({ name: 'q', rateLimiter: new ExponentialFailureRateLimiter(5, 1000) });
    const readyAfter = async (): Promise<number> => {
      q.addRateLimited('k');
      let waited = 0;
      while (q.length === 0) {
        await vi.advanceTimersByTimeAsync(1);
        waited++;
      }
      await q.get();
      q.done('k');
      return waited;
    };
    expect(await readyAfter()).toBe(5);
    expect(await readyAfter()).toBe(10);
    expect(await readyAfter()).toBe(20);
    expect(q.numRequeues('k')).toBe(3);
    q.forget('k');
    expect(q.numRequeues('k')).toBe(0);
    expect(await readyAfter()).toBe(5);
  });

  it('shutdown then drain ignores new adds, hands out the backlog and waits for in-flight keys', async () => {
    const q = new WorkQueue({ name: 'q' });
    q.add('a');
    q.add('b');
    q.addAfter('later', 10);
    expect(await q.get()).toBe('a');
    let drained = false;
    q.shutdown();
    const drain = q.drain().then(() => (drained = true));
    q.add('c');
    await vi.advanceTimersByTimeAsync(50); // the delayed add was dropped
    expect(await q.get()).toBe('b');
    q.done('b');
    await Promise.resolve();
    expect(drained).toBe(false); // 'a' still in flight
    q.done('a');
    await drain;
    expect(drained).toBe(true);
    expect(await q.get()).toBeUndefined();
  });

  it('releases blocked getters on shutdown', async () => {
    const q = new WorkQueue({ name: 'q' });
    const waiting = [q.get(), q.get()];
    q.shutdown();
    expect(await Promise.all(waiting)).toEqual([undefined, undefined]);
  });

  it('never lets two workers hold one key, and runs up to the worker count in parallel', async () => {
    vi.useRealTimers();
    const q = new WorkQueue({ name: 'q' });
    const inFlight = new Set<string>();
    let maxParallel = 0;
    let processed = 0;
    async function worker(): Promise<void> {
      for (let key = await q.get(); key !== undefined; key = await q.get()) {
        expect(inFlight.has(key)).toBe(false);
        inFlight.add(key);
        maxParallel = Math.max(maxParallel, inFlight.size);
        await new Promise((r) => setImmediate(r)); // the other workers take their keys meanwhile
        if (processed++ < 40) q.add(key); // re-added while in flight
        inFlight.delete(key);
        q.done(key);
      }
    }
    for (const k of ['a', 'b', 'c', 'd', 'e', 'f']) q.add(k);
    const workers = [worker(), worker(), worker(), worker()];
    // Re-adds happen before done(): the queue is idle only once all 6 + 40 were processed.
    await q.drain();
    expect(processed).toBe(46);
    q.shutdown();
    await q.drain();
    await Promise.all(workers);
    expect(maxParallel).toBe(4);
  });

  it('records the workqueue metrics with the name label', async () => {
    const registry = new Registry();
    const q = new WorkQueue({ name: 'q', registry });
    q.add('a');
    q.add('a');
    q.add('b');
    expect(await metricValue(registry, 'workqueue_adds_total')).toBe(2);
    expect(await metricValue(registry, 'workqueue_depth')).toBe(2);
    await q.get();
    await vi.advanceTimersByTimeAsync(1500);
    expect(await metricValue(registry, 'workqueue_longest_running_processor_seconds')).toBeCloseTo(1.5, 1);
    expect(await metricValue(registry, 'workqueue_unfinished_work_seconds')).toBeCloseTo(1.5, 1);
    q.done('a');
    // Nothing in flight: the gauges read 0 and no refresh timer is left running.
    expect(await metricValue(registry, 'workqueue_longest_running_processor_seconds')).toBe(0);
    expect(await metricValue(registry, 'workqueue_unfinished_work_seconds')).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    q.addRateLimited('a');
    expect(await metricValue(registry, 'workqueue_retries_total')).toBe(1);
    expect(await metricValue(registry, 'workqueue_depth')).toBe(1);
    const work = await registry.getSingleMetric('workqueue_work_duration_seconds')?.get();
    expect(work?.values.find((v) => (v as { metricName?: string }).metricName === 'workqueue_work_duration_seconds_count')?.value).toBe(1);
    // a second queue with another name shares the families
    const q2 = new WorkQueue({ name: 'other', registry });
    q2.add('z');
    const adds = await registry.getSingleMetric('workqueue_adds_total')?.get();
    expect(adds?.values.map((v) => v.labels.name).sort()).toEqual(['other', 'q']);
    q.shutdown();
    q2.shutdown();
  });

  it('behaves like a set-plus-processing model under random operations', async () => {
    // Model: queued keys (FIFO, unique), in-flight keys, keys re-added while in flight.
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), key: fc.constantFrom('a', 'b', 'c') }),
      fc.record({ kind: fc.constant('get' as const) }),
      fc.record({ kind: fc.constant('done' as const), key: fc.constantFrom('a', 'b', 'c') }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const q = new WorkQueue({ name: 'model' });
        const queued: string[] = [];
        const inFlight = new Set<string>();
        const dirtyInFlight = new Set<string>();
        for (const o of ops) {
          if (o.kind === 'add') {
            q.add(o.key);
            if (inFlight.has(o.key)) dirtyInFlight.add(o.key);
            else if (!queued.includes(o.key)) queued.push(o.key);
          } else if (o.kind === 'get') {
            if (queued.length === 0) continue; // would block
            const expected = queued.shift() as string;
            expect(await q.get()).toBe(expected);
            inFlight.add(expected);
          } else {
            q.done(o.key);
            if (inFlight.delete(o.key) && dirtyInFlight.delete(o.key)) queued.push(o.key);
          }
          expect(q.length).toBe(queued.length);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('hands out keys of a higher priority first, moves a queued key up, and keeps the priority of a key added in flight', async () => {
    const q = new WorkQueue({ name: 'q' });
    for (const k of ['a', 'b', 'c', 'd']) q.add(k);
    q.add('c', 10); // moved up
    q.add('a', -5); // lower: stays where it is
    q.add('e', 10);
    expect(q.length).toBe(5);
    expect(await q.get()).toBe('c');
    q.add('c', 10); // in flight: queued at 10 when done
    expect(await q.get()).toBe('e');
    q.done('c');
    expect(await q.get()).toBe('c');
    expect([await q.get(), await q.get(), await q.get()]).toEqual(['a', 'b', 'd']);
    expect(q.length).toBe(0);
    q.add('a'); // its old entries are not its place now
    q.add('b');
    q.done('a');
    q.done('b');
    expect([await q.get(), await q.get()]).toEqual(['a', 'b']);
  });

  it('queues a delayed add at its priority: polls go behind keys an event queued, and an event moves a polled key up', async () => {
    const q = new WorkQueue({ name: 'q' });
    for (const k of ['p1', 'p2', 'p3']) q.addAfter(k, 1000, LOW_PRIORITY);
    q.addAfter('now', 0, LOW_PRIORITY);
    await vi.advanceTimersByTimeAsync(1000);
    expect(q.length).toBe(4);
    q.add('event');
    q.add('p3'); // an event for a polled key: moved up to the events' priority
    expect([await q.get(), await q.get(), await q.get(), await q.get(), await q.get()]).toEqual(['event', 'p3', 'now', 'p1', 'p2']);
  });

  it('behaves like a prioritised set-plus-processing model under random operations', async () => {
    // Model: queued keys with their priority and the order they were queued in; in-flight keys
    // with the highest priority they were re-added with.
    const keys = fc.constantFrom('a', 'b', 'c', 'd');
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), key: keys, priority: fc.constantFrom(0, 0, 1, 5, -1) }),
      fc.record({ kind: fc.constant('get' as const) }),
      fc.record({ kind: fc.constant('done' as const), key: keys }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 80 }), async (ops) => {
        const q = new WorkQueue({ name: 'model' });
        let seq = 0;
        const queued = new Map<string, { priority: number; seq: number }>();
        const inFlight = new Set<string>();
        const dirtyInFlight = new Map<string, number>();
        for (const o of ops) {
          if (o.kind === 'add') {
            q.add(o.key, o.priority);
            const at = queued.get(o.key);
            const again = dirtyInFlight.get(o.key);
            if (inFlight.has(o.key)) dirtyInFlight.set(o.key, Math.max(again ?? o.priority, o.priority));
            else if (at === undefined) queued.set(o.key, { priority: o.priority, seq: seq++ });
            else if (o.priority > at.priority) queued.set(o.key, { priority: o.priority, seq: seq++ });
          } else if (o.kind === 'get') {
            if (queued.size === 0) continue; // would block
            const [expected] = [...queued].sort(([, x], [, y]) => y.priority - x.priority || x.seq - y.seq)[0] as [string, unknown];
            queued.delete(expected);
            expect(await q.get()).toBe(expected);
            inFlight.add(expected);
          } else {
            q.done(o.key);
            const again = dirtyInFlight.get(o.key);
            if (inFlight.delete(o.key) && again !== undefined) {
              dirtyInFlight.delete(o.key);
              queued.set(o.key, { priority: again, seq: seq++ });
            }
          }
          expect(q.length).toBe(queued.size);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('rate limiters', () => {
  it('exponential backoff doubles from 5 ms and caps at 1000 s', () => {
    const rl = new ExponentialFailureRateLimiter(5, 1_000_000);
    const delays = Array.from({ length: 20 }, () => rl.when('k'));
    expect(delays.slice(0, 4)).toEqual([5, 10, 20, 40]);
    expect(delays[17]).toBe(655_360);
    expect(delays[18]).toBe(1_000_000);
    expect(delays[19]).toBe(1_000_000);
    for (let i = 0; i < 2000; i++) rl.when('k'); // no overflow to Infinity/NaN
    expect(rl.when('k')).toBe(1_000_000);
    expect(rl.when('other')).toBe(5); // per key
  });

  it('the bucket allows a burst, then paces at qps, and refills over time', () => {
    let now = 0;
    const rl = new BucketRateLimiter(10, 100, () => now);
    for (let i = 0; i < 100; i++) expect(rl.when()).toBe(0);
    expect(rl.when()).toBe(100);
    expect(rl.when()).toBe(200);
    now += 10_000; // 100 tokens refilled, minus the two borrowed
    let free = 0;
    while (rl.when() === 0) free++;
    expect(free).toBe(98);
  });

  it('the default limiter takes the larger of both delays', () => {
    const limiter = defaultControllerRateLimiter(() => 0);
    const first = Array.from({ length: 100 }, (_, i) => limiter.when(`k${i}`));
    expect(first.every((d) => d === 5)).toBe(true);
    expect(limiter.when('k100')).toBe(100); // bucket exhausted dominates 5 ms
    const max = new MaxOfRateLimiter(new ExponentialFailureRateLimiter(5, 1000), new ExponentialFailureRateLimiter(1, 1000));
    max.when('x');
    max.when('x');
    expect(max.numRequeues('x')).toBe(2);
    max.forget('x');
    expect(max.numRequeues('x')).toBe(0);
  });
});
