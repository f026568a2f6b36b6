import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { extensionKeys } from './extension-events.ts';

function ce(patch: { spec?: object; status?: object; metadata?: Partial<KubeObject['metadata']> } = {}): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name: 'argocd', uid: 'u1', generation: 1, resourceVersion: '10', finalizers: ['f'], ...patch.metadata },
    spec: patch.spec ?? { namespace: 'ns' },
    ...(patch.status === undefined ? {} : { status: patch.status }),
  };
}

describe('extensionKeys', () => {
  it('skips updates that changed only status and server bookkeeping', () => {
    const before = ce({ status: { conditions: [] } });
    const after = ce({ status: { conditions: [{ type: 'Installed' }] }, metadata: { resourceVersion: '11', managedFields: [{}] } });
    expect(extensionKeys('update', after, before)).toBeUndefined();
  });

  it.each([
    ['spec and generation', ce({ spec: { namespace: 'other' }, metadata: { generation: 2 } })],
    ['an annotation', ce({ metadata: { annotations: { 'olm.operatorframework.io/orphan-objects': 'true' } } })],
    ['a label', ce({ metadata: { labels: { team: 'a' } } })],
    ['finalizers', ce({ metadata: { finalizers: [] } })],
    ['deletion', ce({ metadata: { deletionTimestamp: '2026-11-23T00:00:00Z' } })],
    ['a re-created object', ce({ metadata: { uid: 'u2' } })],
  ])('reconciles when %s changed', (_what, after) => {
    expect(extensionKeys('update', after, ce())).toBe('argocd');
  });

  it('reconciles on add and delete', () => {
    expect(extensionKeys('add', ce(), undefined)).toBe('argocd');
    expect(extensionKeys('delete', ce(), ce())).toBe('argocd');
  });
});
