// ResolveAhead's decisions with fakes of its ports: which extensions get an upgrade reported in
// status ahead of their reconcile, what the write carries, and when nothing is written. End to
// end (real API server, catalogd, registry): test/e2e/operator-controller-resolve-ahead.test.ts;
// at 100 and 1,000 extensions: bench `scale` and `scale-1000`.
import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { catalogSource, chainedPackage } from '../../../test/support/extension-ports.ts';
import { ApiError, type KubeObject } from '../../shared/kube/index.ts';
import { ResolveAhead, rollingOutMessage } from './resolve-ahead.ts';

const GEN = 3;

/** An extension of package `p` with 1.0.0 installed and its last reconcile succeeded at generation GEN. */
function extension(
  name: string,
  o: { annotations?: Record<string, string>; progressing?: Record<string, unknown>; installed?: boolean } = {},
): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name, generation: GEN, resourceVersion: '10', ...(o.annotations === undefined ? {} : { annotations: o.annotations }) },
    spec: { namespace: 'ns', serviceAccount: { name: 'sa' }, source: { sourceType: 'Catalog', catalog: { packageName: 'p' } } },
    status: {
      conditions: [
        {
          type: 'Installed',
          status: 'True',
          reason: 'Succeeded',
          message: 'Installed bundle x successfully',
          observedGeneration: GEN,
          lastTransitionTime: '2026-11-24T00:00:00Z',
        },
        {
          type: 'Progressing',
          status: 'True',
          reason: 'Succeeded',
          message: 'Desired state reached',
          observedGeneration: GEN,
          lastTransitionTime: '2026-11-24T00:00:00Z',
          ...o.progressing,
        },
      ],
      ...(o.installed === false ? {} : { install: { bundle: { name: 'p.v1.0.0', version: '1.0.0' } } }),
    },
  };
}

function setup(objects: KubeObject[], o: { versions?: string[]; busy?: string[]; fail?: (obj: KubeObject) => Error | undefined } = {}) {
  const live = new Map(objects.map((x) => [x.metadata.name ?? '', x]));
  const writes: KubeObject[] = [];
  const registry = new Registry();
  const ahead = new ResolveAhead({
    extensions: { get: (k) => live.get(k) },
    catalogs: catalogSource(chainedPackage('p', o.versions ?? ['1.0.0', '1.0.1'])),
    features: { bundleReleaseSupport: false },
    client: {
      updateStatus: async (obj: KubeObject) => {
        const err = o.fail?.(obj);
        if (err !== undefined) throw err;
        writes.push(obj);
        return obj as never;
      },
    },
    beside: async (key, fn) => ((o.busy ?? []).includes(key) ? undefined : fn()),
    log: pino({ level: 'silent' }),
    registry,
    signal: new AbortController().signal,
  });
  const outcomes = async (): Promise<Record<string, number>> => {
    const m = await registry.getSingleMetric('operator_controller_resolve_ahead_total')?.get();
    return Object.fromEntries((m?.values ?? []).map((v) => [String(v.labels['outcome']), v.value]));
  };
  return { ahead, writes, live, outcomes };
}

const progressing = (obj: KubeObject | undefined) =>
  (obj?.status as { conditions?: Array<Record<string, unknown>> } | undefined)?.conditions?.find((c) => c['type'] === 'Progressing');

