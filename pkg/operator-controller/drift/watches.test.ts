import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { FIELD_MANAGER } from '../../shared/api/index.ts';
import type { KubeObject, OwnerReference } from '../../shared/kube/index.ts';
import { CLUSTER_KINDS, obj, setup } from '../../../test/support/drift-cluster.ts';
import { fingerprint, lastWriteIsOurs } from './targets.ts';
import type { TrackedRelease } from './tracker.ts';

const RELEASE: TrackedRelease = {
  extension: 'ext',
  installNamespace: 'ns',
  serviceAccount: 'installer',
  objects: [
    obj('ClusterRole', 'ext-role'),
    obj('Deployment', 'ext-controller', 'ns'),
    obj('ConfigMap', 'ext-settings'),
    obj('ConfigMap', 'ext-other', 'other'),
  ],
};

/** The release's objects as the API server returns them (namespaced ones name their namespace). */
const LIVE = RELEASE.objects.map((o) => (CLUSTER_KINDS.has(o.kind) ? o : { ...o, metadata: { namespace: 'ns', ...o.metadata } }));

describe('DriftWatches', () => {
  it('lists through the streamed form (objects reduced to fingerprints one at a time), every page', async () => {
    const { cluster, drift } = setup();
    const maps = Array.from({ length: 725 }, (_, i) => ({
      ...obj('ConfigMap', `blob-${i}`, 'ns'),
      metadata: { name: `blob-${i}`, namespace: 'ns', uid: `u${i}` },
    }));
    cluster.objects = maps;
    await drift.track({ ...RELEASE, objects: maps });
    await vi.waitFor(() => expect(cluster.open('ConfigMap')).toHaveLength(1));
    expect(cluster.lists.filter((l) => l.kind === 'ConfigMap').map((l) => [l.limit, l.streamed])).toEqual([
      [500, true],
      [500, true],
    ]);
    for (const m of maps) expect(drift.ownedUid('ext', m)).toBe(m.metadata.uid);
  });

  it("knows which objects one of the extension's revisions controls (the Boxcutter uninstall leaves them to the garbage collector)", async () => {
    const { cluster, drift } = setup();
    const ref = (kind: string, name: string, controller: boolean) => ({
      apiVersion: 'olm.operatorframework.io/v1',
      kind,
      name,
      uid: `${name}-uid`,
      controller,
    });
    const owned = (name: string, refs: OwnerReference[]): KubeObject => ({
      ...obj('ConfigMap', name, 'ns'),
      metadata: { name, namespace: 'ns', uid: `${name}-uid`, labels: { 'olm.operatorframework.io/owner-name': 'ext' }, ownerReferences: refs },
    });
    const maps = [
      owned('controlled', [ref('ClusterObjectSet', 'ext-2', true)]),
      owned('not-controller', [ref('ClusterObjectSet', 'ext-1', false)]),
      owned('others', [ref('ClusterObjectSet', 'other-1', true)]),
      owned('extension', [ref('ClusterExtension', 'ext', true)]),
      owned('none', []),
    ];
    cluster.objects = maps;
    await drift.track({ ...RELEASE, objects: maps });
    await vi.waitFor(() => expect(drift.ownedUid('ext', maps[0]!)).toBe('controlled-uid'));
    expect(maps.filter((m) => drift.revisionControlled('ext', m)).map((m) => m.metadata.name)).toEqual(['controlled']);
    expect(drift.revisionControlled('other', maps[0]!)).toBe(false);
    drift.stop('ext');
    expect(drift.revisionControlled('ext', maps[0]!)).toBe(false);
  });

  it('vouches for an object while its cached content is what the last apply answered, status aside', async () => {
    const { cluster, drift } = setup();
    const deploy = obj('Deployment', 'ext-controller', 'ns', { spec: { replicas: 1 }, status: { ready: 0 } });
    const role = obj('ClusterRole', 'ext-role');
    cluster.objects = [deploy, role];
    drift.noteApplied('ext', deploy);
    expect(drift.inSync('ext', deploy)).toBe(false);
    await drift.track({ ...RELEASE, objects: [deploy, role] });
    await vi.waitFor(() => expect(cluster.open('Deployment')).toHaveLength(1));
    await vi.waitFor(() => expect(drift.inSync('ext', deploy)).toBe(true));
    // Never applied by this process: not vouched for.
    expect(drift.inSync('ext', role)).toBe(false);
    const [w] = cluster.open('Deployment');
    const at = (rv: string, extra: Record<string, unknown>): KubeObject => ({
      ...deploy,
      metadata: { ...deploy.metadata, resourceVersion: rv },
      ...extra,
    });
    w?.push({ type: 'MODIFIED', object: at('2', { status: { ready: 1 } }) });
    w?.push({ type: 'MODIFIED', object: at('3', { spec: { replicas: 2 }, status: { ready: 1 } }) });
    await vi.waitFor(() => expect(drift.inSync('ext', deploy)).toBe(false));
    // The repair's answer is the live object again.
    drift.noteApplied('ext', at('3', { spec: { replicas: 2 } }));
    expect(drift.inSync('ext', deploy)).toBe(true);
    w?.push({ type: 'DELETED', object: at('4', { spec: { replicas: 2 } }) });
    await vi.waitFor(() => expect(drift.inSync('ext', deploy)).toBe(false));
    // A release without the object forgets it; stopping forgets everything.
    drift.noteApplied('ext', role);
    await drift.track({ ...RELEASE, objects: [role] });
    await vi.waitFor(() => expect(drift.inSync('ext', role)).toBe(true));
    drift.stop('ext');
    expect(drift.inSync('ext', role)).toBe(false);
  });

  it('vouches for an object applied in the last minute while its watch has not listed (a reconcile right after an install)', async () => {
    const { cluster, drift, enqueued } = setup();
    const deploy = obj('Deployment', 'ext-controller', 'ns', { spec: { replicas: 1 } });
    cluster.objects = [deploy];
    cluster.forbidden.add('Deployment');
    drift.noteApplied('ext', deploy);
    await drift.track({ ...RELEASE, objects: [deploy] });
    await vi.waitFor(() => expect(cluster.lists.filter((l) => l.kind === 'Deployment').length).toBeGreaterThanOrEqual(2));
    expect(drift.inSync('ext', deploy)).toBe(true);
    // Its uid is not known until the watch lists: the apply's ownership check reads it.
    expect(drift.ownedUid('ext', deploy)).toBeUndefined();
    // Never applied by this process, or applied more than a minute ago: not vouched for.
    expect(drift.inSync('ext', obj('Deployment', 'ext-other', 'ns'))).toBe(false);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 61_000);
      expect(drift.inSync('ext', deploy)).toBe(false);
    } finally {
      vi.useRealTimers();
    }
    // Listed as applied: in sync from the cache, nothing queued.
    cluster.forbidden.clear();
    await vi.waitFor(() => expect(cluster.open('Deployment')).toHaveLength(1));
    expect(drift.inSync('ext', deploy)).toBe(true);
    expect(enqueued).toEqual([]);
  });

  it('after a restart, vouches for an object whose content operator-controller applied last, status writes aside', async () => {
    const { cluster, drift } = setup();
    const field = (manager: string, time: string, operation = 'Apply', subresource?: string) => ({
      manager,
      operation,
      time,
      ...(subresource === undefined ? {} : { subresource }),
    });
    const withFields = (o: KubeObject, ...managedFields: unknown[]): KubeObject => ({ ...o, metadata: { ...o.metadata, managedFields } });
    const ours = field(FIELD_MANAGER, '2026-01-01T00:00:02Z');
    const deploy = withFields(obj('Deployment', 'ext-controller', 'ns'), ours, field('kcm', '2026-01-01T00:00:09Z', 'Update', 'status'));
    const settings = withFields(obj('ConfigMap', 'ext-settings', 'ns'), ours, field('kubectl-edit', '2026-01-01T00:00:09Z', 'Update'));
    const role = withFields(obj('ClusterRole', 'ext-role'), field('kubectl', '2026-01-01T00:00:01Z'));
    cluster.objects = [deploy, settings, role];
    // No noteApplied: this process applied nothing yet.
    await drift.track({ ...RELEASE, objects: [deploy, settings, role] });
    await vi.waitFor(() => expect(cluster.open('Deployment')).toHaveLength(1));
    await vi.waitFor(() => expect(cluster.open('ClusterRole')).toHaveLength(1));
    await vi.waitFor(() => expect(cluster.open('ConfigMap')).toHaveLength(1));
    expect([deploy, settings, role].map((o) => drift.inSync('ext', o))).toEqual([true, false, false]);
    // Once this process applied it, its own answer decides.
    drift.noteApplied('ext', { ...deploy, spec: { replicas: 5 } });
    expect(drift.inSync('ext', deploy)).toBe(false);
  });

  it('lets a reconcile wait for the first lists (after a restart), but not for a watch that has not listed for 5 s', async () => {
    const { cluster, drift } = setup();
    cluster.objects = [...LIVE];
    cluster.forbidden.add('Deployment');
    await drift.track(RELEASE);
    let listed = false;
    const waiting = drift.listed('ext').then(() => (listed = true));
    await vi.waitFor(() => expect(cluster.open('ConfigMap')).toHaveLength(2));
    expect(listed).toBe(false);
    cluster.forbidden.clear();
    await waiting;
    expect(cluster.open('Deployment')).toHaveLength(1);
    // Refused from its start, 5 s ago: not waited for.
    cluster.forbidden.add('ConfigMap');
    await drift.track({ ...RELEASE, objects: [...RELEASE.objects, obj('ConfigMap', 'ext-more', 'more')] });
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 5_001);
      await drift.listed('ext');
    } finally {
      vi.useRealTimers();
    }
    // Nothing to wait for: no watches, or an aborted reconcile.
    await drift.listed('none');
    cluster.forbidden.clear();
  });

  it('queues a repair when a first list finds an object changed since this process applied it', async () => {
    const { cluster, drift, enqueued, registry } = setup();
    const deploy = obj('Deployment', 'ext-controller', 'ns', { spec: { replicas: 1 } });
    drift.noteApplied('ext', deploy);
    // Changed by someone between the apply and the watch's first list: no watch event tells.
    cluster.objects = [{ ...deploy, metadata: { ...deploy.metadata, resourceVersion: '2' }, spec: { replicas: 3 } }];
    await drift.track({ ...RELEASE, objects: [deploy] });
    await vi.waitFor(() => expect(enqueued).toEqual(['ext']));
    expect(drift.inSync('ext', deploy)).toBe(false);
    const events = (await registry.getSingleMetric('operator_controller_drift_events_total')?.get())?.values ?? [];
    expect(events.map((v) => [v.labels['event'], v.value])).toEqual([['update', 1]]);
    expect(drift.takeDrifted('ext')).toEqual(['Deployment ns/ext-controller']);
  });

  it('watches each resource and namespace as the ServiceAccount, by owner label', async () => {
    const { cluster, drift, registry } = setup();
    cluster.objects = [...LIVE];
    await drift.track(RELEASE);
    expect(drift.size).toBe(4);
    await vi.waitFor(() => expect(cluster.watches).toHaveLength(4));
    expect(cluster.watches.map((w) => [w.kind, w.namespace ?? '', w.identity]).sort()).toEqual([
      ['ClusterRole', '', 'ns/installer'],
      ['ConfigMap', 'ns', 'ns/installer'],
      ['ConfigMap', 'other', 'ns/installer'],
      ['Deployment', 'ns', 'ns/installer'],
    ]);
    for (const w of cluster.watches) {
      expect(w.labelSelector).toBe('olm.operatorframework.io/owner-kind=ClusterExtension,olm.operatorframework.io/owner-name=ext');
    }
    expect((await registry.getSingleMetric('operator_controller_drift_watches')?.get())?.values[0]?.value).toBe(4);
  });

  it('queues the extension on deletes and on changes other than status, not on creations or status updates', async () => {
    const { cluster, drift, enqueued } = setup();
    const deploy = obj('Deployment', 'ext-controller', 'ns', { spec: { replicas: 1 }, status: { ready: 0 } });
    cluster.objects = [deploy];
    await drift.track({ ...RELEASE, objects: [deploy] });
    await vi.waitFor(() => expect(cluster.open('Deployment')).toHaveLength(1));
    const [w] = cluster.open('Deployment');
    const at = (rv: string, extra: Record<string, unknown>): KubeObject => ({
      ...deploy,
      metadata: { ...deploy.metadata, resourceVersion: rv },
      ...extra,
    });
    w?.push({
      type: 'MODIFIED',
      object: at('2', { status: { ready: 1 }, metadata: { ...deploy.metadata, resourceVersion: '2', managedFields: [{}] } }),
    });
    w?.push({ type: 'ADDED', object: obj('Deployment', 'someone-elses', 'ns') });
    w?.push({ type: 'MODIFIED', object: at('3', { spec: { replicas: 2 } }) });
    await vi.waitFor(() => expect(enqueued).toEqual(['ext']));
    w?.push({ type: 'DELETED', object: at('4', { spec: { replicas: 2 } }) });
    await vi.waitFor(() => expect(enqueued).toEqual(['ext', 'ext']));
    // What drifted is handed once to the reconcile that repairs it (its DriftRepaired event).
    expect(drift.takeDrifted('ext')).toEqual(['Deployment ns/ext-controller']);
    expect(drift.takeDrifted('ext')).toEqual([]);
  });

  it('does not queue the extension for its own reconcile writes: an apply that wrote last, a delete it announced', async () => {
    const { cluster, drift, enqueued } = setup();
    const deploy = obj('Deployment', 'ext-controller', 'ns', { spec: { image: 'v1' } });
    const dropped = obj('Deployment', 'ext-old', 'ns');
    cluster.objects = [deploy, dropped];
    await drift.track({ ...RELEASE, objects: [deploy, dropped] });
    await vi.waitFor(() => expect(cluster.open('Deployment')).toHaveLength(1));
    const [w] = cluster.open('Deployment');
    const written = (rv: string, image: string, fields: unknown[]): KubeObject => ({
      ...deploy,
      metadata: { ...deploy.metadata, resourceVersion: rv, managedFields: fields },
      spec: { image },
    });
    const ours = { manager: FIELD_MANAGER, operation: 'Apply', time: '2026-11-23T10:00:05Z' };
    const user = { manager: 'kubectl-edit', operation: 'Update', time: '2026-11-23T10:00:01Z' };
    // The upgrade's apply, then its delete of the object the new release dropped.
    drift.expectDeletes('ext', [{ ...dropped, metadata: { name: 'ext-old' } }]);
    w?.push({ type: 'MODIFIED', object: written('2', 'v2', [user, ours]) });
    w?.push({ type: 'DELETED', object: { ...dropped, metadata: { ...dropped.metadata, resourceVersion: '3' } } });
    // Then someone else's change: drift.
    w?.push({ type: 'MODIFIED', object: written('4', 'v3', [ours, { ...user, time: '2026-11-23T10:00:09Z' }]) });
    await vi.waitFor(() => expect(enqueued).toEqual(['ext']));
    // An announced delete counts once: the same object deleted again is drift.
    w?.push({ type: 'ADDED', object: { ...dropped, metadata: { ...dropped.metadata, resourceVersion: '5' } } });
    w?.push({ type: 'DELETED', object: { ...dropped, metadata: { ...dropped.metadata, resourceVersion: '6' } } });
    await vi.waitFor(() => expect(enqueued).toEqual(['ext', 'ext']));
  });

  it("BoxcutterRuntime: does not queue the extension for its revision's own apply of an object that revision controls", async () => {
    const { cluster, drift, enqueued } = setup();
    const revisionRef = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterObjectSet', name: 'ext-2', uid: 'r2', controller: true };
    const labelled = (name: string, ownerReferences: OwnerReference[]): KubeObject => ({
      ...obj('Deployment', name, 'ns', { spec: { image: 'v1' } }),
      metadata: { name, namespace: 'ns', resourceVersion: '1', labels: { 'olm.operatorframework.io/owner-name': 'ext' }, ownerReferences },
    });
    const deploy = labelled('ext-controller', [revisionRef]);
    const loose = labelled('ext-loose', []);
    cluster.objects = [deploy, loose];
    await drift.track({ ...RELEASE, objects: [deploy, loose] });
    await vi.waitFor(() => expect(cluster.open('Deployment')).toHaveLength(1));
    const [w] = cluster.open('Deployment');
    const written = (o: KubeObject, rv: string, image: string, fields: unknown[]): KubeObject => ({
      ...o,
      metadata: { ...o.metadata, resourceVersion: rv, managedFields: fields },
      spec: { image },
    });
    const revision = { manager: 'olm.operatorframework.io', operation: 'Apply', time: '2026-11-23T10:00:05Z' };
    const user = { manager: 'kubectl-edit', operation: 'Update', time: '2026-11-23T10:00:09Z' };
    // The upgrade's revision applies v2 to the object it controls: not drift.
    w?.push({ type: 'MODIFIED', object: written(deploy, '2', 'v2', [revision]) });
    // The same manager on an object no revision controls: drift (queued once, after the first was handled).
    w?.push({ type: 'MODIFIED', object: written(loose, '3', 'v2', [revision]) });
    await vi.waitFor(() => expect(enqueued).toEqual(['ext']));
    // Someone else's change of the controlled one after the revision's apply: drift.
    w?.push({ type: 'MODIFIED', object: written(deploy, '4', 'v3', [revision, user]) });
    await vi.waitFor(() => expect(enqueued).toEqual(['ext', 'ext']));
  });

  it('tells a deleted object from a relabelled one in its log line, queueing both as deletes', async () => {
    const logged: { msg: string; object: string }[] = [];
    const capture = pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line) as { msg: string; object: string }) });
    const { cluster, drift, enqueued, registry } = setup({ log: capture });
    const uid = (name: string, u: string): KubeObject => ({
      ...obj('ConfigMap', name, 'ns'),
      metadata: { ...obj('ConfigMap', name, 'ns').metadata, uid: u },
    });
    const [kept, gone, recreated] = [uid('relabelled', 'u1'), uid('deleted', 'u2'), uid('recreated', 'u3')];
    cluster.objects = [kept, gone, recreated];
    await drift.track({ ...RELEASE, objects: [kept, gone, recreated] });
    await vi.waitFor(() => expect(cluster.open('ConfigMap')).toHaveLength(1));
    const [w] = cluster.open('ConfigMap');
    // The API server: the first lost its owner labels (still there, same uid), the second is gone,
    // the third was deleted and created again (another uid). Each watch event carries the last matching content.
    cluster.objects = [kept, { ...recreated, metadata: { ...recreated.metadata, uid: 'u4' } }];
    for (const o of [kept, gone, recreated]) w?.push({ type: 'DELETED', object: { ...o, metadata: { ...o.metadata, resourceVersion: '7' } } });
    await vi.waitFor(() => expect(logged.filter((l) => l.msg.startsWith('managed object'))).toHaveLength(3));
    expect(logged.filter((l) => l.msg.startsWith('managed object')).map((l) => [l.msg, l.object])).toEqual(
      expect.arrayContaining([
        ['managed object relabelled, reconciling', 'ConfigMap ns/relabelled'],
        ['managed object deleted, reconciling', 'ConfigMap ns/deleted'],
        ['managed object deleted, reconciling', 'ConfigMap ns/recreated'],
      ]),
    );
    expect(enqueued).toContain('ext');
    expect((await registry.getSingleMetric('operator_controller_drift_events_total')?.get())?.values).toEqual([
      expect.objectContaining({ labels: { event: 'delete' }, value: 3 }),
    ]);
  });

  it('queues the extension when the first list lacks an object of the release', async () => {
    const { cluster, drift, enqueued } = setup();
    cluster.objects = LIVE.filter((o) => o.metadata.name !== 'ext-controller');
    await drift.track(RELEASE);
    await vi.waitFor(() => expect(enqueued).toEqual(['ext']));
  });

  it('follows the release: new resources or namespaces start watches, dropped ones stop, another ServiceAccount restarts all', async () => {
    const { cluster, drift } = setup();
    await drift.track(RELEASE);
    await vi.waitFor(() => expect(cluster.watches).toHaveLength(4));
    const upgraded = [obj('ClusterRole', 'ext-role'), obj('Deployment', 'ext-controller', 'ns'), obj('Secret', 'ext-token', 'ns')];
    await drift.track({ ...RELEASE, objects: upgraded });
    await vi.waitFor(() => expect(cluster.open('Secret')).toHaveLength(1));
    expect(cluster.open('ConfigMap')).toEqual([]);
    expect(cluster.open('Deployment')).toHaveLength(1);
    expect(cluster.watches.filter((w) => w.kind === 'Deployment')).toHaveLength(1);
    expect(drift.size).toBe(3);

    await drift.track({ ...RELEASE, serviceAccount: 'other', objects: upgraded });
    await vi.waitFor(() => expect(cluster.watches.filter((w) => !w.signal.aborted && w.identity === 'ns/other')).toHaveLength(3));
    expect(cluster.watches.filter((w) => !w.signal.aborted && w.identity === 'ns/installer')).toEqual([]);
  });

  it('keeps its watches while a kind cannot be resolved', async () => {
    const { cluster, drift } = setup();
    await drift.track(RELEASE);
    await vi.waitFor(() => expect(cluster.watches).toHaveLength(4));
    cluster.unresolvable.add('ClusterRole');
    // The set is incomplete: nothing stops, not even the watch of the namespace the release left.
    await drift.track({ ...RELEASE, objects: RELEASE.objects.filter((o) => o.metadata.name !== 'ext-other') });
    expect(cluster.open('ClusterRole')).toHaveLength(1);
    expect(cluster.open('ConfigMap')).toHaveLength(2);
    expect(drift.size).toBe(4);
    cluster.unresolvable.clear();
    await drift.track({ ...RELEASE, objects: RELEASE.objects.filter((o) => o.metadata.name !== 'ext-other') });
    expect(cluster.open('ConfigMap')).toHaveLength(1);
  });

  it('retries a forbidden watch with backoff without touching the others', async () => {
    const { cluster, drift, enqueued, registry } = setup();
    cluster.forbidden.add('ConfigMap');
    cluster.objects = [...LIVE];
    await drift.track(RELEASE);
    await drift.track({ extension: 'other', installNamespace: 'o', serviceAccount: 'sa', objects: [obj('ConfigMap', 'o-settings', 'o')] });
    await vi.waitFor(() => expect(cluster.open('Deployment')).toHaveLength(1));
    // Each of the three refused watches (ns/installer in ns and other, o/sa in o) lists again
    // after a backoff of 20-40 ms (jittered up to 60 ms), never sooner: a few attempts, not a
    // hot loop. (1 ms less: a timer may fire up to a millisecond early by the event loop's clock.)
    const attempts = (): number[][] =>
      Object.values(
        Object.groupBy(
          cluster.lists.filter((l) => l.kind === 'ConfigMap'),
          (l) => `${l.identity} ${l.namespace ?? ''}`,
        ),
      ).map((ls) => (ls ?? []).map((l) => l.at));
    await vi.waitFor(() => {
      expect(attempts()).toHaveLength(3);
      for (const times of attempts()) expect(times.length).toBeGreaterThanOrEqual(4);
    });
    for (const times of attempts()) for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(19);
    expect((await registry.getSingleMetric('informer_list_errors_total')?.get())?.values[0]?.value).toBeGreaterThanOrEqual(12);
    cluster.open('Deployment')[0]?.push({ type: 'DELETED', object: obj('Deployment', 'ext-controller', 'ns') });
    await vi.waitFor(() => expect(enqueued).toEqual(['ext']));
  });

  it('coalesces a burst of changes into one queued reconcile per interval', async () => {
    // The interval is what is under test: fake time.
    vi.useFakeTimers();
    try {
      const { cluster, drift, enqueued } = setup({ minIntervalMs: 100 });
      cluster.objects = [...LIVE];
      await drift.track(RELEASE);
      await vi.waitFor(() => expect(cluster.open('ConfigMap')).toHaveLength(2));
      const [w] = cluster.open('ConfigMap');
      for (let i = 0; i < 20; i++) w?.push({ type: 'DELETED', object: obj('ConfigMap', `x${i}`, 'ns') });
      await vi.waitFor(() => expect(enqueued).toEqual(['ext']));
      await vi.advanceTimersByTimeAsync(100);
      expect(enqueued).toEqual(['ext', 'ext']);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(enqueued).toEqual(['ext', 'ext']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stops an extension watches on stop, every watch when leadership ends, and starts none afterwards', async () => {
    const { cluster, drift, leading } = setup();
    await drift.track(RELEASE);
    await drift.track({ ...RELEASE, extension: 'ext2' });
    await vi.waitFor(() => expect(cluster.watches).toHaveLength(8));
    drift.stop('ext');
    expect(drift.size).toBe(4);
    expect(cluster.watches.filter((w) => w.signal.aborted)).toHaveLength(4);
    leading.abort();
    await drift.settled();
    expect(drift.size).toBe(0);
    expect(cluster.open('ConfigMap')).toEqual([]);
    await drift.track(RELEASE);
    expect(drift.size).toBe(0);
  });
});

