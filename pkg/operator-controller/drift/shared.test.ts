// Shared drift watches (decision 0109): cluster-scoped kinds watched once, as operator-controller,
// each extension seeing and being queued for only the objects labelled with its name.
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OWNER_KIND_LABEL, OWNER_NAME_LABEL } from '../../shared/api/index.ts';
import type { KubeClient, KubeObject } from '../../shared/kube/index.ts';
import { FakeCluster, obj, setup } from '../../../test/support/drift-cluster.ts';
import { SHARED_SELECTOR, SharedDriftKinds, shareableDriftKinds } from './shared.ts';
import type { TrackedRelease } from './tracker.ts';

const ROLE = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' };

/** An object as extension `owner`'s apply labels it. */
function owned(owner: string, o: KubeObject, uid = `${owner}-${o.metadata.name ?? ''}`): KubeObject {
  return { ...o, metadata: { ...o.metadata, uid, labels: { [OWNER_KIND_LABEL]: 'ClusterExtension', [OWNER_NAME_LABEL]: owner } } };
}

const role = (owner: string, extra: Record<string, unknown> = {}): KubeObject => owned(owner, obj('ClusterRole', `${owner}-role`, undefined, extra));
const settings = (owner: string): KubeObject => owned(owner, obj('ConfigMap', `${owner}-settings`, owner));

function release(extension: string, objects: KubeObject[] = [role(extension), settings(extension)]): TrackedRelease {
  return { extension, installNamespace: extension, serviceAccount: 'installer', objects };
}

/** `o` as a watch event reports it: a new resourceVersion, and `changes`. */
function changed(o: KubeObject, rv: string, changes: Record<string, unknown> = {}, labels?: Record<string, string>): KubeObject {
  return { ...o, ...changes, metadata: { ...o.metadata, resourceVersion: rv, ...(labels === undefined ? {} : { labels }) } };
}