describe('ResolveAhead', () => {
  it('reports the resolved upgrade as Progressing RollingOut over the copy it read, other status kept', async () => {
    const { ahead, writes, outcomes } = setup([extension('a')]);
    ahead.offer('a');
    await ahead.settled();
    expect(writes).toHaveLength(1);
    const w = writes[0];
    expect(w?.metadata.resourceVersion).toBe('10');
    expect(progressing(w)).toMatchObject({
      status: 'True',
      reason: 'RollingOut',
      message: 'Resolved bundle "p.v1.0.1" with version "1.0.1", upgrading from version "1.0.0"',
      observedGeneration: GEN,
    });
    expect((w?.status as { install?: unknown }).install).toEqual({ bundle: { name: 'p.v1.0.0', version: '1.0.0' } });
    expect((w?.status as { conditions: Array<{ type: string }> }).conditions.map((c) => c.type)).toEqual(['Installed', 'Progressing']);
    expect(await outcomes()).toEqual({ reported: 1 });
  });

  it('writes nothing when the resolution keeps the installed bundle or fails', async () => {
    for (const versions of [['1.0.0'], ['0.9.0']]) {
      const { ahead, writes, outcomes } = setup([extension('a')], { versions });
      ahead.offer('a');
      await ahead.settled();
      expect(writes).toEqual([]);
      expect(await outcomes()).toEqual(versions[0] === '1.0.0' ? { unchanged: 1 } : { unresolved: 1 });
    }
  });

  it.each([
    ['nothing installed yet', extension('a', { installed: false })],
    ['its last reconcile failed', extension('a', { progressing: { reason: 'Retrying', message: 'error for resolved bundle' } })],
    ['its spec changed since its last reconcile', extension('a', { progressing: { observedGeneration: GEN - 1 } })],
    ['it is already reported', extension('a', { progressing: { reason: 'RollingOut' } })],
    ['the update policy is Manual', extension('a', { annotations: { 'olm.operatorframework.io/update-policy': 'Manual' } })],
    ['the update policy is not one', extension('a', { annotations: { 'olm.operatorframework.io/update-policy': 'Sometimes' } })],
    ['it is being deleted', { ...extension('a'), metadata: { ...extension('a').metadata, deletionTimestamp: '2026-11-24T00:00:00Z' } }],
  ])('skips an extension when %s', async (_why, obj) => {
    const { ahead, writes, outcomes } = setup([obj]);
    ahead.offer('a');
    await ahead.settled();
    expect(writes).toEqual([]);
    expect(await outcomes()).toEqual({ skipped: 1 });
  });

  it('leaves an extension whose reconcile runs, or that changed or went away, to its reconcile', async () => {
    const { ahead, writes, live, outcomes } = setup([extension('busy'), extension('moved'), extension('gone'), extension('raced')], {
      busy: ['busy'],
      fail: (obj) =>
        obj.metadata.name === 'raced'
          ? new ApiError(409, 'Conflict', 'the object has been modified')
          : obj.metadata.name === 'gone'
            ? new ApiError(404, 'NotFound', 'not found')
            : undefined,
    });
    // The informer's copy moves on while the resolution runs.
    const moved = live.get('moved') as KubeObject;
    const realGet = live.get.bind(live);
    let reads = 0;
    live.get = (k: string) => (k === 'moved' && ++reads > 1 ? { ...moved, metadata: { ...moved.metadata, resourceVersion: '11' } } : realGet(k));
    for (const n of ['busy', 'moved', 'gone', 'raced', 'unknown']) ahead.offer(n);
    await ahead.settled();
    expect(writes).toEqual([]);
    expect(await outcomes()).toEqual({ superseded: 4, skipped: 1 });
  });

  it('counts a write the API server refuses otherwise as failed and goes on with the others', async () => {
    const { ahead, writes, outcomes } = setup([extension('a'), extension('b')], {
      fail: (obj) => (obj.metadata.name === 'a' ? new ApiError(500, 'InternalError', 'etcd down') : undefined),
    });
    ahead.offer('a');
    ahead.offer('b');
    ahead.offer('b');
    await ahead.settled();
    // b offered again while resolved: resolved again after, over the same copy (the fake's
    // informer does not see the first write), never twice at once.
    expect(writes.map((w) => w.metadata.name)).toEqual(['b', 'b']);
    expect(await outcomes()).toEqual({ failed: 1, reported: 2 });
  });

  it('says which bundle and versions', () => {
    expect(rollingOutMessage({ name: 'x.v2', version: '2.0.0' }, '1.0.0')).toBe(
      'Resolved bundle "x.v2" with version "2.0.0", upgrading from version "1.0.0"',
    );
  });
});
