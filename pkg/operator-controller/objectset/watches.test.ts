import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { CLUSTER_OBJECT_SET } from '../../shared/api/index.ts';
import { Informer, clientListWatch, settlesWithin, type KubeObject } from '../../shared/kube/index.ts';
import { widgetCrd } from '../../../test/support/crd-builders.ts';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import { createObjectSetController } from './controller.ts';
import { Registry } from 'prom-client';
import { RevisionObjectWatches, revisionsOfEvent, watchTargets } from './watches.ts';
import { everyRevisionAs } from './writer.ts';
import { abortedAfterEach } from '../../../test/support/per-test.ts';

const log = pino({ level: 'silent' });
const aborted = abortedAfterEach();
const leading = (): AbortSignal => aborted().signal;

const object = (kind: string, name: string, namespace?: string, revision?: string): KubeObject => ({
  apiVersion: kind === 'ClusterRole' ? 'rbac.authorization.k8s.io/v1' : 'v1',
  kind,
  metadata: {
    name,
    ...(namespace === undefined ? {} : { namespace }),
    labels: { 'olm.operatorframework.io/owner-name': 'ext' },
    ...(revision === undefined
      ? {}
      : { ownerReferences: [{ apiVersion: CLUSTER_OBJECT_SET.apiVersion, kind: 'ClusterObjectSet', name: revision, uid: 'u', controller: true }] }),
  },
});

const namespaced = (type: { kind: string }): Promise<boolean> => Promise.resolve(type.kind !== 'ClusterRole');

describe('watchTargets', () => {
  it('one per identity, kind and namespace; cluster-scoped kinds cluster-wide; unresolved kinds left out', async () => {
    const objects = [
      object('ConfigMap', 'a', 'ns'),
      object('ConfigMap', 'b', 'ns'),
      object('ConfigMap', 'c', 'other'),
      object('ClusterRole', 'r'),
      object('Widget', 'w'),
    ];
    const targets = await watchTargets(objects, 'extension/ext', (t) => (t.kind === 'Widget' ? Promise.reject(new Error('no kind')) : namespaced(t)));
    expect([...targets.keys()]).toEqual([
      'extension/ext|v1/ConfigMap|ns',
      'extension/ext|v1/ConfigMap|other',
      'extension/ext|rbac.authorization.k8s.io/v1/ClusterRole|',
    ]);
  });
});

describe('revisionsOfEvent', () => {
  const at = (revision: string | undefined, digest: string) => ({
    ...object('ConfigMap', 'a', 'ns'),
    contentDigest: digest,
    ...(revision === undefined ? {} : { revision }),
  });
  it('maps a deletion or a change to the controlling revision, before and after; creations and no-change updates to none', () => {
    expect(revisionsOfEvent('delete', at('ext-1', 'd'), undefined)).toEqual(['ext-1']);
    expect(revisionsOfEvent('update', at('ext-1', 'd2'), at('ext-1', 'd1'))).toEqual(['ext-1']);
    expect(revisionsOfEvent('update', at('ext-1', 'd'), at('ext-1', 'd'))).toEqual([]);
    // Taken over by the next revision: both look again.
    expect(revisionsOfEvent('update', at('ext-2', 'd'), at('ext-1', 'd'))).toEqual(['ext-2', 'ext-1']);
    expect(revisionsOfEvent('update', at(undefined, 'd2'), at(undefined, 'd1'))).toEqual([]);
    expect(revisionsOfEvent('add', at('ext-1', 'd'), undefined)).toEqual([]);
  });
});

