import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  Informer,
  stripManagedFields,
  type InformerEventType,
  type KubeObject,
  type ListWatchSource,
  type ObjectList,
  type WatchEvent,
} from './index.ts';

const log = pino({ level: 'silent' });

function obj(name: string, rv: number, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: String(rv) }, ...extra };
}

// One open watch of the fake: the test pushes events into it or ends/fails it.
interface FakeWatch {
  resourceVersion: string;
  signal: AbortSignal;
  push(ev: WatchEvent): void;
  end(): void;
  fail(err: Error): void;
}

// A hand-written list/watch source: the "server" state is `objects` + `rv`; failures are
// injected per call.
class FakeSource implements ListWatchSource {
  readonly description = 'fake';
  objects = new Map<string, KubeObject>();
  rv = 10;
  listCalls: number[] = [];
  listErrors: Error[] = [];
  watches: FakeWatch[] = [];

  set(o: KubeObject): void {
    this.objects.set(o.metadata.name as string, o);
  }

  async list(): Promise<ObjectList> {
    this.listCalls.push(Date.now());
    const err = this.listErrors.shift();
    if (err !== undefined) throw err;
    return {
      apiVersion: 'v1',
      kind: 'List',
      metadata: { resourceVersion: String(this.rv) },
      items: [...this.objects.values()].map((o) => structuredClone(o)),
    };
  }

  watch(o: { resourceVersion: string; signal: AbortSignal }): AsyncIterable<WatchEvent> {
    const buffered: Array<WatchEvent | Error | 'end'> = [];
    let wake: (() => void) | undefined;
    const put = (x: WatchEvent | Error | 'end'): void => {
      buffered.push(x);
      wake?.();
    };
    const w: FakeWatch = {
      resourceVersion: o.resourceVersion,
      signal: o.signal,
      push: (ev) => put(structuredClone(ev)),
      end: () => put('end'),
      fail: (e) => put(e),
    };
    this.watches.push(w);
    o.signal.addEventListener('abort', () => put(o.signal.reason instanceof Error ? o.signal.reason : new Error('aborted')));
    return {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          while (buffered.length === 0) await new Promise<void>((r) => (wake = r));
          const next = buffered.shift() as WatchEvent | Error | 'end';
          if (next === 'end') return;
          if (next instanceof Error) throw next;
          yield next;
        }
      },
    };
  }

  get lastWatch(): FakeWatch {
    const w = this.watches.at(-1);
    if (w === undefined) throw new Error('no watch opened');
    return w;
  }
}

// The same fake delivering its events through the push form (ListWatchSource.watchEvents).
class PushSource extends FakeSource {
  pushed = 0;
  async watchEvents(o: { resourceVersion: string; signal: AbortSignal }, onEvent: (ev: WatchEvent) => void): Promise<void> {
    for await (const ev of this.watch(o)) {
      this.pushed++;
      onEvent(ev);
    }
  }
}

// The same fake listing through the streamed form (ListWatchSource.listEach): pages of `limit`
// items handed over one at a time, a continue token between pages; `failPage` fails that page of
// the next list (after the pages before it were handed over).
class StreamingListSource extends FakeSource {
  pages: Array<string | undefined> = [];
  failPage: number | undefined;
  override list(): Promise<ObjectList> {
    throw new Error('list must not be called when listEach is offered');
  }
  async listEach(o: { limit: number; continue?: string }, onItem: (item: KubeObject) => void): Promise<Omit<ObjectList, 'items'>> {
    if (o.continue === undefined) this.listCalls.push(Date.now());
    this.pages.push(o.continue);
    const from = Number(o.continue ?? 0);
    if (this.failPage !== undefined && from / o.limit === this.failPage) {
      this.failPage = undefined;
      throw new Error('connection reset');
    }
    const all = [...this.objects.values()];
    for (const item of all.slice(from, from + o.limit)) onItem(structuredClone(item));
    const next = from + o.limit < all.length ? String(from + o.limit) : undefined;
    return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: String(this.rv), ...(next === undefined ? {} : { continue: next }) } };
  }
}

type Seen = Array<[InformerEventType, string, string | undefined, string | undefined]>;

function record(informer: Informer): Seen {
  const seen: Seen = [];
  informer.addHandler((type, o, old) => seen.push([type, o.metadata.name as string, o.metadata.resourceVersion, old?.metadata.resourceVersion]));
  return seen;
}

