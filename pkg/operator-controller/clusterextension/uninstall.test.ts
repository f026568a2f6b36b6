// The finalizers of a ClusterExtension with fakes of their ports: a name that can never name a
// release needs no records to let go; an uninstall that skipped objects still completes. The
// end-to-end proof is in test/e2e/operator-controller-ownership.test.ts.
import { describe, expect, it } from 'vitest';
import { ORPHAN_OBJECTS_ANNOTATION, UNINSTALL_FINALIZER } from '../../shared/api/index.ts';
import { withOwnerLabels } from '../applier/index.ts';
import type { ClusterExtension } from '../../shared/api/index.ts';
import { ApiError, ServiceAccountNotFoundError, type EventRecorder, type KubeObject } from '../../shared/kube/index.ts';
import { Manifest, type Release, type ReleaseStore } from '../release/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { EXTENSION_FINALIZERS, finalizersStep, type FinalizerPorts } from './uninstall.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { releaseApplier } from '../../../test/support/extension-ports.ts';

function deleting(name: string): ExtensionState {
  const ce: ClusterExtension = {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name, generation: 1, deletionTimestamp: '2026-11-24T00:00:00Z', finalizers: [...EXTENSION_FINALIZERS] },
    spec: extensionState().ce.spec,
  };
  return extensionState({ ce });
}

/** Extensions whose health sample the finalizers removed. */
const forgotten: string[] = [];

function deps(
  history: Release[] | Error,
  calls: string[],
  client = fakeCluster().client,
  drift: FinalizerPorts['drift'] = { stop: () => undefined, ownedUid: () => undefined, revisionControlled: () => false },
): FinalizerPorts {
  const events = { event: (_o, type, reason, _action, note) => void calls.push(`event ${type} ${reason}: ${note}`) } satisfies EventRecorder;
  const releases = {
    history: (n: string) => (calls.push(`history ${n}`), history instanceof Error ? Promise.reject(history) : Promise.resolve(history)),
    deleteAll: (n: string, _s?: AbortSignal, _a?: Promise<unknown>, orphan?: boolean) => (
      calls.push(`deleteAll ${n}${orphan === true ? ' orphan' : ''}`),
      Promise.resolve()
    ),
  } as unknown as ReleaseStore;
  return {
    releases,
    applier: releaseApplier({ scoped: { forServiceAccount: () => client }, releases }),
    drift,
    healthGauge: { forget: (n: string) => void forgotten.push(n) },
    events,
    upgrades: { set: () => false },
    bundleCache: { delete: () => Promise.resolve() },
    scoped: { forServiceAccount: () => client, forget: () => undefined },
  } satisfies FinalizerPorts;
}

const finalize = async (ports: FinalizerPorts, s: ExtensionState) => finalizersStep(ports).run(s);

describe('finalizers step on a live extension', () => {
  it('adds the missing finalizers in order and ends the reconcile; with all present it continues', async () => {
    const calls: string[] = [];
    const s = extensionState({ ce: { ...extensionState().ce, metadata: { name: 'ext', generation: 1, finalizers: ['someone.else/keep'] } } });
    expect(await finalize(deps([], calls), s)).toEqual({});
    expect(s.ce.metadata.finalizers).toEqual(['someone.else/keep', ...EXTENSION_FINALIZERS]);
    expect(await finalize(deps([], calls), s)).toBeUndefined();
    expect(calls).toEqual([]);
  });
});

