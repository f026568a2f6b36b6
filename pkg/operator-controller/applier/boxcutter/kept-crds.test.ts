import { describe, expect, it } from 'vitest';
import { ApiError, type KubeObject, type OwnerReference } from '../../../shared/kube/index.ts';
import { fakeCluster } from '../../../../test/support/fake-cluster.ts';
import { keptCrds, keptForTakeBack, takesBackCrds, unmarkTakenBack } from './kept-crds.ts';

const KEPT = 'olm.operatorframework.io/kept-for-package';
const live = (annotations: Record<string, string>, ownerReferences?: OwnerReference[], kind = 'CustomResourceDefinition'): KubeObject => ({
  apiVersion: kind === 'CustomResourceDefinition' ? 'apiextensions.k8s.io/v1' : 'v1',
  kind,
  metadata: { name: 'widgets.example.com', annotations, ...(ownerReferences === undefined ? {} : { ownerReferences }) },
});
const ref = (controller: boolean): OwnerReference => ({ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u', controller });

describe('keptForTakeBack', () => {
  it.each([
    ['kept for the package, no owner', live({ [KEPT]: 'pkg' }), 'pkg', true],
    ['kept for the package, a non-controller owner', live({ [KEPT]: 'pkg' }, [ref(false)]), 'pkg', true],
    ['kept for the package, another controller', live({ [KEPT]: 'pkg' }, [ref(true)]), 'pkg', false],
    ['kept for another package', live({ [KEPT]: 'other' }), 'pkg', false],
    ['unmarked', live({}), 'pkg', false],
    ['not a CRD', live({ [KEPT]: 'pkg' }, undefined, 'ConfigMap'), 'pkg', false],
    ['no package', live({ [KEPT]: '' }), '', false],
  ])('%s: %s', (_name, obj, pkg, want) => {
    expect(keptForTakeBack(obj, pkg)).toBe(want);
  });
});

describe('takesBackCrds', () => {
  it('is true when an object of the revision is under IfNoController', () => {
    const spec = (collisionProtection?: 'IfNoController' | 'Prevent') => ({
      spec: {
        lifecycleState: 'Active' as const,
        revision: 1,
        collisionProtection: 'Prevent' as const,
        phases: [{ name: 'p', objects: [{ object: {}, ...(collisionProtection === undefined ? {} : { collisionProtection }) }] }],
      },
    });
    expect(takesBackCrds(spec('IfNoController'))).toBe(true);
    expect(takesBackCrds(spec('Prevent'))).toBe(false);
    expect(takesBackCrds(spec())).toBe(false);
  });
});

describe('as an installer that may not read or patch a kept CRD (403)', () => {
  const forbidden = (): ApiError => new ApiError(403, 'Forbidden', 'forbidden');
  const signal = new AbortController().signal;

  it('keptCrds finds nothing to take back, and does not fail', async () => {
    const cluster = fakeCluster({ refuse: { 'get CustomResourceDefinition widgets.example.com': forbidden() } });
    cluster.seed(live({ [KEPT]: 'pkg' }));
    expect(await keptCrds(cluster.client, [live({})], 'pkg', signal)).toEqual(new Set());
  });

  it('unmarkTakenBack leaves the mark, and looks no more', async () => {
    const cluster = fakeCluster({ refuse: { 'patch CustomResourceDefinition widgets.example.com': forbidden() } });
    cluster.seed(live({ [KEPT]: 'pkg' }, [{ ...ref(true), uid: 'rev-uid' }]));
    expect(await unmarkTakenBack(cluster.client, new Set(['widgets.example.com']), 'rev-uid', 'pkg', signal)).toBe(true);
    expect(cluster.live(live({}))?.metadata.annotations?.[KEPT]).toBe('pkg');
    cluster.refuse('get CustomResourceDefinition widgets.example.com', forbidden());
    expect(await unmarkTakenBack(cluster.client, new Set(['widgets.example.com']), 'rev-uid', 'pkg', signal)).toBe(true);
  });
});
