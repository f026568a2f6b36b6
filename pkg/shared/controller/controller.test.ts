import { Writable } from 'node:stream';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LimitExceededError, TerminalError } from '../errors/index.ts';
import { Informer, type KubeObject, type ListWatchSource, type ObjectList } from '../kube/index.ts';
import { Controller } from './controller.ts';
import { LOW_PRIORITY } from './workqueue.ts';
import { ReconcileCancelledError, type ReconcileResult, type Reconciler } from './reconciler.ts';

// Captures pino's JSON lines.
function captureLog(level = 'info'): { log: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { log: pino({ level }, sink), lines };
}

// A list/watch source serving fixed objects; `release()` lets the first list complete.
function source(names: string[], gated = false): { src: ListWatchSource; release: () => void } {
  let release = (): void => undefined;
  const gate = gated ? new Promise<void>((r) => (release = r)) : Promise.resolve();
  const src: ListWatchSource = {
    description: 'fake',
    async list(): Promise<ObjectList> {
      await gate;
      return {
        apiVersion: 'v1',
        kind: 'List',
        metadata: { resourceVersion: '1' },
        items: names.map((n) => ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: n, resourceVersion: '1', labels: { owner: `owner-${n}` } },
        })),
      };
    },
    watch(o) {
      return {
        async *[Symbol.asyncIterator]() {
          await new Promise((_r, reject) => o.signal.addEventListener('abort', () => reject(o.signal.reason)));
        },
      };
    },
  };
  return { src, release };
}

async function metric(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const m = await registry.getSingleMetric(name)?.get();
  const v = m?.values.find((x) => Object.entries(labels).every(([k, val]) => x.labels[k] === val) && !('le' in x.labels));
  return v?.value ?? 0;
}

let ctl: AbortController;
beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  ctl = new AbortController();
});
afterEach(() => {
  ctl.abort();
  vi.useRealTimers();
});

function setup(
  names: string[],
  reconcile: Reconciler['reconcile'],
  extra: {
    gated?: boolean;
    concurrency?: number;
    keys?: (o: Readonly<KubeObject>) => string;
    level?: string;
    reconciles?: { apiVersion: string; kind: string };
    replaceRequeues?: boolean;
  } = {},
) {
  const { src, release } = source(names, extra.gated);
  const registry = new Registry();
  const { log, lines } = captureLog(extra.level);
  const informer = new Informer({ name: 'cm', source: src, log, resyncPeriodMs: 0 });
  const watch = extra.keys === undefined ? { informer } : { informer, keys: (_t: unknown, o: Readonly<KubeObject>) => extra.keys?.(o) };
  const controller = new Controller({
    name: 'test-controller',
    reconciler: { reconcile },
    log,
    registry,
    watches: [watch],
    concurrency: extra.concurrency ?? 1,
    shutdownTimeoutMs: 5_000,
    ...(extra.reconciles === undefined ? {} : { reconciles: extra.reconciles }),
    ...(extra.replaceRequeues === undefined ? {} : { replaceRequeues: extra.replaceRequeues }),
  });
  void informer.run(ctl.signal);
  const done = controller.run(ctl.signal);
  return { controller, registry, lines, release, done };
}