describe('fingerprint', () => {
  it("ignores the deployment controller's revision annotation: on a real cluster it follows every rollout", () => {
    const base = obj('Deployment', 'd', 'ns', { spec: { replicas: 1 } });
    const rolled = { ...structuredClone(base), metadata: { ...base.metadata, annotations: { 'deployment.kubernetes.io/revision': '2' } } };
    expect(fingerprint(rolled).digest).toBe(fingerprint(base).digest);
    const annotated = {
      ...structuredClone(base),
      metadata: { ...base.metadata, annotations: { 'deployment.kubernetes.io/revision': '2', team: 'a' } },
    };
    expect(fingerprint(annotated).digest).not.toBe(fingerprint(base).digest);
  });

  it('keeps identity and a digest that ignores status, resourceVersion, managedFields and last-applied', () => {
    const base = obj('ConfigMap', 'a', 'ns', { data: { k: 'v' } });
    const f = fingerprint(structuredClone(base));
    expect(f).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', resourceVersion: '1' }, digest: f.digest });
    const noisy = {
      ...structuredClone(base),
      status: { x: 1 },
      metadata: {
        ...base.metadata,
        resourceVersion: '9',
        managedFields: [{ manager: 'm' }],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
      },
    };
    expect(fingerprint(noisy).digest).toBe(f.digest);
    expect(fingerprint({ ...structuredClone(base), data: { k: 'w' } }).digest).not.toBe(f.digest);
    expect(fingerprint({ ...structuredClone(base), metadata: { ...base.metadata, labels: { l: '1' } } }).digest).not.toBe(f.digest);
  });
});

