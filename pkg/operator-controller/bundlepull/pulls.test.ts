import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import type { RegistryV1Bundle } from '../bundle/index.ts';
import { BundlePulls, type BundlePullsOptions, type PullStatus } from './pulls.ts';
import type { FetchedBundle } from './source.ts';

/** One call of the fetch port, ended by the test. */
interface FetchCall {
  extension: string;
  ref: string;
  signal: AbortSignal;
  succeed(): void;
  fail(err: Error): void;
}

const fetched = (ref: string): FetchedBundle => ({
  bundle: { packageName: ref } as unknown as RegistryV1Bundle,
  digestRef: `${ref}-digest`,
  fromCache: false,
});

/** A scheduler over fake ports: fetches wait for the test; a fetched bundle is in the "cache" afterwards. */
function scheduler(options: Partial<BundlePullsOptions> = {}) {
  const calls: FetchCall[] = [];
  const enqueued: string[] = [];
  const cache = new Map<string, FetchedBundle>();
  const registry = new Registry();
  const pulls = new BundlePulls({
    fetch: (extension, ref, signal) =>
      new Promise<FetchedBundle>((resolve, reject) => {
        const call: FetchCall = {
          extension,
          ref,
          signal,
          succeed: () => {
            cache.set(`${extension} ${ref}`, { ...fetched(ref), fromCache: true });
            resolve(fetched(ref));
          },
          fail: reject,
        };
        signal.addEventListener('abort', () => reject(new Error('The operation was aborted')), { once: true });
        calls.push(call);
      }),
    cached: (extension, ref) => Promise.resolve(cache.get(`${extension} ${ref}`)),
    enqueue: (extension) => enqueued.push(extension),
    log: pino({ level: 'silent' }),
    registry,
    waitMs: 50,
    now: () => new Date('2026-01-02T03:04:05Z'),
    ...options,
  });
  const metric = async (name: string, labels: Record<string, string> = {}): Promise<number> => {
    const m = (await registry.getSingleMetric(name)?.get())?.values ?? [];
    return m.filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x)).reduce((a, v) => a + v.value, 0);
  };
  return { pulls, calls, enqueued, cache, metric };
}

const STARTED = new Date('2026-01-02T03:04:05Z');

