import { describe, expect, it } from 'vitest';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { catalogSource, chainedPackage, mergedConfig } from '../../../test/support/extension-ports.ts';
import { dependentsToWake } from './view.ts';
import { InstalledIndex } from './installed-index.ts';

function ce(name: string, o: { installed?: string; progressing?: string } = {}): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name },
    spec: { namespace: name, serviceAccount: { name: 'installer' }, source: { sourceType: 'Catalog', catalog: { packageName: name } } },
    status: {
      ...(o.installed === undefined ? {} : { install: { bundle: { name: o.installed, version: o.installed.replace(/^.*\.v/, '') } } }),
      conditions: o.progressing === undefined ? [] : [{ type: 'Progressing', status: 'True', reason: 'Retrying', message: o.progressing }],
    },
  };
}

/** Packages etcd, app, quiet; app's bundles require etcd. */
function content(): DeclarativeConfig {
  const parts = ['etcd', 'app', 'quiet'].map((p) => chainedPackage(p, ['3.1.0', '3.2.0']));
  for (const b of parts[1]?.bundles ?? [])
    b.properties.push({ type: 'olm.package.required', value: { packageName: 'etcd', versionRange: '>=3.2.0' } });
  return mergedConfig(parts);
}

const source = catalogSource(content());
const waitingApp = ce('app', {
  progressing: 'bundle "app.v3.2.0" has an unmet dependency: package "etcd" in range ">=3.2.0" (olm.package.required), met by no ...',
});
const otherFailure = ce('other', { progressing: 'no bundles found for package "other"' });

describe('dependentsToWake', () => {
  it('wakes the extensions waiting on a dependency when another one gets installed or upgraded', async () => {
    const index = InstalledIndex.of([waitingApp, otherFailure, ce('etcd')]);
    const etcd = ce('etcd', { installed: 'etcd.v3.2.0' });
    expect(await dependentsToWake(index, source, { type: 'update', obj: etcd, old: ce('etcd') })).toEqual(['app']);
    const upgraded = ce('etcd', { installed: 'etcd.v3.2.0' });
    expect(await dependentsToWake(index, source, { type: 'update', obj: upgraded, old: ce('etcd', { installed: 'etcd.v3.1.0' }) })).toEqual(['app']);
    // app installed: it waits no more.
    expect(await dependentsToWake(index, source, { type: 'update', obj: ce('app', { installed: 'app.v3.2.0' }), old: waitingApp })).toEqual([]);
    expect(await dependentsToWake(index, source, { type: 'update', obj: ce('quiet', { installed: 'quiet.v3.2.0' }), old: ce('quiet') })).toEqual([]);
  });

  it('wakes nobody when the installed bundle did not change (status churn, a new extension)', async () => {
    const etcd = ce('etcd', { installed: 'etcd.v3.2.0' });
    const index = InstalledIndex.of([waitingApp, etcd]);
    expect(await dependentsToWake(index, source, { type: 'update', obj: etcd, old: etcd })).toEqual([]);
    expect(await dependentsToWake(index, source, { type: 'add', obj: ce('new'), old: undefined })).toEqual([]);
  });

  it('after a deletion wakes only the installed extensions whose requirements it could meet', async () => {
    const etcd = ce('etcd', { installed: 'etcd.v3.2.0' });
    const quiet = ce('quiet', { installed: 'quiet.v3.2.0' });
    const index = InstalledIndex.of([ce('app', { installed: 'app.v3.2.0' }), otherFailure, etcd, quiet]);
    // Nothing read yet: what quiet provided is not known, every dependent looks again.
    expect(await dependentsToWake(index, source, { type: 'delete', obj: quiet, old: undefined })).toEqual(['app']);
    // Read now: nobody depends on quiet's package.
    index.note('add', quiet);
    await index.dependentsOf(source, undefined, '');
    expect(await dependentsToWake(index, source, { type: 'delete', obj: quiet, old: undefined })).toEqual([]);
    expect(await dependentsToWake(index, source, { type: 'delete', obj: etcd, old: undefined })).toEqual(['app']);
  });
});