describe('lastWriteIsOurs', () => {
  const at = (manager: string, time: string, operation = 'Apply', subresource?: string) => ({
    manager,
    operation,
    time,
    ...(subresource === undefined ? {} : { subresource }),
  });
  it.each([
    ['our apply is the newest entry', [at('kubectl', '2026-01-01T00:00:01Z', 'Update'), at(FIELD_MANAGER, '2026-01-01T00:00:02Z')], true],
    ['someone wrote after us', [at(FIELD_MANAGER, '2026-01-01T00:00:02Z'), at('kubectl', '2026-01-01T00:00:03Z', 'Update')], false],
    ['someone wrote in the same second', [at(FIELD_MANAGER, '2026-01-01T00:00:02Z'), at('hpa', '2026-01-01T00:00:02Z', 'Update')], false],
    ['our manager through a subresource', [at(FIELD_MANAGER, '2026-01-01T00:00:02Z', 'Update', 'status')], false],
    [
      'a controller reported status after our apply',
      [at(FIELD_MANAGER, '2026-01-01T00:00:02Z'), at('kcm', '2026-01-01T00:00:09Z', 'Update', 'status')],
      true,
    ],
    [
      'the deployment controller stamped its revision after our apply',
      [
        at(FIELD_MANAGER, '2026-01-01T00:00:02Z'),
        {
          ...at('kube-controller-manager', '2026-01-01T00:00:05Z', 'Update'),
          fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, 'f:deployment.kubernetes.io/revision': {} } } },
        },
      ],
      true,
    ],
    [
      'someone annotated after our apply',
      [
        at(FIELD_MANAGER, '2026-01-01T00:00:02Z'),
        { ...at('kubectl', '2026-01-01T00:00:05Z', 'Update'), fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:note': {} } } } },
      ],
      false,
    ],
    ['someone scaled after our apply', [at(FIELD_MANAGER, '2026-01-01T00:00:02Z'), at('kubectl', '2026-01-01T00:00:09Z', 'Update', 'scale')], false],
    ['another manager applies', [at('someone-else', '2026-01-01T00:00:02Z')], false],
    ['no managedFields', undefined, false],
  ])('%s: %s', (_name, fields, want) => {
    expect(lastWriteIsOurs(fields)).toBe(want);
  });
});
