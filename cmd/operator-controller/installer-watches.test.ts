import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { DriftWatches } from '../../pkg/operator-controller/drift/index.ts';
import { createObjectSetController } from '../../pkg/operator-controller/objectset/index.ts';
import { CLUSTER_OBJECT_SET } from '../../pkg/shared/api/index.ts';
import { Informer, clientListWatch, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { fakeCluster, type FakeCluster } from '../../test/support/fake-cluster.ts';
import { driftSide, installerWatches, type InstallerWatches } from './installer-watches.ts';
import { abortedAfterEach } from '../../test/support/per-test.ts';

const log = pino({ level: 'silent' });
const aborted = abortedAfterEach();
const leading = (): AbortSignal => aborted().signal;

const labels = { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'ext' };
const configMap: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'ns', labels }, data: { k: 'v' } };
const account: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'operator', namespace: 'ns', labels } };
const role: KubeObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'ext-role', labels }, rules: [] };

/**
 * The two controllers of an extension installed by ServiceAccount ns/installer over `fc`: the
 * revision controller rolling out revision ext-1 of the three objects, the drift watches
 * tracking the same release; both on `shared` installer watches, or each on its own (none).
 */
async function run(fc: FakeCluster, shared: InstallerWatches | undefined) {
  const registry = new Registry();
  const signal = leading();
  fc.seed({
    apiVersion: CLUSTER_OBJECT_SET.apiVersion,
    kind: CLUSTER_OBJECT_SET.kind,
    metadata: { name: 'ext-1', generation: 1, creationTimestamp: new Date().toISOString(), labels },
    spec: {
      lifecycleState: 'Active',
      revision: 1,
      collisionProtection: 'Prevent',
      phases: [
        { name: 'rbac', objects: [{ object: role }] },
        { name: 'deploy', objects: [{ object: configMap }, { object: account }] },
      ],
    },
  });
  const writer = { client: fc.client, mayWrite: () => true, extension: 'ext', identity: 'ns/installer' };
  const informer = new Informer<KubeObject>({ name: 'clusterobjectsets', source: clientListWatch(fc.client, CLUSTER_OBJECT_SET), log });
  const revisions = createObjectSetController({
    ports: { client: fc.client, writerFor: () => writer },
    informer,
    log,
    registry,
    objectWatches: shared,
  });
  void informer.run(signal);
  void revisions.run(signal);
  const queued: string[] = [];
  const drift = new DriftWatches({
    scoped: { forServiceAccount: () => fc.client },
    enqueue: (name) => queued.push(name),
    log,
    signal,
    minIntervalMs: 0,
    watches: driftSide(shared),
  });
  const succeeded = (): string | undefined =>
    (
      (
        fc.live({ kind: 'ClusterObjectSet', metadata: { name: 'ext-1' } })?.['status'] as
          { conditions?: { type: string; status: string }[] } | undefined
      )?.conditions ?? []
    ).find((c) => c.type === 'Succeeded')?.status;
  await expect.poll(succeeded).toBe('True');
  await drift.track({
    extension: 'ext',
    installNamespace: 'ns',
    serviceAccount: 'installer',
    serviceAccountNamespace: 'ns',
    objects: [role, configMap, account],
  });
  await drift.listed('ext');
  /** The revision reconciles the revision watches queued, by change. */
  const revisionEvents = async (): Promise<Record<string, number>> =>
    Object.fromEntries(
      ((await registry.getSingleMetric('operator_controller_revision_object_events_total')?.get())?.values ?? []).map((v) => [
        `${String(v.labels['kind'])} ${String(v.labels['change'])}`,
        v.value,
      ]),
    );
  return { drift, queued, revisionEvents };
}

/** Requests `verb` of `kind` in `namespace` made so far. */
const requests = (fc: FakeCluster, verb: string, kind: string, namespace = ''): number =>
  fc.calls.filter((c) => c === `${verb} ${kind} ${namespace}`.trimEnd()).length;

describe('installer watches shared by the drift watches and the revision watches (BoxcutterRuntime)', () => {
  it('one list and one watch per installer, kind and namespace, where each controller opened its own', async () => {
    const fc = fakeCluster();
    await run(fc, installerWatches({ log }));
    for (const [kind, namespace] of [
      ['ConfigMap', 'ns'],
      ['ServiceAccount', 'ns'],
      ['ClusterRole', ''],
    ] as const) {
      expect([kind, requests(fc, 'list', kind, namespace), requests(fc, 'watch', kind, namespace)]).toEqual([kind, 1, 1]);
    }
    // Each controller alone (as before the sharing): two of each.
    const apart = fakeCluster();
    await run(apart, undefined);
    await expect.poll(() => requests(apart, 'watch', 'ConfigMap', 'ns')).toBe(2);
    expect(requests(apart, 'list', 'ConfigMap', 'ns')).toBe(2);
  });

  it('each controller still gets its events: drift queues the extension, the revision repairs its objects, status changes queue only the revision', async () => {
    const fc = fakeCluster();
    const { drift, queued, revisionEvents } = await run(fc, installerWatches({ log }));
    expect(queued).toEqual([]);
    // Another writer changes an object: drift queues the extension, the revision controller puts the content back.
    fc.edit(configMap, (live) => void (live['data'] = { k: 'changed' }));
    await expect.poll(() => fc.live(configMap)?.['data']).toEqual({ k: 'v' });
    await expect.poll(() => queued.length).toBeGreaterThanOrEqual(1);
    expect(drift.takeDrifted('ext')).toEqual(['ConfigMap ns/settings']);
    expect((await revisionEvents())['ConfigMap content']).toBeGreaterThanOrEqual(1);
    // A deletion: both again, and the object is back.
    const before = queued.length;
    await fc.client.delete({ apiVersion: 'v1', kind: 'ServiceAccount', name: 'operator', namespace: 'ns' });
    await expect.poll(() => fc.live(account)).toBeDefined();
    await expect.poll(() => queued.length).toBeGreaterThan(before);
    expect((await revisionEvents())['ServiceAccount delete']).toBe(1);
    // A status change: the revision's probes look again; no drift.
    const after = queued.length;
    fc.edit(role, (live) => void (live['status'] = { seen: true }));
    await expect.poll(revisionEvents).toMatchObject({ 'ClusterRole status': 1 });
    expect(queued.length).toBe(after);
    // The extension's objects only: an object labelled with its name by another kind of owner is not its drift.
    fc.seed({ ...configMap, metadata: { name: 'foreign', namespace: 'ns', labels: { 'olm.operatorframework.io/owner-name': 'ext' } } });
    fc.edit({ ...configMap, metadata: { name: 'foreign', namespace: 'ns' } }, (live) => void (live['data'] = { k: 'x' }));
    await fc.client.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: 'foreign', namespace: 'ns' });
    await expect.poll(() => fc.calls.filter((c) => c.startsWith('delete ConfigMap ns/foreign')).length).toBe(1);
    expect(drift.ownedUid('ext', { ...configMap, metadata: { name: 'foreign', namespace: 'ns' } })).toBeUndefined();
    expect(queued.length).toBe(after);
  });
});
