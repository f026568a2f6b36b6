// The apply step's decisions with a fake cluster and store: refused releases (single
// ownership), the walk up a version range, drift-cache knowledge instead of reads. The
// end-to-end proof is test/e2e/operator-controller-ownership.test.ts.
import { describe, expect, it } from 'vitest';
import { withOwnerLabels } from '../applier/index.ts';
import { fakeCluster, type FakeCluster } from '../../test/support/fake-cluster.ts';
import type { KubeObject, ScopedClientFactory } from '../kube/index.ts';
import type { Release, ReleaseStore } from '../release/index.ts';
import type { DriftTracker } from './drift-watches.ts';
import type { ExtensionReconcilerDeps, ExtensionState } from './pipeline-state.ts';
import { applyBundle } from './steps-apply.ts';
import { extensionState } from '../../test/support/extension-state.ts';

const cm = (name: string): KubeObject =>
  withOwnerLabels([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: {} }], 'ext')[0]!;

class MemoryStore implements Pick<ReleaseStore, 'history' | 'create' | 'update'> {
  readonly records: Release[] = [];
  history(): Promise<Release[]> {
    return Promise.resolve([...this.records].sort((a, b) => b.revision - a.revision));
  }
  create(r: Release): Promise<void> {
    this.records.push(structuredClone(r));
    return Promise.resolve();
  }
  update(r: Release): Promise<void> {
    const i = this.records.findIndex((x) => x.revision === r.revision);
    this.records[i] = structuredClone(r);
    return Promise.resolve();
  }
}

function depsFor(cluster: FakeCluster, store: MemoryStore, owns: (obj: KubeObject) => boolean = () => false): ExtensionReconcilerDeps {
  const drift = {
    track: () => Promise.resolve(),
    stop: () => undefined,
    expectDeletes: () => undefined,
    owns: (_e: string, o: KubeObject) => owns(o),
  } satisfies DriftTracker;
  const scoped = { forServiceAccount: () => cluster.client } as unknown as ScopedClientFactory;
  return { scoped, releases: store as unknown as ReleaseStore, drift } as unknown as ExtensionReconcilerDeps;
}

function stateFor(version: string, objects: KubeObject[], installed?: Release): ExtensionState {
  const bundle = { package: 'p', name: `p.v${version}`, version, image: `r/p:v${version}` };
  return extensionState({
    target: { bundle, fromCatalog: true },
    objects,
    history: installed === undefined ? [] : [installed],
    ...(installed === undefined ? {} : { installed }),
  });
}

function condition(s: ExtensionState, type: string): { status: string; reason: string; message: string } | undefined {
  return (s.ce.status as { conditions?: { type: string; status: string; reason: string; message: string }[] } | undefined)?.conditions?.find(
    (c) => c.type === type,
  );
}

describe('apply step', () => {
  it('refuses a release whose object someone else made: nothing written or recorded, Retrying with upstream message', async () => {
    const cluster = fakeCluster();
    cluster.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'ns' } });
    const store = new MemoryStore();
    const s = stateFor('1.0.0', [cm('a'), cm('b')]);
    await expect(applyBundle(depsFor(cluster, store), s)).rejects.toThrow();
    expect(cluster.writes).toEqual([]);
    expect(store.records).toEqual([]);
    expect(condition(s, 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'Retrying',
      message:
        'error for resolved bundle "p.v1.0.0" with version "1.0.0": failed to get release state using server-side dry-run: ' +
        "ConfigMap 'b' already exists in namespace 'ns' and cannot be managed by operator-controller",
    });
    expect(condition(s, 'Installed')).toMatchObject({ status: 'False', message: 'No bundle installed' });
  });

  it('asks for another reconcile after moving to a new bundle, so a range is walked hop by hop', async () => {
    const cluster = fakeCluster();
    const store = new MemoryStore();
    const first = stateFor('1.0.0', [cm('a')]);
    expect(await applyBundle(depsFor(cluster, store), first)).toEqual({ requeue: true });
    const [installed] = await store.history();
    // The same bundle again: nothing to walk.
    expect(await applyBundle(depsFor(cluster, store), stateFor('1.0.0', [cm('a')], installed))).toBeUndefined();
    expect(await applyBundle(depsFor(cluster, store), stateFor('1.1.0', [cm('a')], installed))).toEqual({ requeue: true });
    expect(condition(first, 'Progressing')).toMatchObject({ reason: 'Succeeded', message: 'Desired state reached' });
  });

  it('repairs an unchanged release without reading objects the drift watches know are ours', async () => {
    const cluster = fakeCluster();
    const store = new MemoryStore();
    await applyBundle(depsFor(cluster, store), stateFor('1.0.0', [cm('a'), cm('b')]));
    const [installed] = await store.history();
    cluster.calls.length = 0;
    await applyBundle(
      depsFor(cluster, store, () => true),
      stateFor('1.0.0', [cm('a'), cm('b')], installed),
    );
    expect(cluster.calls).toEqual(['apply ConfigMap ns/a', 'apply ConfigMap ns/b']);
  });

  it('does not repair into an object a user made after ours was deleted', async () => {
    const cluster = fakeCluster();
    const store = new MemoryStore();
    await applyBundle(depsFor(cluster, store), stateFor('1.0.0', [cm('a')]));
    const [installed] = await store.history();
    cluster.objects.delete('ConfigMap ns/a');
    cluster.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } });
    const s = stateFor('1.0.0', [cm('a')], installed);
    await expect(applyBundle(depsFor(cluster, store), s)).rejects.toThrow('already exists');
    expect(cluster.live(cm('a'))?.metadata.labels).toBeUndefined();
    expect(condition(s, 'Installed')).toMatchObject({ status: 'True' });
  });
});