describe('RevisionObjectWatches', () => {
  function setup(): { fc: FakeCluster; watches: RevisionObjectWatches; queued: string[]; watcher: Parameters<RevisionObjectWatches['track']>[1] } {
    const fc = fakeCluster();
    const queued: string[] = [];
    const watches = new RevisionObjectWatches({ enqueue: (r) => queued.push(r), log });
    void watches.run(leading());
    const watcher = { identity: 'extension/ext', client: fc.client, selector: 'olm.operatorframework.io/owner-name=ext' };
    return { fc, watches, queued, watcher };
  }

  it('grows and shrinks with the active revisions: an informer runs while some revision needs it', async () => {
    const { watches, watcher } = setup();
    await watches.track('ext-1', watcher, [object('ConfigMap', 'a', 'ns'), object('ClusterRole', 'r')]);
    expect(watches.size).toBe(2);
    // The next revision shares the ConfigMap watch and adds a namespace.
    await watches.track('ext-2', watcher, [object('ConfigMap', 'a', 'ns'), object('ConfigMap', 'b', 'other')]);
    expect(watches.size).toBe(3);
    expect(watches.watchesOf('ext-2')).toEqual(['extension/ext|v1/ConfigMap|ns', 'extension/ext|v1/ConfigMap|other']);
    // ext-1 archived: the ClusterRole watch only it needed stops, the shared one stays.
    watches.forget('ext-1');
    expect(watches.size).toBe(2);
    // ext-2's objects leave a namespace: its watch stops.
    await watches.track('ext-2', watcher, [object('ConfigMap', 'a', 'ns')]);
    expect(watches.size).toBe(1);
    watches.forget('ext-2');
    expect(watches.size).toBe(0);
    expect(watches.watchesOf('ext-2')).toEqual([]);
  });

  it("queues the revision an object's change or deletion concerns, only while that revision is tracked", async () => {
    const { fc, watches, queued, watcher } = setup();
    const a = object('ConfigMap', 'a', 'ns', 'ext-1');
    fc.seed(a);
    fc.seed(object('ConfigMap', 'foreign', 'ns', 'other-1'));
    await watches.track('ext-1', watcher, [a]);
    await expect.poll(() => fc.calls.filter((c) => c.startsWith('watch ConfigMap')).length).toBe(1);
    expect(queued).toEqual([]);
    fc.edit(a, (live) => void (live['data'] = { k: 'changed' }));
    await expect.poll(() => queued).toEqual(['ext-1']);
    // An object of a revision not tracked here queues nothing.
    fc.edit(object('ConfigMap', 'foreign', 'ns'), (live) => void (live['data'] = { k: 'changed' }));
    await fc.client.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: 'ns' });
    await expect.poll(() => queued).toEqual(['ext-1', 'ext-1']);
    watches.forget('ext-1');
    expect(fc.calls.filter((c) => c.startsWith('watch ConfigMap')).length).toBe(1);
  });
});

describe('the ClusterObjectSet controller told to stop before it runs', () => {
  // The process's stop can come while leading starts, before the controllers run (stop 81's CI:
  // operator-controller waited for its revision watches until killed).
  it('returns at once, its object watches too', async () => {
    const fc = fakeCluster();
    const informer = new Informer<KubeObject>({ name: 'clusterobjectsets', source: clientListWatch(fc.client, CLUSTER_OBJECT_SET), log });
    const controller = createObjectSetController({ ports: { client: fc.client, writerFor: everyRevisionAs(fc.client) }, informer, log });
    const stopped = new AbortController();
    stopped.abort();
    await expect(settlesWithin(controller.run(stopped.signal), 1000)).resolves.toBe(true);
    const watches = new RevisionObjectWatches({ enqueue: () => undefined, log });
    await expect(settlesWithin(watches.run(stopped.signal), 1000)).resolves.toBe(true);
  });
});

describe('RevisionObjectWatches triggers', () => {
  it('counts each queued reconcile by kind and change: status only, content, deletion', async () => {
    const fc = fakeCluster();
    const queued: string[] = [];
    const registry = new Registry();
    const watches = new RevisionObjectWatches({ enqueue: (r) => queued.push(r), log, registry });
    void watches.run(leading());
    const a = object('ConfigMap', 'a', 'ns', 'ext-1');
    fc.seed(a);
    await watches.track('ext-1', { identity: 'extension/ext', client: fc.client, selector: 'olm.operatorframework.io/owner-name=ext' }, [a]);
    await expect.poll(() => fc.calls.filter((c) => c.startsWith('watch ConfigMap')).length).toBe(1);
    fc.edit(a, (live) => void (live['status'] = { ready: true }));
    await expect.poll(() => queued).toEqual(['ext-1']);
    fc.edit(a, (live) => void (live['data'] = { k: 'changed' }));
    await fc.client.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: 'ns' });
    await expect.poll(() => queued).toEqual(['ext-1', 'ext-1', 'ext-1']);
    const counted = (await registry.getSingleMetric('operator_controller_revision_object_events_total')?.get())?.values ?? [];
    expect(counted.map((v) => [v.labels['kind'], v.labels['change'], v.value])).toEqual([
      ['ConfigMap', 'status', 1],
      ['ConfigMap', 'content', 1],
      ['ConfigMap', 'delete', 1],
    ]);
  });
});