describe('finalizers step on an extension being deleted', () => {
  it('lets go of an extension whose name can never name a release without reading records', async () => {
    const calls: string[] = [];
    const s = deleting('x'.repeat(64));
    await finalize(deps([], calls), s);
    expect(calls).toEqual([]);
    expect(s.ce.metadata.finalizers ?? []).toEqual([]);
    // Its olmv1_extension_healthy sample goes with it.
    expect(forgotten).toContain('x'.repeat(64));
  });

  it('completes an uninstall that left objects of others in place', async () => {
    const calls: string[] = [];
    const cluster = fakeCluster();
    const cm = (name: string): KubeObject =>
      withOwnerLabels([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' } }], 'ext')[0]!;
    cluster.seed(cm('mine'));
    cluster.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'users', namespace: 'ns' } });
    const release = {
      extension: 'ext',
      revision: 1,
      status: 'failed',
      bundle: { package: 'p', name: 'p.v1', version: '1', image: 'i' },
      manifest: Manifest.ofObjects([cm('mine'), cm('users')]),
    } as unknown as Release;
    const s = deleting('ext');
    await finalize(deps([release], calls, cluster.client), s);
    expect(calls).toEqual([
      'history ext',
      'deleteAll ext',
      'event Normal Uninstalled: Uninstalled: 1 object(s) deleted, 0 CustomResourceDefinition(s) kept with their custom resources, 1 object(s) skipped',
    ]);
    expect([...cluster.objects.keys()]).toEqual(['ConfigMap ns/users']);
    expect(s.ce.metadata.finalizers ?? []).not.toContain(UNINSTALL_FINALIZER);
  });

  const corrupt = new Error(
    'release record "olmv1-system/sh.helm.release.v1.ext.v1" is corrupt: decompressing the payload failed: incorrect header check',
  );
  const upstreamRef = {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    name: 'ext',
    uid: 'u',
    controller: true,
    blockOwnerDeletion: true,
  };
  const crd = (name: string): KubeObject =>
    withOwnerLabels(
      [{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name, ownerReferences: [upstreamRef] } }],
      'ext',
    )[0]!;

  it('stops on an unreadable record with a message that names it and the way out, not the ServiceAccount', async () => {
    const calls: string[] = [];
    const s = deleting('ext');
    await expect(finalize(deps(corrupt, calls), s)).rejects.toThrow(
      /^finalizer "olm.operatorframework.io\/uninstall" failed: release record .* is corrupt: .*; the objects to delete are listed in the release records: repair or delete the record, or annotate the ClusterExtension with olm.operatorframework.io\/orphan-objects=true/,
    );
    expect(s.ce.metadata.finalizers).toContain(UNINSTALL_FINALIZER);
    expect(calls).toEqual(['history ext']);
  });

  it('lets go of an unreadable record when orphaning: records deleted, CRDs kept without their owner reference', async () => {
    const calls: string[] = [];
    const cluster = fakeCluster();
    cluster.seed(crd('w.example.com'));
    const s = deleting('ext');
    s.ce.metadata.annotations = { [ORPHAN_OBJECTS_ANNOTATION]: 'true' };
    await finalize(deps(corrupt, calls, cluster.client), s);
    expect(calls).toEqual(['history ext', 'deleteAll ext orphan']);
    expect(s.ce.metadata.finalizers ?? []).toEqual([]);
    expect(cluster.live(crd('w.example.com'))?.metadata.ownerReferences).toEqual([]);
  });

  it("removes the extension's owner reference from the CRDs an uninstall keeps, before the records go", async () => {
    const calls: string[] = [];
    const cluster = fakeCluster();
    cluster.seed(crd('w.example.com'));
    const release = {
      extension: 'ext',
      revision: 1,
      status: 'deployed',
      bundle: { package: 'p', name: 'p.v1', version: '1', image: 'i' },
      manifest: Manifest.ofObjects([crd('w.example.com')]),
    } as unknown as Release;
    await finalize(deps([release], calls, cluster.client), deleting('ext'));
    expect(cluster.live(crd('w.example.com'))?.metadata.ownerReferences).toEqual([]);
    expect(cluster.writes.filter((w) => w.startsWith('patch')).length).toBeGreaterThan(0);
  });

  it("blames the ServiceAccount's permissions only when the API server refused them", async () => {
    const calls: string[] = [];
    const refusal = new ApiError(
      403,
      'Forbidden',
      'configmaps "mine" is forbidden: User "system:serviceaccount:ns:sa" cannot delete resource "configmaps"',
    );
    const cluster = fakeCluster({ refuse: { 'delete ConfigMap ns/mine': refusal } });
    const cm = withOwnerLabels([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mine', namespace: 'ns' } }], 'ext')[0]!;
    cluster.seed(cm);
    const release = {
      extension: 'ext',
      revision: 1,
      status: 'deployed',
      bundle: { package: 'p', name: 'p.v1', version: '1', image: 'i' },
      manifest: Manifest.ofObjects([cm]),
    } as unknown as Release;
    await expect(finalize(deps([release], calls, cluster.client), deleting('ext'))).rejects.toThrow(
      /must be able to delete the extension's objects, or annotate/,
    );
  });

  it('deletes what the drift watches vouch for without reading it, after they stopped; a replaced object is judged again, a gone one is fine', async () => {
    const calls: string[] = [];
    const cluster = fakeCluster();
    const cm = (name: string, owner = 'ext'): KubeObject =>
      withOwnerLabels([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' } }], owner)[0]!;
    for (const o of [cm('mine'), cm('mine-2'), cm('taken'), cm('gone')]) cluster.seed(o);
    // What the drift caches held: since then one went and one was replaced by another extension's.
    const cached = new Map([...cluster.objects.values()].map((o) => [o.metadata.name, o.metadata.uid]));
    cluster.objects.delete('ConfigMap ns/gone');
    cluster.objects.delete('ConfigMap ns/taken');
    cluster.seed(cm('taken', 'other'));
    let stoppedAt = -1;
    const drift = {
      stop: () => void (stoppedAt = stoppedAt < 0 ? cluster.calls.length : stoppedAt),
      ownedUid: (_ext: string, o: KubeObject) => cached.get(o.metadata.name),
      revisionControlled: () => false,
    };
    const release = {
      extension: 'ext',
      revision: 1,
      status: 'deployed',
      bundle: { package: 'p', name: 'p.v1', version: '1', image: 'i' },
      manifest: Manifest.ofObjects([cm('mine'), cm('mine-2'), cm('taken'), cm('gone')]),
    } as unknown as Release;
    await finalize(deps([release], calls, cluster.client, drift), deleting('ext'));
    expect([...cluster.objects.keys()]).toEqual(['ConfigMap ns/taken']);
    expect(cluster.live(cm('taken'))?.metadata.labels?.['olm.operatorframework.io/owner-name']).toBe('other');
    // Only the replaced one was read; the drift watches stopped before the first delete.
    expect(cluster.calls.filter((c) => c.startsWith('get'))).toEqual(['get ConfigMap ns/taken']);
    expect(stoppedAt).toBeGreaterThanOrEqual(0);
    expect(cluster.calls.slice(0, stoppedAt).some((c) => c.startsWith('delete'))).toBe(false);
    expect(calls.at(-1)).toBe(
      'event Normal Uninstalled: Uninstalled: 2 object(s) deleted, 0 CustomResourceDefinition(s) kept with their custom resources, 1 object(s) skipped',
    );
  });
});

describe('finalizers step without an installer (issue 69)', () => {
  const missing = new ServiceAccountNotFoundError('ns', 'sa', new ApiError(404, 'NotFound', 'serviceaccounts "sa" not found'));
  /** A cluster on which every request the installer makes fails as a missing ServiceAccount's does. */
  function saGone(seeded: KubeObject[] = []) {
    const cluster = fakeCluster();
    for (const o of seeded) cluster.seed(o);
    const calls: string[] = [];
    for (const call of [
      'list CustomResourceDefinition',
      'get ConfigMap ns/mine',
      'delete ConfigMap ns/mine',
      'get CustomResourceDefinition w.example.com',
    ]) {
      cluster.refuse(call, missing);
    }
    return { cluster, calls };
  }
  const cm = withOwnerLabels([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mine', namespace: 'ns' } }], 'ext')[0]!;
  const release = {
    extension: 'ext',
    revision: 1,
    status: 'deployed',
    bundle: { package: 'p', name: 'p.v1', version: '1', image: 'i' },
    manifest: Manifest.ofObjects([cm]),
  } as unknown as Release;

  it('lets go of an extension that installed nothing whose ServiceAccount never existed', async () => {
    const { cluster, calls } = saGone();
    const s = deleting('ext');
    expect(await finalize(deps([], calls, cluster.client), s)).toEqual({});
    expect(s.ce.metadata.finalizers ?? []).toEqual([]);
    expect(calls).toEqual(['history ext', 'deleteAll ext orphan']);
    expect(cluster.writes).toEqual([]);
  });

  it('with the orphan annotation, lets go whether or not the ServiceAccount exists: records removed, objects untouched', async () => {
    const { cluster, calls } = saGone([cm]);
    const s = deleting('ext');
    s.ce.metadata.annotations = { [ORPHAN_OBJECTS_ANNOTATION]: 'true' };
    expect(await finalize(deps([release], calls, cluster.client), s)).toEqual({});
    expect(s.ce.metadata.finalizers ?? []).toEqual([]);
    expect(calls).toEqual(['history ext', 'deleteAll ext orphan']);
    expect(cluster.writes).toEqual([]);
    expect(cluster.live(cm)).toBeDefined();
  });

  it('leaves the objects of an extension whose ServiceAccount is gone, removes its records and says so in a Warning Event', async () => {
    const { cluster, calls } = saGone([cm]);
    const s = deleting('ext');
    expect(await finalize(deps([release], calls, cluster.client), s)).toEqual({});
    expect(s.ce.metadata.finalizers ?? []).toEqual([]);
    expect(cluster.live(cm)).toBeDefined();
    expect(calls).toEqual([
      'history ext',
      // The uninstall's own, given the deletes that failed: it deletes nothing (ReleaseStore.deleteAll's `after`).
      'deleteAll ext',
      'deleteAll ext orphan',
      `event Warning ObjectsLeft: Uninstalled without its installer: 1 object(s) left in place, release records removed: ${missing.message}`,
    ]);
  });

  it('leaves the objects of an extension without any installer (none configured any more)', async () => {
    const calls: string[] = [];
    const cluster = fakeCluster();
    cluster.seed(cm);
    const s = deleting('ext');
    delete s.installer;
    s.ce.spec = { ...s.ce.spec, serviceAccount: undefined } as unknown as ClusterExtension['spec'];
    expect(await finalize(deps([release], calls, cluster.client), s)).toEqual({});
    expect(s.ce.metadata.finalizers ?? []).toEqual([]);
    expect(cluster.calls).toEqual([]);
    expect(calls.at(-1)).toMatch(
      /^event Warning ObjectsLeft: Uninstalled without its installer: 1 object\(s\) left in place, release records removed: spec.serviceAccount is not set/,
    );
  });
});