describe('shared drift watches', () => {
  it('watch a shared kind once for every extension, as operator-controller, and show each extension only its own objects', async () => {
    const { cluster, drift, registry } = setup({ shared: [ROLE] });
    cluster.objects = [role('a'), role('b'), settings('a'), settings('b')];
    await drift.track(release('a'));
    await drift.track(release('b'));
    await vi.waitFor(() => expect(cluster.open('ConfigMap')).toHaveLength(2));
    await vi.waitFor(() => expect(cluster.open('ClusterRole')).toHaveLength(1));
    const [shared] = cluster.open('ClusterRole');
    expect([shared?.identity, shared?.labelSelector]).toEqual(['operator-controller', SHARED_SELECTOR]);
    expect(cluster.open('ConfigMap').map((w) => w.identity)).toEqual(['a/installer', 'b/installer']);
    await drift.listed('a');
    await drift.listed('b');
    expect(drift.ownedUid('a', role('a'))).toBe('a-a-role');
    expect(drift.ownedUid('b', role('b'))).toBe('b-b-role');
    // Another extension's object is not in this one's view.
    expect(drift.ownedUid('a', role('b'))).toBeUndefined();
    expect(drift.size).toBe(3);
    expect((await registry.getSingleMetric('operator_controller_drift_watches')?.get())?.values[0]?.value).toBe(3);
  });

  it('queue only the owner of a changed or deleted object; a relabelled one leaves its old owner as a delete', async () => {
    const { cluster, drift, enqueued, registry } = setup({ shared: [ROLE] });
    cluster.objects = [role('a'), role('b'), settings('a'), settings('b')];
    await drift.track(release('a'));
    await drift.track(release('b'));
    await drift.listed('a');
    await drift.listed('b');
    const [w] = cluster.open('ClusterRole');
    // Status aside, changed content is drift of its owner alone.
    w?.push({ type: 'MODIFIED', object: changed(role('a'), '2', { rules: [{ verbs: ['*'] }] }) });
    await vi.waitFor(() => expect(enqueued).toEqual(['a']));
    w?.push({ type: 'DELETED', object: changed(role('b'), '3') });
    await vi.waitFor(() => expect(enqueued).toEqual(['a', 'b']));
    // b's object now says it is c's: b lost it (as its own watch would report, a delete); c has no view.
    const relabelled = changed(role('b'), '4', {}, { [OWNER_KIND_LABEL]: 'ClusterExtension', [OWNER_NAME_LABEL]: 'c' });
    w?.push({ type: 'ADDED', object: changed(role('b'), '4') });
    w?.push({ type: 'MODIFIED', object: relabelled });
    await vi.waitFor(() => expect(enqueued).toEqual(['a', 'b', 'b']));
    expect(drift.ownedUid('b', role('b'))).toBeUndefined();
    const events = (await registry.getSingleMetric('operator_controller_drift_events_total')?.get())?.values ?? [];
    expect(Object.fromEntries(events.map((v) => [v.labels['event'], v.value]))).toEqual({ update: 1, delete: 2 });
  });

  it('make a view on a synced watch wait for the objects its apply just created, and report one that never comes as missing', async () => {
    const { cluster, drift, enqueued } = setup({ shared: [ROLE] });
    cluster.objects = [role('a'), settings('a'), settings('b'), settings('c')];
    await drift.track(release('a'));
    await drift.listed('a');
    // b's apply created its ClusterRole; the watch has not delivered it yet.
    await drift.track(release('b'));
    let listed = false;
    const waiting = drift.listed('b').then(() => (listed = true));
    await vi.waitFor(() => expect(cluster.open('ConfigMap')).toHaveLength(2));
    expect(listed).toBe(false);
    expect(drift.ownedUid('b', role('b'))).toBeUndefined();
    const [w] = cluster.open('ClusterRole');
    w?.push({ type: 'ADDED', object: changed(role('b'), '6') });
    await waiting;
    expect(drift.ownedUid('b', role('b'))).toBe('b-b-role');
    // c's was deleted before the watch saw it: missing once the wait ends.
    await drift.track(release('c'));
    await vi.waitFor(() => expect(enqueued).toEqual(['c']), { timeout: 5_000 });
  });

  it('stop the shared watch a grace period after the last extension that uses it stopped', async () => {
    const { cluster, drift, registry } = setup({ shared: [ROLE], sharedLingerMs: 50 });
    cluster.objects = [role('a'), role('b'), settings('a'), settings('b')];
    await drift.track(release('a'));
    await drift.track(release('b'));
    await vi.waitFor(() => expect(cluster.open('ClusterRole')).toHaveLength(1));
    drift.stop('a');
    expect(cluster.open('ClusterRole')).toHaveLength(1);
    expect(drift.size).toBe(2);
    drift.stop('b');
    // Unused, so not counted, but still open for the next extension until the grace period ends.
    expect(cluster.open('ClusterRole')).toHaveLength(1);
    expect(drift.size).toBe(0);
    expect((await registry.getSingleMetric('operator_controller_drift_watches')?.get())?.values[0]?.value).toBe(0);
    await vi.waitFor(() => expect(cluster.open('ClusterRole')).toHaveLength(0));
    await drift.settled();
    // Started again for the next extension: a new list of the kind.
    await drift.track(release('a'));
    await vi.waitFor(() => expect(cluster.open('ClusterRole')).toHaveLength(1));
    expect(cluster.lists.filter((l) => l.kind === 'ClusterRole').map((l) => l.identity)).toEqual(['operator-controller', 'operator-controller']);
  });

  it('leave the kinds operator-controller may not list and watch to each ServiceAccount', async () => {
    const { cluster, drift } = setup({ shared: [ROLE] });
    cluster.objects = [owned('a', obj('CustomResourceDefinition', 'widgets.a')), settings('a')];
    await drift.track(release('a', cluster.objects));
    await vi.waitFor(() => expect(cluster.open('CustomResourceDefinition')).toHaveLength(1));
    expect(cluster.open('CustomResourceDefinition')[0]?.identity).toBe('a/installer');
  });
});

