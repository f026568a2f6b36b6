import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { err, ok, type Result } from '../errors/index.ts';
import { ApiError, type KubeObject } from '../kube/index.ts';
import type { ReconcileContext } from './reconciler.ts';
import type { StatusClient } from './status-writer.ts';
import { StepReconciler } from './step-reconciler.ts';
import { POLL, type Step } from './steps.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';

/** The typed object of the tests: what a parser of the API module returns. */
interface Thing {
  metadata: { name: string; finalizers?: string[] };
  spec: { wait: boolean; fail: boolean };
  status?: { seen?: number };
}

function parseThing(input: unknown): Result<Thing, string> {
  const o = input as KubeObject & { spec?: Partial<Thing['spec']> };
  if (typeof o.spec?.wait !== 'boolean') return err('Thing "t" is invalid: spec.wait: expected boolean');
  return ok({
    metadata: { name: o.metadata.name ?? '', ...(o.metadata.finalizers ? { finalizers: o.metadata.finalizers } : {}) },
    spec: { wait: o.spec.wait, fail: o.spec.fail === true },
    ...(o.status ? { status: o.status } : {}),
  });
}

// One stored object; status PUTs and finalizer patches are recorded and applied.
function cluster(spec: Record<string, unknown>) {
  let stored: KubeObject = { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't', resourceVersion: '1' }, spec };
  const writes: string[] = [];
  const client = {
    get: async <T extends KubeObject>() => structuredClone(stored) as T,
    updateStatus: async <T extends KubeObject>(obj: KubeObject) => {
      writes.push(`status ${JSON.stringify(obj.status)}`);
      stored = { ...stored, status: obj.status };
      return structuredClone(stored) as T;
    },
    patch: async <T extends KubeObject>(_ref: unknown, body: { metadata: { finalizers: string[] } }) => {
      writes.push(`finalizers ${body.metadata.finalizers.join(',')}`);
      stored = { ...stored, metadata: { ...stored.metadata, finalizers: body.metadata.finalizers } };
      return structuredClone(stored) as T;
    },
  } satisfies StatusClient;
  return { client, writes, set: (s: Record<string, unknown>) => (stored = { ...stored, spec: s }) };
}

const ctx = (): ReconcileContext => ({ signal: new AbortController().signal, log: pino({ level: 'silent' }) });

function reconciler(client: StatusClient, ran: string[], errors: string[] = []) {
  const steps: Step<{ thing: Thing; held: DisposableStack }>[] = [
    {
      name: 'count',
      run: (s) => {
        ran.push('count');
        // Held until the reconcile ends, whatever happens.
        s.held.defer(() => ran.push('released'));
        s.thing.status = { seen: (s.thing.status?.seen ?? 0) + 1 };
        return undefined;
      },
    },
    {
      name: 'gate',
      run: (s) => {
        ran.push('gate');
        if (s.thing.spec.fail) throw new Error('gate failed');
        return s.thing.spec.wait ? POLL : undefined;
      },
    },
    {
      name: 'finalizer',
      run: (s) => {
        ran.push('finalizer');
        s.thing.metadata.finalizers = ['example.com/cleanup'];
        return { requeueAfterMs: 60_000 };
      },
    },
    {
      name: 'finish',
      always: true,
      run: (s) => {
        ran.push(`finish ${s.thing.status?.seen ?? 0}`);
        return undefined;
      },
    },
  ];
  return new StepReconciler<Thing, { thing: Thing; held: DisposableStack }>({
    client,
    type: { apiVersion: 'example.com/v1', kind: 'Thing' },
    parse: parseThing,
    state: (thing, _ctx, held) => ({ thing, held }),
    steps,
    poll: { initialMs: 100, maxMs: 250 },
    onError: (name, e) => errors.push(`${name}: ${(e as Error).message}`),
  });
}

describe('StepReconciler', () => {
  it('runs the steps on the typed working copy, releases what they held, and writes status and finalizers once', async () => {
    const { client, writes } = cluster({ wait: false });
    const ran: string[] = [];
    await expect(reconciler(client, ran).reconcile('t', ctx())).resolves.toEqual({ requeueAfterMs: 60_000 });
    expect(ran).toEqual(['count', 'gate', 'finalizer', 'finish 1', 'released']);
    expect(writes).toEqual(['status {"seen":1}', 'finalizers example.com/cleanup']);
  });

  it('logs at debug level the time of each step that ran, failed steps included', async () => {
    const { client } = cluster({ wait: false, fail: true });
    const lines: Array<{ msg?: string; steps?: Record<string, number>; ms?: number }> = [];
    const log = pino({ level: 'debug' }, { write: (l: string) => void lines.push(JSON.parse(l) as (typeof lines)[number]) });
    await expect(reconciler(client, []).reconcile('t', { signal: new AbortController().signal, log })).rejects.toThrow('gate failed');
    const traced = lines.find((l) => l.msg === 'reconcile steps');
    expect(Object.keys(traced?.steps ?? {})).toEqual(['count', 'gate', 'finish']);
    expect(typeof traced?.ms).toBe('number');
  });

  it('turns POLL into a poll period that doubles per consecutive wait and starts over after one without', async () => {
    const { client, set } = cluster({ wait: true });
    const ran: string[] = [];
    const r = reconciler(client, ran);
    const periods = [];
    for (let i = 0; i < 4; i++) periods.push(await r.reconcile('t', ctx()));
    expect(periods).toEqual([{ requeueAfterMs: 100 }, { requeueAfterMs: 200 }, { requeueAfterMs: 250 }, { requeueAfterMs: 250 }]);
    expect(ran.filter((s) => s === 'finalizer')).toEqual([]);
    set({ wait: false });
    await r.reconcile('t', ctx());
    set({ wait: true });
    await expect(r.reconcile('t', ctx())).resolves.toEqual({ requeueAfterMs: 100 });
  });

  it('writes status when a step throws, releases what the steps held, rethrows, and tells onError', async () => {
    const { client, writes } = cluster({ wait: false, fail: true });
    const errors: string[] = [];
    const ran: string[] = [];
    await expect(reconciler(client, ran, errors).reconcile('t', ctx())).rejects.toThrow('gate failed');
    // The always step runs however the steps ended, and what they held is released after it.
    expect(ran).toEqual(['count', 'gate', 'finish 1', 'released']);
    expect(writes).toEqual(['status {"seen":1}']);
    expect(errors).toEqual(['t: gate failed']);
  });

  it('fails terminally, writing nothing, for an object that does not parse', async () => {
    const { client, writes } = cluster({ wait: 'yes' });
    const ran: string[] = [];
    await expect(reconciler(client, ran).reconcile('t', ctx())).rejects.toMatchObject({
      name: 'TerminalError',
      message: 'Thing "t" is invalid: spec.wait: expected boolean',
    });
    expect(ran).toEqual([]);
    expect(writes).toEqual([]);
  });

  it('does nothing for an object that is gone', async () => {
    const client: StatusClient = { ...cluster({}).client, get: async () => Promise.reject(new ApiError(404, 'NotFound', 'gone')) };
    const ran: string[] = [];
    await expect(reconciler(client, ran).reconcile('t', ctx())).resolves.toBeUndefined();
    expect(ran).toEqual([]);
  });
});

