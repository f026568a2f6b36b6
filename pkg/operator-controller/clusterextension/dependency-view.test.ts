import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { dependentsToWake } from './dependency-view.ts';

function ce(name: string, o: { installed?: string; progressing?: string } = {}): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name },
    status: {
      ...(o.installed === undefined ? {} : { install: { bundle: { name: o.installed, version: '1.0.0' } } }),
      conditions: o.progressing === undefined ? [] : [{ type: 'Progressing', status: 'True', reason: 'Retrying', message: o.progressing }],
    },
  };
}

const waitingApp = ce('app', {
  progressing: 'bundle "app.v1.0.0" has an unmet dependency: package "etcd" in range ">=3.2.0" (olm.package.required), met by no ...',
});
const otherFailure = ce('other', { progressing: 'no bundles found for package "other"' });

describe('dependentsToWake', () => {
  it('wakes the extensions waiting on a dependency when another one gets installed or upgraded', () => {
    const etcd = ce('etcd', { installed: 'etcd.v3.2.0' });
    const all = [waitingApp, otherFailure, etcd];
    expect(dependentsToWake('update', etcd, ce('etcd'), all)).toEqual(['app']);
    expect(dependentsToWake('update', etcd, ce('etcd', { installed: 'etcd.v3.1.0' }), all)).toEqual(['app']);
  });

  it('wakes nobody when the installed bundle did not change (status churn, a new extension)', () => {
    const etcd = ce('etcd', { installed: 'etcd.v3.2.0' });
    expect(dependentsToWake('update', etcd, etcd, [waitingApp, etcd])).toEqual([]);
    expect(dependentsToWake('add', ce('new'), undefined, [waitingApp])).toEqual([]);
  });

  it('wakes every other extension after a deletion, so a dependent reports what it lost', () => {
    const etcd = ce('etcd', { installed: 'etcd.v3.2.0' });
    expect(dependentsToWake('delete', etcd, undefined, [waitingApp, otherFailure, ce('quiet', { installed: 'q.v1' })])).toEqual([
      'app',
      'other',
      'quiet',
    ]);
  });
});