describe('shareableDriftKinds', () => {
  it('names the kinds its identity may both list and watch cluster-wide', async () => {
    const asked: unknown[] = [];
    const allowed = new Set(['list customresourcedefinitions', 'watch customresourcedefinitions', 'list clusterroles']);
    const client: Pick<KubeClient, 'create'> = {
      create: async <T extends KubeObject>(review: KubeObject) => {
        const attrs = (review.spec as { resourceAttributes: { verb: string; resource: string; namespace?: string } }).resourceAttributes;
        asked.push({ kind: review.kind, ...attrs });
        return { ...review, status: { allowed: allowed.has(`${attrs.verb} ${attrs.resource}`) } } as KubeObject as T;
      },
    };
    expect(await shareableDriftKinds(client)).toEqual([{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' }]);
    expect(asked).toHaveLength(6);
    expect(asked[0]).toEqual({ kind: 'SelfSubjectAccessReview', verb: 'list', group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' });
  });
});

describe('SharedDriftKinds', () => {
  const made: SharedDriftKinds[] = [];
  afterEach(() => {
    for (const k of made.splice(0)) k.stopAll();
    vi.useRealTimers();
  });

  /** Shared ClusterRoles over a fake cluster; `runs` are the informers' run promises. */
  function kinds(lingerMs?: number) {
    const cluster = new FakeCluster();
    const runs: Promise<void>[] = [];
    const shared = new SharedDriftKinds({
      client: cluster.clientFor('operator-controller'),
      kinds: [ROLE],
      log: pino({ level: 'silent' }),
      backoff: { initialMs: 20, maxMs: 40 },
      onRun: (done) => runs.push(done),
      lingerMs,
    });
    made.push(shared);
    const roles = {
      lists: () => cluster.lists.filter((l) => l.kind === 'ClusterRole').length,
      watches: () => cluster.watches.filter((w) => w.kind === 'ClusterRole').length,
      open: () => cluster.open('ClusterRole'),
    };
    return { cluster, shared, runs, roles };
  }

  /** `extension`'s view of the ClusterRoles, the events it was handed, and what closes it. */
  function view(shared: SharedDriftKinds, extension: string, expected: string[]) {
    const close = new AbortController();
    const events: string[] = [];
    const v = shared.view(extension, ROLE, expected, (type, o) => events.push(`${type} ${o.metadata.name ?? ''}`), close.signal);
    return { view: v, events, close };
  }

  it('reuse the informer whose last view closed for a view made within the grace period: no new list or watch', async () => {
    const { cluster, shared, roles } = kinds(50);
    cluster.objects = [role('a')];
    const a = view(shared, 'a', ['a-role']);
    await a.view.waitForSync();
    await vi.waitFor(() => expect(roles.open()).toHaveLength(1));
    a.close.abort();
    expect(shared.size).toBe(0);
    // The next install's view, made after its apply created b-role and before the watch
    // delivered it: as any view of a synced informer, it waits for it.
    const b = view(shared, 'b', ['b-role']);
    expect(shared.size).toBe(1);
    expect(b.view.hasSynced).toBe(false);
    roles.open()[0]?.push({ type: 'ADDED', object: changed(role('b'), '6') });
    await b.view.waitForSync();
    expect(b.view.get('b-role')?.metadata.uid).toBe('b-b-role');
    expect(b.view.get('a-role')).toBeUndefined();
    expect(b.events).toEqual(['add b-role']);
    // Past a's grace period: the new view cancelled its stop.
    await new Promise((r) => setTimeout(r, 150));
    expect(roles.open()).toHaveLength(1);
    expect([roles.lists(), roles.watches()]).toEqual([1, 1]);
  });

  it('stop the informer when the grace period passes with no view, and start it again for the next', async () => {
    const { cluster, shared, runs, roles } = kinds(50);
    cluster.objects = [role('a')];
    const a = view(shared, 'a', []);
    await a.view.waitForSync();
    await vi.waitFor(() => expect(roles.open()).toHaveLength(1));
    a.close.abort();
    expect(roles.open()).toHaveLength(1);
    await vi.waitFor(() => expect(roles.open()).toHaveLength(0));
    await Promise.all(runs);
    const b = view(shared, 'b', []);
    await b.view.waitForSync();
    expect(roles.lists()).toBe(2);
  });

  it('stop a lingering informer, and its timer, with stopAll', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { shared, runs, roles } = kinds();
    const a = view(shared, 'a', []);
    await a.view.waitForSync();
    await vi.waitFor(() => expect(roles.open()).toHaveLength(1));
    a.close.abort();
    expect(roles.open()).toHaveLength(1);
    shared.stopAll();
    expect(roles.open()).toHaveLength(0);
    await Promise.all(runs);
    // No timer left to keep a stopped process alive or to stop anything later.
    expect(vi.getTimerCount()).toBe(0);
  });
});