describe('BundlePulls', () => {
  it('hands out a cached bundle without pulling', async () => {
    const s = scheduler();
    s.cache.set('ext r@sha256:1', fetched('r@sha256:1'));
    expect(await s.pulls.get('ext', 'r@sha256:1')).toEqual({ state: 'done', fetched: fetched('r@sha256:1') });
    expect(s.calls).toEqual([]);
    expect(s.enqueued).toEqual([]);
  });

  it('returns a pull that ends within the wait as before: no enqueue', async () => {
    const s = scheduler({ waitMs: 10_000 });
    const got = s.pulls.get('ext', 'r:v1');
    await expect.poll(() => s.calls.length, { interval: 1 }).toBe(1);
    s.calls[0]?.succeed();
    expect(await got).toEqual({ state: 'done', fetched: fetched('r:v1') });
    await s.pulls.settled();
    expect(s.enqueued).toEqual([]);
    expect(await s.metric('operator_controller_bundle_pulls_total', { result: 'success' })).toBe(1);
  });

  it('says since when a slow pull runs, joins it, and enqueues the extension once when it ends', async () => {
    const s = scheduler();
    expect(await s.pulls.get('ext', 'r:v1')).toEqual({ state: 'pending', startedAt: STARTED });
    expect(await s.pulls.get('ext', 'r:v1', { waitMs: 0 })).toEqual({ state: 'pending', startedAt: STARTED });
    expect(s.calls.map((c) => `${c.extension} ${c.ref}`)).toEqual(['ext r:v1']);
    expect(await s.metric('operator_controller_bundle_pulls_in_flight')).toBe(1);
    s.calls[0]?.succeed();
    await s.pulls.settled();
    expect(s.enqueued).toEqual(['ext']);
    expect(await s.metric('operator_controller_bundle_pulls_in_flight')).toBe(0);
    // The reconcile the end queued gets the bundle; nothing is pulled again.
    expect(await s.pulls.get('ext', 'r:v1')).toEqual({ state: 'done', fetched: fetched('r:v1') });
    expect(await s.pulls.get('ext', 'r:v1')).toMatchObject({ state: 'done' });
    expect(s.calls).toHaveLength(1);
  });

  it('holds a worker for a pull at most 250 ms while other reconciles wait for one, 1.5 s while none do', async () => {
    vi.useFakeTimers({ now: STARTED });
    try {
      let busy = true;
      const s = scheduler({ waitMs: 1500, busy: () => busy });
      const answers = new Map<string, PullStatus>();
      const ask = (ext: string): void => void s.pulls.get(ext, `${ext}:v1`).then((a) => answers.set(ext, a));
      ask('a'); // others wait: a short wait only
      await vi.advanceTimersByTimeAsync(200);
      expect(answers.has('a')).toBe(false);
      await vi.advanceTimersByTimeAsync(100);
      expect(answers.get('a')).toEqual({ state: 'pending', startedAt: STARTED });
      busy = false;
      ask('b'); // nobody waits: the pull is waited for...
      await vi.advanceTimersByTimeAsync(1000);
      expect(answers.has('b')).toBe(false);
      busy = true; // ...until somebody does
      await vi.advanceTimersByTimeAsync(100);
      expect(answers.get('b')).toEqual({ state: 'pending', startedAt: STARTED });
      // A pull that ends within the short wait is handed out by the same reconcile, as before.
      ask('c');
      await vi.advanceTimersByTimeAsync(100);
      s.calls[2]?.succeed();
      await vi.advanceTimersByTimeAsync(0);
      expect(answers.get('c')).toMatchObject({ state: 'done' });
      // The others go on; each one's end queues its extension, whose next reconcile takes the bundle.
      expect(s.calls.map((c) => c.signal.aborted)).toEqual([false, false, false]);
      s.calls[0]?.succeed();
      s.calls[1]?.succeed();
      await s.pulls.settled();
      expect(s.enqueued.sort()).toEqual(['a', 'b']);
      expect(await s.pulls.get('b', 'b:v1')).toMatchObject({ state: 'done' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('reports a failure to one reconcile, and the next one pulls again', async () => {
    const s = scheduler();
    expect(await s.pulls.get('ext', 'r:v1')).toMatchObject({ state: 'pending' });
    const err = new Error('pulling image "r:v1": timeout after 30s reading layer sha256:1 from registry r');
    s.calls[0]?.fail(err);
    await s.pulls.settled();
    expect(s.enqueued).toEqual(['ext']);
    expect(await s.pulls.get('ext', 'r:v1', { waitMs: 0 })).toEqual({ state: 'failed', error: err, startedAt: STARTED });
    expect(s.calls).toHaveLength(1);
    expect(await s.pulls.get('ext', 'r:v1', { waitMs: 0 })).toMatchObject({ state: 'pending' });
    expect(s.calls).toHaveLength(2);
    expect(await s.metric('operator_controller_bundle_pulls_total', { result: 'failure' })).toBe(1);
  });

  it('returns a failure within the wait directly: no enqueue', async () => {
    const s = scheduler({ waitMs: 10_000 });
    const got = s.pulls.get('ext', 'r:v1');
    await expect.poll(() => s.calls.length, { interval: 1 }).toBe(1);
    const err = new Error('connection refused');
    s.calls[0]?.fail(err);
    expect(await got).toMatchObject({ state: 'failed', error: err });
    await s.pulls.settled();
    expect(s.enqueued).toEqual([]);
  });

  it('cancels the pull of a reference the extension no longer wants; its end enqueues nothing', async () => {
    const s = scheduler();
    await s.pulls.get('ext', 'r:v1');
    await s.pulls.get('ext', 'r:v2');
    expect(s.calls.map((c) => [c.ref, c.signal.aborted])).toEqual([
      ['r:v1', true],
      ['r:v2', false],
    ]);
    s.calls[1]?.succeed();
    await s.pulls.settled();
    expect(s.enqueued).toEqual(['ext']);
    expect(await s.metric('operator_controller_bundle_pulls_total', { result: 'cancelled' })).toBe(1);
    expect(await s.pulls.get('ext', 'r:v2', { waitMs: 0 })).toMatchObject({ state: 'done' });
  });

  it('keeps one pull per extension: other extensions pull the same reference on their own', async () => {
    const s = scheduler();
    await s.pulls.get('a', 'r:v1');
    await s.pulls.get('b', 'r:v1');
    await s.pulls.get('a', 'r:v1');
    expect(s.calls.map((c) => c.extension)).toEqual(['a', 'b']);
    for (const c of s.calls) c.succeed();
    await s.pulls.settled();
    expect(s.enqueued.sort()).toEqual(['a', 'b']);
  });

  it('aborts the pull of a deleted extension and drops it', async () => {
    const s = scheduler();
    await s.pulls.get('ext', 'r:v1');
    s.pulls.forget('ext');
    expect(s.calls[0]?.signal.aborted).toBe(true);
    await s.pulls.settled();
    expect(s.enqueued).toEqual([]);
    // A pull asked for afterwards starts afresh.
    await s.pulls.get('ext', 'r:v1', { waitMs: 0 });
    expect(s.calls).toHaveLength(2);
  });

  it('cancels every pull when leadership ends', async () => {
    const leading = new AbortController();
    const s = scheduler({ signal: leading.signal });
    await s.pulls.get('a', 'r:v1');
    await s.pulls.get('b', 'r:v1');
    leading.abort();
    expect(s.calls.map((c) => c.signal.aborted)).toEqual([true, true]);
    await s.pulls.settled();
    expect(s.enqueued).toEqual([]);
  });

  it('ends the wait, not the pull, when the reconcile is cancelled', async () => {
    const s = scheduler({ waitMs: 10_000 });
    const reconcile = new AbortController();
    const got = s.pulls.get('ext', 'r:v1', { signal: reconcile.signal });
    await expect.poll(() => s.calls.length, { interval: 1 }).toBe(1);
    reconcile.abort(new Error('reconcile cancelled: spec changed'));
    await expect(got).rejects.toThrow('reconcile cancelled: spec changed');
    expect(s.calls[0]?.signal.aborted).toBe(false);
    s.calls[0]?.succeed();
    await s.pulls.settled();
    expect(s.enqueued).toEqual(['ext']);
  });

  it('bounds a whole pull: past maxPullMs it fails saying so', async () => {
    const s = scheduler({ maxPullMs: 30 });
    await s.pulls.get('ext', 'r:v1', { waitMs: 0 });
    await s.pulls.settled();
    expect(s.enqueued).toEqual(['ext']);
    const got = await s.pulls.get('ext', 'r:v1', { waitMs: 0 });
    expect(got.state === 'failed' && (got.error as Error).message).toBe('pulling image "r:v1": not finished within 30ms');
  });

  it('reports a cache that cannot be read as a failed pull', async () => {
    const s = scheduler({ cached: () => Promise.reject(new Error('EACCES: permission denied')) });
    expect(await s.pulls.get('ext', 'r@sha256:1')).toMatchObject({ state: 'failed', error: new Error('EACCES: permission denied') });
    expect(s.calls).toEqual([]);
  });
  it('settles only once cancelled pulls have ended too: a stopping process waits for a pull still writing its files', async () => {
    const leading = new AbortController();
    const finishes: Array<() => void> = [];
    // A pull that, like an unpack in flight, ends some time after its abort.
    const fetch = (_e: string, _ref: string, signal: AbortSignal): Promise<FetchedBundle> =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => finishes.push(() => reject(new Error('The operation was aborted'))), { once: true });
      });
    const s = scheduler({ fetch, signal: leading.signal, waitMs: 0 });
    await s.pulls.get('ext', 'r:v1');
    await s.pulls.get('other', 'r:v2');
    s.pulls.forget('other');
    leading.abort(new Error('leader election lost'));
    let settled = false;
    const done = s.pulls.settled().then(() => (settled = true));
    await expect.poll(() => finishes.length).toBe(2);
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    finishes[0]?.();
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    finishes[1]?.();
    await done;
    expect(settled).toBe(true);
  });
});