const gone = (): ApiError => new ApiError(410, 'Expired', 'too old resource version: 1 (5)');

let ctl: AbortController;
beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  ctl = new AbortController();
});
afterEach(async () => {
  ctl.abort();
  await vi.runOnlyPendingTimersAsync();
  vi.useRealTimers();
});

const settle = async (): Promise<void> => {
  await vi.advanceTimersByTimeAsync(0);
};

describe('Informer', () => {
  it('lists, reports synced, delivers adds and hands out frozen objects', async () => {
    const src = new FakeSource();
    src.set(obj('a', 1));
    src.set(obj('b', 2));
    const inf = new Informer({ name: 't', source: src, log, resyncPeriodMs: 0 });
    const seen = record(inf);
    expect(inf.hasSynced).toBe(false);
    void inf.run(ctl.signal);
    await inf.waitForSync();
    expect(inf.hasSynced).toBe(true);
    expect(seen).toEqual([
      ['add', 'a', '1', undefined],
      ['add', 'b', '2', undefined],
    ]);
    const cached = inf.get('ns/a') as KubeObject;
    expect(() => {
      cached.metadata.name = 'changed';
    }).toThrow(TypeError);
    await settle();
    expect(src.lastWatch.resourceVersion).toBe('10');
  });

  it.each([
    ['iterated', (): FakeSource => new FakeSource()],
    ['pushed (watchEvents, what clientListWatch offers)', (): FakeSource => new PushSource()],
  ])('applies watch events %s, tracks the resourceVersion through bookmarks and re-watches from it', async (_how, source) => {
    const src = source();
    src.set(obj('a', 1));
    const inf = new Informer({ name: 't', source: src, log, resyncPeriodMs: 0 });
    const seen = record(inf);
    void inf.run(ctl.signal);
    await settle();
    src.lastWatch.push({ type: 'ADDED', object: obj('b', 11) });
    src.lastWatch.push({ type: 'MODIFIED', object: obj('a', 12) });
    src.lastWatch.push({ type: 'DELETED', object: obj('b', 13) });
    src.lastWatch.push({ type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '20' } } });
    await settle();
    expect(seen.slice(1)).toEqual([
      ['add', 'b', '11', undefined],
      ['update', 'a', '12', '1'],
      ['delete', 'b', '13', '11'],
    ]);
    expect(inf.keys()).toEqual(['ns/a']);
    src.lastWatch.end(); // server-side timeout: watch again without relisting
    await settle();
    expect(src.watches).toHaveLength(2);
    expect(src.lastWatch.resourceVersion).toBe('20');
    expect(src.listCalls).toHaveLength(1);
    if (src instanceof PushSource) expect(src.pushed).toBe(4);
  });

  it('relists on 410 Gone and emits synthetic deletes, adds and updates for what changed meanwhile', async () => {
    const registry = new Registry();
    const src = new FakeSource();
    src.set(obj('keep', 1));
    src.set(obj('change', 2));
    src.set(obj('vanish', 3));
    const inf = new Informer({ name: 't', source: src, log, registry, resyncPeriodMs: 0 });
    const seen = record(inf);
    void inf.run(ctl.signal);
    await settle();
    seen.length = 0;
    src.objects.delete('vanish');
    src.set(obj('change', 30));
    src.set(obj('new', 31));
    src.rv = 40;
    src.lastWatch.fail(gone());
    await settle();
    expect(src.listCalls).toHaveLength(2);
    expect(seen).toEqual([
      ['delete', 'vanish', '3', '3'],
      ['update', 'change', '30', '2'],
      ['add', 'new', '31', undefined],
    ]);
    expect(src.lastWatch.resourceVersion).toBe('40');
    const restarts = await registry.getSingleMetric('informer_restarts_total')?.get();
    expect(restarts?.values).toEqual([expect.objectContaining({ labels: { name: 't', reason: 'gone' }, value: 1 })]);
  });

  it('lists through the streamed form page by page, each item transformed on arrival, and applies a relist only once it is whole', async () => {
    const src = new StreamingListSource();
    for (let i = 0; i < 5; i++) src.set(obj(`o${i}`, i + 1));
    const transformed: string[] = [];
    const transform = (o: KubeObject): KubeObject => {
      transformed.push(o.metadata.name as string);
      return {
        apiVersion: o.apiVersion,
        kind: o.kind,
        metadata: { name: o.metadata.name, namespace: 'ns', resourceVersion: o.metadata.resourceVersion },
      };
    };
    const inf = new Informer({
      name: 't',
      source: src,
      log,
      resyncPeriodMs: 0,
      pageSize: 2,
      transform,
      backoff: { initialMs: 100, maxMs: 100, random: () => 0 },
    });
    const seen = record(inf);
    void inf.run(ctl.signal);
    await inf.waitForSync();
    expect(src.pages).toEqual([undefined, '2', '4']);
    expect(transformed).toEqual(['o0', 'o1', 'o2', 'o3', 'o4']);
    expect(inf.keys()).toHaveLength(5);
    await settle();

    // A relist whose second page fails changes nothing; the retried one applies what changed.
    seen.length = 0;
    src.objects.delete('o0');
    src.set(obj('o1', 20));
    src.rv = 30;
    src.failPage = 1;
    src.pages = [];
    src.lastWatch.fail(gone());
    await settle();
    expect(src.pages).toEqual([undefined, '2']);
    expect(seen).toEqual([]);
    expect(inf.keys()).toHaveLength(5);
    await vi.advanceTimersByTimeAsync(100);
    expect(src.pages).toEqual([undefined, '2', undefined, '2']);
    expect(seen).toEqual([
      ['delete', 'o0', '1', '1'],
      ['update', 'o1', '20', '2'],
    ]);
    expect(src.lastWatch.resourceVersion).toBe('30');
  });

  it('retries failed lists with growing backoff, never rejecting, and counts errors', async () => {
    const registry = new Registry();
    const src = new FakeSource();
    src.listErrors = [new Error('connect ECONNREFUSED'), new Error('connect ECONNREFUSED'), new Error('connect ECONNREFUSED')];
    const inf = new Informer({ name: 't', source: src, log, registry, resyncPeriodMs: 0, backoff: { initialMs: 100, maxMs: 300, random: () => 0 } });
    const done = inf.run(ctl.signal);
    await vi.advanceTimersByTimeAsync(1000);
    expect(src.listCalls).toEqual([0, 100, 300, 600]); // delays 100, 200, 300 (capped)
    expect(inf.hasSynced).toBe(true);
    const listErrors = await registry.getSingleMetric('informer_list_errors_total')?.get();
    expect(listErrors?.values[0]?.value).toBe(3);
    ctl.abort();
    await expect(done).resolves.toBeUndefined();
  });

  it('logs a failure that repeats at every backoff at warn when it starts and changes, at debug in between', async () => {
    const logged: { level: number; msg: string; err?: { message: string } }[] = [];
    const capture = pino({ level: 'debug' }, { write: (line: string) => logged.push(JSON.parse(line) as (typeof logged)[number]) });
    const src = new FakeSource();
    const refused = new Error('secrets is forbidden');
    src.listErrors = [refused, refused, refused, new Error('connect ECONNREFUSED')];
    const inf = new Informer({ name: 't', source: src, log: capture, resyncPeriodMs: 0, backoff: { initialMs: 100, maxMs: 100, random: () => 0 } });
    void inf.run(ctl.signal);
    await vi.advanceTimersByTimeAsync(1000);
    expect(inf.hasSynced).toBe(true);
    expect(logged.map((l) => [l.level === 40 ? 'warn' : l.level === 20 ? 'debug' : 'info', l.msg, l.err?.message])).toEqual([
      ['warn', 'informer failed, restarting after backoff', 'secrets is forbidden'],
      ['debug', 'informer failed, restarting after backoff', 'secrets is forbidden'],
      ['debug', 'informer failed, restarting after backoff', 'secrets is forbidden'],
      ['warn', 'informer failed, restarting after backoff', 'connect ECONNREFUSED'],
      ['info', 'informer recovered', undefined],
    ]);
  });

  it('backs off instead of spinning when watches keep failing, and resets after a healthy watch', async () => {
    const src = new FakeSource();
    const inf = new Informer({ name: 't', source: src, log, resyncPeriodMs: 0, backoff: { initialMs: 100, maxMs: 10_000, random: () => 0 } });
    void inf.run(ctl.signal);
    await settle();
    src.lastWatch.fail(new Error('stream reset'));
    await vi.advanceTimersByTimeAsync(99);
    expect(src.listCalls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(src.listCalls).toHaveLength(2);
    src.lastWatch.fail(new Error('stream reset'));
    await vi.advanceTimersByTimeAsync(199);
    expect(src.listCalls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(src.listCalls).toHaveLength(3);
    src.lastWatch.push({ type: 'ADDED', object: obj('x', 11) }); // healthy: backoff resets
    src.lastWatch.fail(new Error('stream reset'));
    await vi.advanceTimersByTimeAsync(100);
    expect(src.listCalls).toHaveLength(4);
  });

  it('treats a watch the server closes at once without events as a failure (no busy loop)', async () => {
    const src = new FakeSource();
    const inf = new Informer({ name: 't', source: src, log, resyncPeriodMs: 0, backoff: { initialMs: 500, random: () => 0 } });
    void inf.run(ctl.signal);
    await settle();
    src.lastWatch.end();
    await vi.advanceTimersByTimeAsync(499);
    expect(src.watches).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(src.listCalls).toHaveLength(2);
    expect(src.watches).toHaveLength(2);
  });

  it('aborts a silent watch after the watchdog period and re-watches from the same version', async () => {
    const registry = new Registry();
    const src = new FakeSource();
    const inf = new Informer({ name: 't', source: src, log, registry, resyncPeriodMs: 0, watchdogMs: 60_000 });
    void inf.run(ctl.signal);
    await settle();
    const first = src.lastWatch;
    await vi.advanceTimersByTimeAsync(30_000);
    first.push({ type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '15' } } });
    await vi.advanceTimersByTimeAsync(59_000); // the bookmark re-armed the watchdog
    expect(first.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(first.signal.aborted).toBe(true);
    expect(src.watches).toHaveLength(2);
    expect(src.lastWatch.resourceVersion).toBe('15');
    expect(src.listCalls).toHaveLength(1);
    const restarts = await registry.getSingleMetric('informer_restarts_total')?.get();
    expect(restarts?.values[0]).toMatchObject({ labels: { reason: 'watchdog' }, value: 1 });
  });

  it('re-delivers every cached object as an update on each resync period', async () => {
    const src = new FakeSource();
    src.set(obj('a', 1));
    src.set(obj('b', 2));
    const inf = new Informer({ name: 't', source: src, log, resyncPeriodMs: 5_000, watchdogMs: 60_000 });
    const seen = record(inf);
    void inf.run(ctl.signal);
    await settle();
    seen.length = 0;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(seen).toEqual([
      ['update', 'a', '1', '1'],
      ['update', 'b', '2', '2'],
    ]);
  });

  it('survives throwing handlers, applies the transform and replays the cache to late handlers', async () => {
    const src = new FakeSource();
    src.set(
      obj('a', 1, {
        metadata: {
          name: 'a',
          namespace: 'ns',
          resourceVersion: '1',
          managedFields: [{}],
          annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', keep: 'me' },
        },
      }),
    );
    const inf = new Informer({ name: 't', source: src, log, resyncPeriodMs: 0, transform: stripManagedFields });
    inf.addHandler(() => {
      throw new Error('handler bug');
    });
    void inf.run(ctl.signal);
    await settle();
    src.lastWatch.push({ type: 'ADDED', object: obj('b', 11) });
    await settle();
    expect(inf.keys().sort()).toEqual(['ns/a', 'ns/b']);
    expect(inf.get('ns/a')?.metadata).toEqual({ name: 'a', namespace: 'ns', resourceVersion: '1', annotations: { keep: 'me' } });
    const late = record(inf);
    expect(late.map((e) => e[0] + e[1]).sort()).toEqual(['adda', 'addb']);
  });

  it('waitForSync rejects when its signal aborts first; run resolves on abort', async () => {
    const src = new FakeSource();
    src.listErrors = [new Error('down')];
    const inf = new Informer({ name: 't', source: src, log, resyncPeriodMs: 0, backoff: { initialMs: 10_000, random: () => 0 } });
    const done = inf.run(ctl.signal);
    const waiter = new AbortController();
    const waiting = inf.waitForSync(waiter.signal);
    waiter.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    expect(() => inf.run(ctl.signal)).toThrow('already running');
    ctl.abort();
    await expect(done).resolves.toBeUndefined();
    expect(src.listCalls).toHaveLength(1);
  });
});
