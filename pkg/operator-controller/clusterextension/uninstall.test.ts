// The finalizers of a ClusterExtension with fakes of their ports: a name that can never name a
// release needs no records to let go; an uninstall that skipped objects still completes. The
// end-to-end proof is in test/e2e/operator-controller-ownership.test.ts.
import { describe, expect, it } from 'vitest';
import { UNINSTALL_FINALIZER } from '../../shared/api/index.ts';
import { withOwnerLabels } from '../applier/index.ts';
import type { ClusterExtension } from '../../shared/api/index.ts';
import type { EventRecorder, KubeObject } from '../../shared/kube/index.ts';
import type { Release, ReleaseStore } from '../release/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { EXTENSION_FINALIZERS, finalizersStep, type FinalizerPorts } from './uninstall.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';

function deleting(name: string): ExtensionState {
  const ce: ClusterExtension = {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name, generation: 1, deletionTimestamp: '2026-11-24T00:00:00Z', finalizers: [...EXTENSION_FINALIZERS] },
    spec: extensionState().spec,
  };
  return extensionState({ name, ce });
}

/** Extensions whose health sample the finalizers removed. */
const forgotten: string[] = [];

function deps(history: Release[], calls: string[], client = fakeCluster().client): FinalizerPorts {
  const events = { event: (_o, type, reason, _action, note) => void calls.push(`event ${type} ${reason}: ${note}`) } satisfies EventRecorder;
  const releases = {
    history: (n: string) => (calls.push(`history ${n}`), Promise.resolve(history)),
    deleteAll: (n: string) => (calls.push(`deleteAll ${n}`), Promise.resolve()),
  } as unknown as ReleaseStore;
  return {
    releases,
    drift: { stop: () => undefined },
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
      manifest: [cm('mine'), cm('users')],
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
});