describe('StepReconciler of a namespaced kind', () => {
  it('reads and writes the object its namespace/name key names', async () => {
    const refs: unknown[] = [];
    const stored: KubeObject = {
      apiVersion: 'example.com/v1',
      kind: 'Thing',
      metadata: { name: 't', namespace: 'team-a', resourceVersion: '1' },
      spec: { wait: false },
    };
    const client = {
      get: async <T extends KubeObject>(ref: unknown) => {
        refs.push(ref);
        return structuredClone(stored) as T;
      },
      updateStatus: async <T extends KubeObject>(obj: KubeObject) => obj as T,
      patch: async <T extends KubeObject>(ref: unknown) => {
        refs.push(ref);
        return structuredClone(stored) as T;
      },
    } satisfies StatusClient;
    const r = new StepReconciler<Thing, { thing: Thing }>({
      client,
      type: { apiVersion: 'example.com/v1', kind: 'Thing' },
      namespaced: true,
      parse: parseThing,
      state: (thing) => ({ thing }),
      steps: [{ name: 'finalize', run: (s) => void (s.thing.metadata.finalizers = ['example.com/f']) }],
    });
    await r.reconcile('team-a/t', ctx());
    expect(refs).toEqual([
      { apiVersion: 'example.com/v1', kind: 'Thing', namespace: 'team-a', name: 't' },
      { apiVersion: 'example.com/v1', kind: 'Thing', namespace: 'team-a', name: 't' },
    ]);
  });
});

describe('StepReconciler reading the informer copy (issue 74)', () => {
  it('reads the cached copy instead of the API server, the answer to its own last write while the copy is behind it, nothing once it is gone', async () => {
    const fc = fakeCluster();
    const ref = { kind: 'Thing', metadata: { name: 't' } };
    fc.seed({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't' }, spec: { wait: false } });
    let copy = fc.live(ref);
    const r = new StepReconciler<Thing, { thing: Thing }>({
      client: fc.client,
      type: { apiVersion: 'example.com/v1', kind: 'Thing' },
      parse: parseThing,
      state: (thing) => ({ thing }),
      steps: [{ name: 'count', run: (s) => void (s.thing.status = { seen: (s.thing.status?.seen ?? 0) + 1 }) }],
      cached: () => copy,
    });
    const seen = (): unknown => (fc.live(ref)?.['status'] as Thing['status'])?.seen;

    await r.reconcile('t', ctx());
    expect(fc.calls).toEqual(['status Thing t']);
    expect(seen()).toBe(1);

    // The copy is still the one the write was made on: the write's answer stands for it, no GET, not counted twice.
    fc.calls.length = 0;
    await r.reconcile('t', ctx());
    expect(fc.calls).toEqual(['status Thing t']);
    expect(seen()).toBe(2);

    // Still behind both writes: the answer to the last one.
    fc.calls.length = 0;
    await r.reconcile('t', ctx());
    expect(fc.calls).toEqual(['status Thing t']);
    expect(seen()).toBe(3);

    // A write that failed (another writer came between): the API server is asked.
    fc.edit(ref, (live) => void (live['spec'] = { wait: false, by: 'someone' }));
    fc.calls.length = 0;
    await expect(r.reconcile('t', ctx())).rejects.toThrow(/error updating status/);
    fc.calls.length = 0;
    await r.reconcile('t', ctx());
    expect(fc.calls).toEqual(['get Thing t', 'status Thing t']);
    expect(seen()).toBe(4);

    // The informer caught up: its copy again.
    copy = fc.live(ref);
    fc.calls.length = 0;
    await r.reconcile('t', ctx());
    expect(fc.calls).toEqual(['status Thing t']);
    expect(seen()).toBe(5);

    // Gone from the cache (deleted): gone, as the cache says; nothing read, nothing written.
    copy = undefined;
    fc.objects.delete('Thing t');
    fc.calls.length = 0;
    await expect(r.reconcile('t', ctx())).resolves.toBeUndefined();
    expect(fc.calls).toEqual([]);
  });
});
