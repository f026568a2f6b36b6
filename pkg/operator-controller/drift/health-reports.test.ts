// The health side of the drift watches: verdicts from the caches, and a reconcile queued when
// they change from what the last reconcile was told, never counted or repaired as drift.
import { describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { obj, setup } from '../../../test/support/drift-cluster.ts';
import { fingerprint } from './targets.ts';
import type { TrackedRelease } from './tracker.ts';

const available = (status: string, reason: string) => ({
  observedGeneration: 1,
  conditions: [{ type: 'Available', status, reason, message: `${reason} message` }],
});

function deployment(rv: string, status?: unknown): KubeObject {
  const d = obj('Deployment', 'ext-controller', 'ns', status === undefined ? {} : { status });
  return { ...d, metadata: { ...d.metadata, generation: 1, resourceVersion: rv } };
}

const crd = (established: string): KubeObject =>
  obj('CustomResourceDefinition', 'widgets.example.com', undefined, { status: { conditions: [{ type: 'Established', status: established }] } });

/** The release's ConfigMap, listed so that no first list misses it (that would be drift). */
const SETTINGS = obj('ConfigMap', 'ext-settings', 'ns');

const RELEASE: TrackedRelease = {
  extension: 'ext',
  installNamespace: 'ns',
  serviceAccount: 'installer',
  objects: [obj('Deployment', 'ext-controller'), obj('CustomResourceDefinition', 'widgets.example.com'), obj('ConfigMap', 'ext-settings')],
};

/** Waits until both judged watches listed (their watch is open) without asking for health. */
async function listed(cluster: ReturnType<typeof setup>['cluster']): Promise<void> {
  await vi.waitFor(() => expect(cluster.open('Deployment').length + cluster.open('CustomResourceDefinition').length).toBe(2));
}

async function drifted(registry: ReturnType<typeof setup>['registry']): Promise<number> {
  const values = (await registry.getSingleMetric('operator_controller_drift_events_total')?.get())?.values ?? [];
  return values.reduce((n, v) => n + v.value, 0);
}

describe('DriftWatches health', () => {
  it('is not observed before the watches list, then gives each judged object its verdict', async () => {
    const { cluster, drift } = setup();
    expect(drift.health('ext')).toEqual({ observed: false });
    cluster.objects = [deployment('1', available('True', 'MinimumReplicasAvailable')), crd('True'), SETTINGS];
    await drift.track(RELEASE);
    await listed(cluster);
    expect(drift.health('ext')).toEqual({
      observed: true,
      objects: [
        { object: 'CustomResourceDefinition widgets.example.com', health: { ready: true } },
        { object: 'Deployment ns/ext-controller', health: { ready: true } },
      ],
    });
  });

  it('reports an object of the release that its watch does not see as not found', async () => {
    const { cluster, drift } = setup();
    cluster.objects = [crd('True'), SETTINGS];
    await drift.track(RELEASE);
    await listed(cluster);
    const health = drift.health('ext');
    expect(health.observed && health.objects[1]).toEqual({ object: 'Deployment ns/ext-controller', health: { ready: false, why: 'not found' } });
  });

  it('queues a reconcile when a status change changes a verdict it handed out, without counting drift', async () => {
    const { cluster, drift, enqueued, registry } = setup();
    cluster.objects = [deployment('1'), crd('True'), SETTINGS];
    await drift.track(RELEASE);
    await listed(cluster);
    // The reconcile's health step reads the verdicts.
    expect(drift.health('ext').observed).toBe(true);
    expect(enqueued).toEqual([]);
    const [w] = cluster.open('Deployment');
    // The deployment controller reports: Available False, then True.
    w?.push({ type: 'MODIFIED', object: deployment('2', available('False', 'MinimumReplicasUnavailable')) });
    await vi.waitFor(() => expect(enqueued).toEqual(['ext']));
    const health = drift.health('ext');
    expect(health.observed && health.objects[1]?.health).toEqual({
      ready: false,
      why: 'Available=False MinimumReplicasUnavailable: MinimumReplicasUnavailable message',
    });
    // A status write that changes no verdict (the same condition again) queues nothing.
    w?.push({ type: 'MODIFIED', object: deployment('3', available('False', 'MinimumReplicasUnavailable')) });
    w?.push({ type: 'MODIFIED', object: deployment('4', available('True', 'MinimumReplicasAvailable')) });
    await vi.waitFor(() => expect(enqueued).toEqual(['ext', 'ext']));
    expect(await drifted(registry)).toBe(0);
    expect(drift.takeDrifted('ext')).toEqual([]);
  });

  it('queues nothing for verdicts no reconcile asked for', async () => {
    const { cluster, drift, enqueued } = setup();
    cluster.objects = [deployment('1'), crd('True'), SETTINGS];
    await drift.track(RELEASE);
    await vi.waitFor(() => expect(cluster.open('Deployment')).toHaveLength(1));
    const [w] = cluster.open('Deployment');
    w?.push({ type: 'MODIFIED', object: deployment('2', available('True', 'MinimumReplicasAvailable')) });
    // A later change of something else (drift) shows the event above was handled.
    w?.push({ type: 'MODIFIED', object: { ...deployment('3', available('True', 'MinimumReplicasAvailable')), spec: { replicas: 5 } } });
    await vi.waitFor(() => expect(enqueued).toEqual(['ext']));
  });

  it('queues a reconcile when the watches finish listing after a reconcile found them unlisted', async () => {
    const { cluster, drift, enqueued } = setup();
    cluster.objects = [deployment('1'), crd('True'), SETTINGS];
    cluster.forbidden.add('CustomResourceDefinition');
    await drift.track(RELEASE);
    await vi.waitFor(() => expect(cluster.open('Deployment')).toHaveLength(1));
    expect(drift.health('ext')).toEqual({ observed: false });
    // The ServiceAccount may now list CRDs: the retried watch lists, and the reconcile learns it.
    cluster.forbidden.clear();
    await vi.waitFor(() => expect(enqueued).toEqual(['ext']));
    expect(drift.health('ext').observed).toBe(true);
  });

  it('queues no reconcile from a first list while another watch of the extension has not listed (it would re-apply what no cache holds)', async () => {
    const { cluster, drift, enqueued } = setup();
    cluster.objects = [deployment('1'), crd('False'), SETTINGS];
    cluster.forbidden.add('ConfigMap');
    // The install's reconcile asked before any watch listed.
    expect(drift.health('ext')).toEqual({ observed: false });
    await drift.track(RELEASE);
    await listed(cluster);
    // The API server establishes the CRD (a status event on a listed, judged watch): no reconcile yet either.
    cluster.open('CustomResourceDefinition')[0]?.push({ type: 'MODIFIED', object: crd('True') });
    // The judged watches listed; the ConfigMap's was refused and retried twice since.
    const refused = cluster.lists.filter((l) => l.kind === 'ConfigMap').length;
    await vi.waitFor(() => expect(cluster.lists.filter((l) => l.kind === 'ConfigMap').length).toBeGreaterThanOrEqual(refused + 2));
    expect(enqueued).toEqual([]);
    // Its watch lists: the last first list checks health, and queues the one reconcile.
    cluster.forbidden.clear();
    await vi.waitFor(() => expect(enqueued).toEqual(['ext']));
    expect(drift.health('ext').observed).toBe(true);
  });

  it('gives the verdicts of the apply answers until the watches list, and queues nothing when the lists agree', async () => {
    const { cluster, drift, enqueued } = setup();
    cluster.objects = [deployment('1'), crd('True'), SETTINGS];
    for (const kind of ['Deployment', 'CustomResourceDefinition', 'ConfigMap']) cluster.forbidden.add(kind);
    await drift.track(RELEASE);
    // The install's apply answered (the same objects the lists will hold); no watch has listed.
    for (const answer of cluster.objects) drift.noteApplied('ext', answer);
    expect(drift.health('ext')).toEqual({
      observed: true,
      objects: [
        { object: 'CustomResourceDefinition widgets.example.com', health: { ready: true } },
        { object: 'Deployment ns/ext-controller', health: { ready: false, why: 'status not reported yet' } },
      ],
    });
    cluster.forbidden.clear();
    await vi.waitFor(() => expect(cluster.open('ConfigMap')).toHaveLength(1));
    await listed(cluster);
    // A later change of something else (drift) shows the lists were handled: one reconcile, for it.
    cluster.open('ConfigMap')[0]?.push({ type: 'MODIFIED', object: { ...SETTINGS, data: { changed: 'yes' } } });
    await vi.waitFor(() => expect(enqueued).toEqual(['ext']));
  });

  it('queues a reconcile when the first lists tell otherwise than the apply answers', async () => {
    const { cluster, drift, enqueued } = setup();
    cluster.objects = [deployment('1'), crd('False'), SETTINGS];
    cluster.forbidden.add('CustomResourceDefinition');
    await drift.track(RELEASE);
    for (const answer of cluster.objects) drift.noteApplied('ext', answer);
    const before = drift.health('ext');
    expect(before.observed && before.objects[0]?.health.ready).toBe(false);
    // The API server established the CRD between the apply and the list.
    cluster.objects = [deployment('1'), crd('True'), SETTINGS];
    cluster.forbidden.clear();
    await vi.waitFor(() => expect(enqueued).toEqual(['ext']));
    const after = drift.health('ext');
    expect(after.observed && after.objects[0]?.health).toEqual({ ready: true });
  });

  it('queues the reconcile that reports not observed when a watch still has not listed once the answers are a minute old', async () => {
    const { cluster, drift, enqueued } = setup();
    cluster.objects = [deployment('1'), crd('True'), SETTINGS];
    cluster.forbidden.add('CustomResourceDefinition');
    await drift.track(RELEASE);
    for (const answer of cluster.objects) drift.noteApplied('ext', answer);
    await vi.waitFor(() => expect(cluster.open('Deployment')).toHaveLength(1));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      expect(drift.health('ext').observed).toBe(true);
      await vi.advanceTimersByTimeAsync(59_000);
      expect(enqueued).toEqual([]);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(enqueued).toEqual(['ext']);
      expect(drift.health('ext')).toEqual({ observed: false });
    } finally {
      vi.useRealTimers();
    }
  });

  it('forgets what it handed out when the extension stops', async () => {
    const { cluster, drift, enqueued } = setup();
    cluster.objects = [deployment('1'), crd('True'), SETTINGS];
    await drift.track(RELEASE);
    await listed(cluster);
    drift.stop('ext');
    expect(drift.health('ext')).toEqual({ observed: false });
    drift.stop('ext');
    expect(enqueued).toEqual([]);
  });

  it('sees a deleted workload as not found, counted as drift once', async () => {
    const { cluster, drift, enqueued, registry } = setup();
    cluster.objects = [deployment('1', available('True', 'MinimumReplicasAvailable')), crd('True'), SETTINGS];
    await drift.track(RELEASE);
    await listed(cluster);
    cluster.open('Deployment')[0]?.push({ type: 'DELETED', object: deployment('2', available('True', 'MinimumReplicasAvailable')) });
    await vi.waitFor(() => expect(enqueued.length).toBeGreaterThan(0));
    const health = drift.health('ext');
    expect(health.observed && health.objects[1]?.health).toEqual({ ready: false, why: 'not found' });
    expect(await drifted(registry)).toBe(1);
  });

  it('judges and digests list items that carry no apiVersion and kind as the type their watch lists', () => {
    const item = {
      metadata: { name: 'widgets.example.com' },
      status: { conditions: [{ type: 'Established', status: 'True' }] },
    } as unknown as KubeObject;
    expect(fingerprint(item).health).toBeUndefined();
    const type = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
    expect(fingerprint(item, type).health).toEqual({ ready: true });
    // The same object from a watch event (with apiVersion and kind) is no change.
    expect(fingerprint({ ...type, ...item }, type).digest).toBe(fingerprint(item, type).digest);
  });
});
