import { describe, expect, it } from 'vitest';
import { extensionRequest } from './request.ts';

describe('extensionRequest', () => {
  it('asks for the package in the namespace, with the version range and the one channel given', () => {
    expect(extensionRequest({ namespace: 'team-a', name: 'ops', packageName: 'example', version: ' <2.0.0 ', channel: 'stable' })).toEqual({
      apiVersion: 'olm.operatorframework.io/v1alpha1',
      kind: 'Extension',
      metadata: { name: 'ops', namespace: 'team-a' },
      spec: { source: { sourceType: 'Catalog', catalog: { packageName: 'example', version: '<2.0.0', channels: ['stable'] } } },
    });
  });

  it('leaves out an empty version and channel (any), and names no ServiceAccount (the controller makes the installer)', () => {
    const req = extensionRequest({ namespace: 'team-a', name: 'ops', packageName: 'example', version: '', channel: '  ' });
    expect(req['spec']).toEqual({ source: { sourceType: 'Catalog', catalog: { packageName: 'example' } } });
  });
});
