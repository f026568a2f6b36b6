// A revision's siblings read from the ClusterObjectSet informer's copies (siblings.ts, issue 74):
// no list of ClusterObjectSets a reconcile, the archive of the previous revision on the
// resourceVersion the copy holds (a copy behind it conflicts and the reconcile is retried), no
// second archive on a copy not yet past this controller's own, and a sibling gone is no error.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parseClusterObjectSet, type ClusterObjectSet } from '../../shared/api/index.ts';
import type { ReconcileContext } from '../../shared/controller/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import { informerCopy } from '../../../test/support/informer-copy.ts';
import { clusterObjectSetReconciler } from './controller.ts';
import { everyRevisionAs } from './writer.ts';

const NS = 'ns';
const CREATED = '2026-01-01T00:00:00Z';
const OWNER = { 'olm.operatorframework.io/owner-name': 'ext' };
const ctx = (): ReconcileContext => ({ signal: new AbortController().signal, log: pino({ level: 'silent' }) });

const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { k: name } });

function seedSet(fc: FakeCluster, name: string, revision: number): void {
  fc.seed({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterObjectSet',
    metadata: { name, generation: 1, creationTimestamp: CREATED, labels: OWNER, annotations: { 'olm.operatorframework.io/bundle-version': '1.0.0' } },
    spec: { lifecycleState: 'Active', revision, collisionProtection: 'Prevent', phases: [{ name: 'p', objects: [{ object: configMap(name) }] }] },
  });
}

function setOf(fc: FakeCluster, name: string): ClusterObjectSet {
  const parsed = parseClusterObjectSet(fc.live({ kind: 'ClusterObjectSet', metadata: { name } }));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

function harness() {
  const fc = fakeCluster();
  seedSet(fc, 'ext-1', 1);
  seedSet(fc, 'ext-2', 2);
  const copy = informerCopy(fc, 'ClusterObjectSet');
  const reconciler = clusterObjectSetReconciler(
    { client: fc.client, writerFor: everyRevisionAs(fc.client), cachedRevisions: copy.of },
    { probeRequeueMs: 1000, clock: () => new Date(CREATED) },
  );
  const lists = (): string[] => fc.calls.filter((c) => c.startsWith('list ClusterObjectSet'));
  const archives = (): string[] => fc.calls.filter((c) => c === 'patch ClusterObjectSet ext-1');
  return { fc, copy, reconcile: (name: string) => reconciler.reconcile(name, ctx()), lists, archives };
}

describe("ClusterObjectSet siblings from the informer's copies (issue 74)", () => {
  it('lists no ClusterObjectSet, archives the previous revision once, and not again while the copy is behind that archive', async () => {
    const h = harness();
    await h.reconcile('ext-2');
    expect(setOf(h.fc, 'ext-2').status?.conditions?.find((c) => c.type === 'Succeeded')?.status).toBe('True');
    expect(setOf(h.fc, 'ext-1').spec.lifecycleState).toBe('Archived');
    expect(h.archives()).toHaveLength(1);
    // The copy still shows ext-1 active, at the resourceVersion archived on: no second patch, no conflict.
    await expect(h.reconcile('ext-2')).resolves.toEqual({});
    expect(h.archives()).toHaveLength(1);
    h.copy.sync();
    await expect(h.reconcile('ext-2')).resolves.toEqual({});
    expect(h.archives()).toHaveLength(1);
    expect(h.lists()).toEqual([]);
  });

  it('archives on the resourceVersion of the copy: a copy behind the revision conflicts, the reconcile is retried, then archives', async () => {
    const h = harness();
    // Someone changed ext-1 since the copy was made.
    h.fc.edit({ kind: 'ClusterObjectSet', metadata: { name: 'ext-1' } }, (s) => void (s.metadata.annotations = { note: 'changed' }));
    await expect(h.reconcile('ext-2')).rejects.toThrow(/archive previous Revision: .*modified/);
    expect(setOf(h.fc, 'ext-1').spec.lifecycleState).toBe('Active');
    expect(setOf(h.fc, 'ext-1').metadata.annotations).toEqual({ note: 'changed' });
    h.copy.sync();
    await expect(h.reconcile('ext-2')).resolves.toEqual({});
    expect(setOf(h.fc, 'ext-1').spec.lifecycleState).toBe('Archived');
    expect(h.archives()).toHaveLength(2);
  });

  it('takes a sibling the copy still holds but the cluster no longer does for gone: nothing to archive', async () => {
    const h = harness();
    h.fc.objects.delete([...h.fc.objects.keys()].find((k) => k.includes('ClusterObjectSet') && k.endsWith('ext-1')) ?? '');
    await expect(h.reconcile('ext-2')).resolves.toEqual({});
    expect(setOf(h.fc, 'ext-2').status?.conditions?.find((c) => c.type === 'Succeeded')?.status).toBe('True');
    expect(h.archives()).toHaveLength(1);
    expect(h.lists()).toEqual([]);
  });
});