describe('Controller', () => {
  it('starts workers only after the informers synced', async () => {
    const calls: string[] = [];
    const { release, controller } = setup(['a', 'b'], async (key) => void calls.push(key), { gated: true });
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toEqual([]);
    expect(controller.started).toBe(false);
    release();
    await vi.advanceTimersByTimeAsync(1);
    expect(controller.started).toBe(true);
    expect(calls).toEqual(['a', 'b']); // cluster-scoped keys are bare names
  });

  it('requeues errors with per-key backoff, forgets on success and counts results', async () => {
    const times: number[] = [];
    const { registry, controller } = setup(['a'], async () => {
      times.push(Date.now());
      if (times.length < 3) throw new Error('transient');
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(times).toEqual([0, 5, 15]); // 5 ms, then 10 ms
    expect(controller.queue.numRequeues('a')).toBe(0);
    expect(await metric(registry, 'controller_runtime_reconcile_total', { controller: 'test-controller', result: 'error' })).toBe(2);
    expect(await metric(registry, 'controller_runtime_reconcile_total', { result: 'success' })).toBe(1);
    expect(await metric(registry, 'controller_runtime_reconcile_errors_total')).toBe(2);
    expect(await metric(registry, 'controller_runtime_max_concurrent_reconciles')).toBe(1);
  });

  it('does not requeue terminal errors; logs them with controller, key and reconcileID', async () => {
    let calls = 0;
    const { registry, lines } = setup(['a'], async () => {
      calls++;
      throw new TerminalError('invalid spec', { reason: 'Blocked' });
    });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toBe(1);
    expect(await metric(registry, 'controller_runtime_terminal_reconcile_errors_total')).toBe(1);
    const line = lines.find((l) => l.msg === 'Reconciler error');
    expect(line).toMatchObject({ controller: 'test-controller', key: 'a', terminal: true });
    expect(typeof line?.reconcileID).toBe('string');
  });

  it('logs at debug level each reconcile with its wait in the queue, its time and how it ended', async () => {
    const { lines } = setup(
      ['a', 'b'],
      async (key): Promise<ReconcileResult> => {
        await new Promise((r) => setTimeout(r, 100));
        if (key === 'b') throw new Error('transient');
        return {};
      },
      { level: 'debug' },
    );
    await vi.advanceTimersByTimeAsync(250);
    const finished = lines.filter((l) => l.msg === 'reconcile finished').slice(0, 2);
    expect(finished).toMatchObject([
      { key: 'a', queuedMs: 0, ms: 100, outcome: 'success', failures: 0 },
      { key: 'b', queuedMs: 100, ms: 100, outcome: 'error', failures: 1 },
    ]);
  });

  it("logs upstream's `reconcile ending` at info after each reconcile of a kind upstream reconciles, whatever its outcome", async () => {
    const { lines } = setup(
      ['a', 'b'],
      async (key) => {
        if (key === 'b') throw new TerminalError('invalid spec', { reason: 'Blocked' });
      },
      { reconciles: { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension' } },
    );
    await vi.advanceTimersByTimeAsync(10);
    expect(lines.filter((l) => l.msg === 'reconcile ending')).toMatchObject([
      {
        level: 30,
        controller: 'test-controller',
        controllerGroup: 'olm.operatorframework.io',
        controllerKind: 'ClusterExtension',
        ClusterExtension: { name: 'a' },
        namespace: '',
        name: 'a',
        reconcileID: expect.any(String),
      },
      { level: 30, name: 'b', ClusterExtension: { name: 'b' } },
    ]);
  });

  it('logs no `reconcile ending` for a controller upstream does not have', async () => {
    const { lines } = setup(['a'], async () => undefined);
    await vi.advanceTimersByTimeAsync(10);
    expect(lines.filter((l) => l.msg === 'reconcile ending')).toEqual([]);
  });

  it('honours requeueAfter and requeue results', async () => {
    const times: number[] = [];
    const { registry } = setup(['a'], async (): Promise<ReconcileResult> => {
      times.push(Date.now());
      return times.length === 1 ? { requeueAfterMs: 30_000 } : times.length === 2 ? { requeue: true } : {};
    });
    await vi.advanceTimersByTimeAsync(31_000);
    expect(times).toEqual([0, 30_000, 30_005]);
    expect(await metric(registry, 'controller_runtime_reconcile_total', { result: 'requeue_after' })).toBe(1);
    expect(await metric(registry, 'controller_runtime_reconcile_total', { result: 'requeue' })).toBe(1);
  });

  it("queues a requeueAfter at the result's priority: a key an event queued goes before the polls", async () => {
    const calls: string[] = [];
    const { controller } = setup(['a', 'b', 'c'], async (key): Promise<ReconcileResult> => {
      calls.push(key);
      await new Promise((r) => setTimeout(r, 100));
      // Each polled again at 2 s.
      return { requeueAfterMs: 2000 - Date.now(), priority: LOW_PRIORITY };
    });
    await vi.advanceTimersByTimeAsync(350);
    expect(calls).toEqual(['a', 'b', 'c']);
    // The three polls come due at once; while the first runs, an event queues c.
    await vi.advanceTimersByTimeAsync(2050 - 350);
    controller.enqueue('c');
    await vi.advanceTimersByTimeAsync(300);
    expect(calls.slice(3)).toEqual(['a', 'c', 'b']);
  });

  it("with replaceRequeues, the latest reconcile's requeueAfter replaces the pending one, and one asking for none drops it", async () => {
    const run = async (replaceRequeues: boolean): Promise<number[]> => {
      ctl.abort();
      ctl = new AbortController();
      const start = Date.now();
      const times: number[] = [];
      const results: ReconcileResult[] = [{ requeueAfterMs: 5_000 }, { requeueAfterMs: 20_000 }, { requeueAfterMs: 5_000 }, {}];
      const { controller } = setup(
        ['a'],
        async (): Promise<ReconcileResult> => {
          times.push(Date.now() - start);
          return results[times.length - 1] ?? {};
        },
        { replaceRequeues },
      );
      // Events at 1 s and 22 s.
      await vi.advanceTimersByTimeAsync(1_000);
      controller.enqueue('a');
      await vi.advanceTimersByTimeAsync(21_000);
      controller.enqueue('a');
      await vi.advanceTimersByTimeAsync(60_000);
      return times;
    };
    // client-go's: the earliest pending delay is kept (the 20 s asked at 1 s is lost), and the event at 22 s comes on top.
    expect(await run(false)).toEqual([0, 1_000, 5_000, 10_000, 22_000]);
    // The reconcile at 1 s moves the requeue to 21 s; the one at 22 s, asking for none, drops the requeue due at 26 s.
    expect(await run(true)).toEqual([0, 1_000, 21_000, 22_000]);
  });

  it('counts programming errors as panics and retries them', async () => {
    let calls = 0;
    const { registry } = setup(['a'], async () => {
      if (calls++ === 0) (undefined as unknown as { x: number }).x;
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toBe(2);
    expect(await metric(registry, 'controller_runtime_reconcile_panics_total')).toBe(1);
  });

  it('maps events through key functions and reconciles distinct keys in parallel, one worker per key', async () => {
    vi.useRealTimers();
    let active = 0;
    let peak = 0;
    const seen: string[] = [];
    // Reconciles hold their workers until released, so the three keys run at once and owner-a
    // is still in flight when it is queued again below.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const { controller } = setup(
      ['a', 'b', 'c'],
      async (key) => {
        active++;
        peak = Math.max(peak, active);
        seen.push(key);
        await released;
        active--;
      },
      { concurrency: 3, keys: (o) => o.metadata.labels?.owner ?? '' },
    );
    await vi.waitFor(() => expect(seen).toHaveLength(3));
    expect(seen.sort()).toEqual(['owner-a', 'owner-b', 'owner-c']);
    expect(peak).toBe(3);
    controller.enqueue('owner-a');
    controller.enqueue('owner-a');
    release();
    // Nothing queued or in flight any more: the two adds made one more reconcile.
    await controller.queue.drain();
    expect(seen.filter((k) => k === 'owner-a')).toHaveLength(2);
  });

  it('on stop, waits for the in-flight reconcile (bounded) and passes it an aborted signal', async () => {
    let sawAbort = false;
    let finished = false;
    const { done } = setup(['a'], async (_key, { signal }) => {
      await new Promise<void>((r) => signal.addEventListener('abort', () => r()));
      sawAbort = true;
      await new Promise((r) => setTimeout(r, 1_000));
      finished = true;
    });
    await vi.advanceTimersByTimeAsync(10);
    let stopped = false;
    void done.then(() => (stopped = true));
    ctl.abort();
    await vi.advanceTimersByTimeAsync(500);
    expect(sawAbort).toBe(true);
    expect(stopped).toBe(false);
    await vi.advanceTimersByTimeAsync(600);
    expect(finished).toBe(true);
    expect(stopped).toBe(true);
  });

  it('runs work beside the reconciles only while none of its key runs, and a reconcile that starts meanwhile waits for it', async () => {
    const log: string[] = [];
    let finishA = (): void => undefined;
    const { controller } = setup(
      ['a'],
      async (key) => {
        log.push(`reconcile ${key} start`);
        if (key === 'a') await new Promise<void>((r) => (finishA = r));
        log.push(`reconcile ${key} end`);
      },
      { concurrency: 2 },
    );
    await vi.advanceTimersByTimeAsync(1);
    // A reconcile of a runs: nothing beside it for a.
    expect(await controller.besideReconcile('a', async () => 'written')).toBeUndefined();
    finishA();
    await vi.advanceTimersByTimeAsync(1);
    // Beside b; b queued meanwhile starts only after the write settled, even though it failed.
    let finishWrite = (): void => undefined;
    const beside = controller.besideReconcile('b', async () => {
      log.push('beside b start');
      await new Promise<void>((r) => (finishWrite = r));
      log.push('beside b end');
      throw new Error('conflict');
    });
    expect(await controller.besideReconcile('b', async () => 'second')).toBeUndefined();
    controller.enqueue('b');
    await vi.advanceTimersByTimeAsync(10);
    expect(log).toEqual(['reconcile a start', 'reconcile a end', 'beside b start']);
    finishWrite();
    await expect(beside).rejects.toThrow('conflict');
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual(['reconcile a start', 'reconcile a end', 'beside b start', 'beside b end', 'reconcile b start', 'reconcile b end']);
    expect(await controller.besideReconcile('b', async () => 'written')).toBe('written');
  });

  it('runs only once', async () => {
    const { controller, done } = setup(['a'], async () => undefined);
    ctl.abort();
    await done;
    await expect(controller.run(new AbortController().signal)).rejects.toThrow('controller test-controller can run only once');
  });

  it('gives up waiting for a stuck reconcile after shutdownTimeoutMs', async () => {
    const { done } = setup(['a'], () => new Promise(() => undefined));
    await vi.advanceTimersByTimeAsync(10);
    ctl.abort();
    let stopped = false;
    void done.then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(4_900);
    expect(stopped).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(stopped).toBe(true);
  });
});

// A source listing one ConfigMap `a` (generation 1) whose watch delivers what `push` sends.
function pushSource(): { src: ListWatchSource; push: (type: 'MODIFIED' | 'DELETED', generation: number, rv: string) => void } {
  const pending: Array<{ type: 'MODIFIED' | 'DELETED'; object: KubeObject }> = [];
  let wake = (): void => undefined;
  const obj = (generation: number, rv: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', generation, resourceVersion: rv },
  });
  const src: ListWatchSource = {
    description: 'fake',
    list: async () => ({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '1' }, items: [obj(1, '1')] }),
    watch: (o) => ({
      async *[Symbol.asyncIterator]() {
        while (!o.signal.aborted) {
          const ev = pending.shift();
          if (ev !== undefined) yield ev;
          else await new Promise<void>((r) => (wake = r));
        }
      },
    }),
  };
  return {
    src,
    push: (type, generation, rv) => {
      pending.push({ type, object: obj(generation, rv) });
      wake();
    },
  };
}

describe('Controller cancellation and limit backoff', () => {
  function start(reconcile: Reconciler['reconcile'], limitRetryFloorMs?: number) {
    const { src, push } = pushSource();
    const registry = new Registry();
    const { log, lines } = captureLog();
    const informer = new Informer({ name: 'cm', source: src, log, resyncPeriodMs: 0 });
    const cancels = (type: string, obj: Readonly<KubeObject>, old: Readonly<KubeObject> | undefined): string | undefined =>
      type === 'delete' ? 'deleted' : obj.metadata.generation !== old?.metadata.generation ? 'generation changed' : undefined;
    const controller = new Controller({
      name: 'test-controller',
      reconciler: { reconcile },
      log,
      registry,
      watches: [{ informer, cancels }],
      ...(limitRetryFloorMs === undefined ? {} : { limitRetryFloorMs }),
    });
    void informer.run(ctl.signal);
    void controller.run(ctl.signal);
    return { push, registry, lines, controller };
  }

  // Resolves when `signal` aborts, rejecting with its reason as abortable operations do.
  const untilAborted = (signal: AbortSignal): Promise<never> =>
    new Promise((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));

  it('aborts the reconcile in flight when an event cancels it, then reconciles the key again at once', async () => {
    const reasons: unknown[] = [];
    const starts: number[] = [];
    const { push, registry, lines, controller } = start(async (_key, { signal }) => {
      starts.push(Date.now());
      if (starts.length > 1) return;
      try {
        await untilAborted(signal);
      } catch (err) {
        reasons.push(err);
        throw err;
      }
    });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(starts).toEqual([0]);
    push('MODIFIED', 1, '2'); // no spec change: nothing cancelled, the key waits for the worker
    await vi.advanceTimersByTimeAsync(1_000);
    expect(reasons).toEqual([]);
    push('MODIFIED', 2, '3');
    await vi.advanceTimersByTimeAsync(1);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(ReconcileCancelledError);
    expect((reasons[0] as Error).message).toBe('reconcile cancelled: generation changed');
    expect(starts).toEqual([0, 2_000]); // no backoff
    expect(controller.queue.numRequeues('a')).toBe(0);
    expect(await metric(registry, 'controller_runtime_reconcile_errors_total')).toBe(0);
    expect(lines.find((l) => l.msg === 'reconcile cancelled')).toMatchObject({ key: 'a', reason: 'reconcile cancelled: generation changed' });
  });

  it('cancels on delete, and leaves an ignored cancellation to the result the reconcile returns', async () => {
    let calls = 0;
    let aborted = false;
    let release = (): void => undefined;
    const { push, registry } = start(async (_key, { signal }) => {
      if (calls++ > 0) return;
      await new Promise<void>((r) => (release = r)); // does not watch the signal
      aborted = signal.aborted;
      return { requeueAfterMs: 60_000 };
    });
    await vi.advanceTimersByTimeAsync(10);
    push('DELETED', 1, '2');
    await vi.advanceTimersByTimeAsync(10);
    release();
    await vi.advanceTimersByTimeAsync(10);
    expect(aborted).toBe(true);
    expect(calls).toBe(2);
    expect(await metric(registry, 'controller_runtime_reconcile_total', { result: 'requeue_after' })).toBe(1);
  });

  it('retries a failure for a resource limit no sooner than limitRetryFloorMs, other failures with the usual backoff', async () => {
    const times: number[] = [];
    start(async () => {
      times.push(Date.now());
      if (times.length <= 2) throw new Error('ingest failed', { cause: new LimitExceededError('took too long') });
      if (times.length === 3) throw new Error('connection refused');
    }, 30_000);
    await vi.advanceTimersByTimeAsync(100_000);
    // Floor, floor (the exponential delays are shorter), then the limiter's third delay (20 ms).
    expect(times).toEqual([0, 30_000, 60_000, 60_020]);
  });
});

describe('Controller pacing (Watch.paceMs)', () => {
  function start(reconcile: Reconciler['reconcile']) {
    const { src, push } = pushSource();
    const { log } = captureLog();
    const informer = new Informer({ name: 'cm', source: src, log, resyncPeriodMs: 0 });
    const controller = new Controller({
      name: 'test-controller',
      reconciler: { reconcile },
      log,
      watches: [{ informer, keys: () => 'cluster', paceMs: 1_000 }],
    });
    void informer.run(ctl.signal);
    void controller.run(ctl.signal);
    return { push, controller };
  }

  it('reconciles a burst of events once per interval, the first event of a quiet spell at once', async () => {
    const starts: number[] = [];
    const { push, controller } = start(async () => {
      starts.push(Date.now());
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(starts).toEqual([0]); // the informer's list
    // Ten events 50 ms apart, within the second after that reconcile: one reconcile when it has passed.
    for (let i = 0; i < 10; i++) {
      push('MODIFIED', 1, String(i + 2));
      await vi.advanceTimersByTimeAsync(50);
    }
    expect(starts).toEqual([0]);
    await vi.advanceTimersByTimeAsync(500);
    expect(starts).toEqual([0, 1_000]);
    // Quiet for longer than the interval: the next event is reconciled at once.
    await vi.advanceTimersByTimeAsync(5_000);
    push('MODIFIED', 1, '20');
    await vi.advanceTimersByTimeAsync(1);
    expect(starts).toEqual([0, 1_000, 6_010]);
    // Keys queued by other means are not paced.
    controller.enqueue('cluster');
    await vi.advanceTimersByTimeAsync(1);
    expect(starts).toEqual([0, 1_000, 6_010, 6_011]);
  });

  it('counts the interval from the start of a reconcile that outlasts it: the next runs right after', async () => {
    const spans: Array<[number, number]> = [];
    const { push } = start(async () => {
      const begun = Date.now();
      await new Promise((r) => setTimeout(r, 1_500));
      spans.push([begun, Date.now()]);
    });
    await vi.advanceTimersByTimeAsync(100);
    push('MODIFIED', 1, '2');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(spans).toEqual([
      [0, 1_500],
      [1_500, 3_000],
    ]);
  });
});