/** Runs the ClusterObjectSet controller with its own watches over `fc` (`client`: the writer's, default fc's). */
function runController(fc: FakeCluster, client = fc.client): void {
  const informer = new Informer<KubeObject>({ name: 'clusterobjectsets', source: clientListWatch(fc.client, CLUSTER_OBJECT_SET), log });
  const controller = createObjectSetController({ ports: { client: fc.client, writerFor: everyRevisionAs(client) }, informer, log });
  const signal = leading();
  void informer.run(signal);
  void controller.run(signal);
}

/** Seeds revision `ext-1` with `phases` (and `finalizers`). */
function seedRevision(fc: FakeCluster, phases: { name: string; objects: { object: KubeObject }[] }[], finalizers?: string[]): void {
  fc.seed({
    apiVersion: CLUSTER_OBJECT_SET.apiVersion,
    kind: CLUSTER_OBJECT_SET.kind,
    metadata: {
      name: 'ext-1',
      generation: 1,
      creationTimestamp: new Date().toISOString(),
      labels: { 'olm.operatorframework.io/owner-name': 'ext' },
      ...(finalizers === undefined ? {} : { finalizers }),
    },
    spec: { lifecycleState: 'Active', revision: 1, collisionProtection: 'Prevent', phases },
  });
}

/** The Succeeded condition's status of revision `ext-1`. */
function succeeded(fc: FakeCluster): string | undefined {
  const status = fc.live({ kind: 'ClusterObjectSet', metadata: { name: 'ext-1' } })?.['status'] as
    { conditions?: { type: string; status: string }[] } | undefined;
  return status?.conditions?.find((c) => c.type === 'Succeeded')?.status;
}

describe('the ClusterObjectSet controller with its own watches', () => {
  it('puts back an object of a succeeded revision deleted behind its back, with no routing from outside', async () => {
    const fc = fakeCluster();
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'ns' }, data: { k: 'v' } };
    seedRevision(fc, [{ name: 'only', objects: [{ object: configMap }] }]);
    runController(fc);
    await expect.poll(() => succeeded(fc)).toBe('True');
    expect(fc.live(configMap)).toBeDefined();
    await fc.client.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: 'settings', namespace: 'ns' });
    await expect.poll(() => fc.live(configMap)?.['data']).toEqual({ k: 'v' });
  });

  it('watches a kind a CRD of an earlier phase defined during the rollout, once the revision succeeded in that reconcile', async () => {
    const fc = fakeCluster();
    const crd = widgetCrd();
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns' }, spec: { size: 1 } };
    // Discovery knows Widget only once its CRD exists, as the API server's does.
    const client = {
      ...fc.client,
      resourceFor: (type: Parameters<typeof fc.client.resourceFor>[0], signal?: AbortSignal) =>
        type.kind === 'Widget' && fc.live(crd) === undefined
          ? Promise.reject(new Error('no matches for kind "Widget"'))
          : fc.client.resourceFor(type, signal),
    };
    // Made with the finalizer already on (as a user may): the reconcile that rolls it out writes no
    // metadata, so no event of its own brings another reconcile after the CRD is served.
    seedRevision(
      fc,
      [
        { name: 'crds', objects: [{ object: crd }] },
        { name: 'deploy', objects: [{ object: widget }] },
      ],
      ['olm.operatorframework.io/teardown'],
    );
    runController(fc, client);
    await expect.poll(() => succeeded(fc)).toBe('True');
    await expect.poll(() => fc.calls.filter((c) => c.startsWith('watch Widget')).length).toBe(1);
    await fc.client.delete({ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', namespace: 'ns' });
    await expect.poll(() => fc.live(widget)?.['spec']).toEqual({ size: 1 });
  });
});
