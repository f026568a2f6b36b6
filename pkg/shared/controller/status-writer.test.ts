import { describe, expect, it } from 'vitest';
import { TerminalError, isTerminal } from '../errors/index.ts';
import { ApiError, type KubeObject, type ObjectRef } from '../kube/index.ts';
import { PanicError, type ReconcileResult } from './reconciler.ts';
import { joinErrors, reconcileParsedWithStatus, type StatusClient } from './status-writer.ts';

interface Obj extends KubeObject {
  spec: { a: number };
  status?: { conditions?: unknown[]; n?: number };
}

// A client over one stored object that records status PUTs and finalizer patches and can be
// told to fail them.
function store(initial: Obj | undefined, fail: { status?: ApiError; patch?: ApiError } = {}) {
  let current = initial === undefined ? undefined : structuredClone(initial);
  const writes: Array<{ kind: 'status' | 'patch'; body: unknown }> = [];
  const fake = {
    get: async <T extends KubeObject>() => {
      if (current === undefined) throw new ApiError(404, 'NotFound', 'not found');
      return structuredClone(current as KubeObject) as T;
    },
    updateStatus: async <T extends KubeObject>(obj: KubeObject) => {
      writes.push({ kind: 'status', body: structuredClone(obj) });
      if (fail.status !== undefined) throw fail.status;
      current = { ...(current as Obj), status: structuredClone((obj as Obj).status), metadata: { ...current?.metadata, resourceVersion: '2' } };
      return structuredClone(current as KubeObject) as T;
    },
    patch: async <T extends KubeObject>(_ref: ObjectRef, body: unknown) => {
      writes.push({ kind: 'patch', body });
      if (fail.patch !== undefined) throw fail.patch;
      return structuredClone(current as KubeObject) as T;
    },
  } satisfies StatusClient;
  return { client: fake, writes };
}

// The write pattern over unparsed objects: every stored object parses as itself.
function reconcileWithStatus<T extends KubeObject>(req: {
  client: StatusClient;
  ref: ObjectRef;
  reconcile: (w: T) => Promise<ReconcileResult | void>;
}) {
  return reconcileParsedWithStatus<T, ReconcileResult | void>({ ...req, parse: (input) => ({ ok: true, value: input as T }) });
}

const ref = { apiVersion: 'example.com/v1', kind: 'Thing', name: 't' };
const obj = (): Obj => ({
  apiVersion: 'example.com/v1',
  kind: 'Thing',
  metadata: { name: 't', resourceVersion: '1', finalizers: ['keep'] },
  spec: { a: 1 },
  status: { n: 1 },
});

describe('reconcileWithStatus', () => {
  it('does nothing for a missing object', async () => {
    const { client, writes } = store(undefined);
    let called = false;
    await expect(reconcileWithStatus<Obj>({ client, ref, reconcile: async () => void (called = true) })).resolves.toBeUndefined();
    expect(called).toBe(false);
    expect(writes).toEqual([]);
  });

  it('writes nothing when status and finalizers are unchanged', async () => {
    const { client, writes } = store(obj());
    const result = await reconcileWithStatus<Obj>({ client, ref, reconcile: async (w) => ({ requeueAfterMs: w.status?.n ?? 0 }) });
    expect(result).toEqual({ requeueAfterMs: 1 });
    expect(writes).toEqual([]);
  });

  it('PUTs status on change and merge-patches finalizers with the newest resourceVersion', async () => {
    const original = obj();
    const { client, writes } = store(original);
    await reconcileWithStatus<Obj>({
      client,
      ref,
      reconcile: async (w) => {
        w.status = { n: 2 };
        w.metadata.finalizers = ['keep', 'olm.operatorframework.io/cleanup'];
      },
    });
    expect(writes).toEqual([
      { kind: 'status', body: expect.objectContaining({ status: { n: 2 } }) },
      { kind: 'patch', body: { metadata: { finalizers: ['keep', 'olm.operatorframework.io/cleanup'], resourceVersion: '2' } } },
    ]);
    expect(original.status).toEqual({ n: 1 }); // reconcile ran on a copy
  });

  it('writes status even when the reconcile failed and joins the errors', async () => {
    const { client, writes } = store(obj(), { status: new ApiError(409, 'Conflict', 'the object has been modified') });
    const err = await reconcileWithStatus<Obj>({
      client,
      ref,
      reconcile: async (w) => {
        w.status = { n: 3 };
        throw new Error('resolution failed');
      },
    }).catch((e: unknown) => e);
    expect(writes.map((w) => w.kind)).toEqual(['status']);
    expect((err as Error).message).toBe('resolution failed\nerror updating status: the object has been modified');
  });

  it('keeps terminal errors terminal when joined and reports finalizer failures', async () => {
    const { client } = store(obj(), { patch: new ApiError(409, 'Conflict', 'conflict') });
    const err = await reconcileWithStatus<Obj>({
      client,
      ref,
      reconcile: async (w) => {
        w.metadata.finalizers = [];
        throw new TerminalError('bad image reference', { reason: 'Blocked' });
      },
    }).catch((e: unknown) => e);
    expect(isTerminal(err)).toBe(true);
    expect((err as Error).message).toBe('bad image reference\nerror updating finalizers: conflict');
  });

  it('refuses reconcilers that change spec, labels or annotations (after writing status)', async () => {
    for (const mutate of [
      (w: Obj) => void (w.spec.a = 2),
      (w: Obj) => void (w.metadata.labels = { x: 'y' }),
      (w: Obj) => void (w.metadata.annotations = { a: 'b' }),
    ]) {
      const { client, writes } = store(obj());
      const err = await reconcileWithStatus<Obj>({
        client,
        ref,
        reconcile: async (w) => {
          w.status = { n: 9 };
          mutate(w);
        },
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PanicError);
      expect((err as Error).message).toBe('spec or metadata changed by reconciler');
      expect(writes.map((w) => w.kind)).toEqual(['status']);
    }
  });
});

describe('joinErrors', () => {
  it('returns a single error unchanged and joins several with newlines', () => {
    const e = new Error('one');
    expect(joinErrors([e])).toBe(e);
    const joined = joinErrors([e, new Error('two')]);
    expect(joined.message).toBe('one\ntwo');
    expect(isTerminal(joined)).toBe(false);
  });
});
