import { describe, expect, it } from 'vitest';
import { ApiError, type KubeObject } from '../../../shared/kube/index.ts';
import { fakeCluster } from '../../../../test/support/fake-cluster.ts';
import { extRecord } from '../../../../test/support/release-revisions.ts';
import type { Release, ReleaseStatus } from '../../release/index.ts';
import { desiredRevision, type ObjectSetManifest } from './revision.ts';
import { migrateToReleases, recordOfRevision } from './unmigrate.ts';

const T = '2026-11-28T00:00:00Z';
const labels = { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'ext' };
const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', labels }, data: { k: 'v' } };
const owner = { name: 'ext', uid: 'ce-uid', installNamespace: 'ns' };

const record = (revision: number, status: ReleaseStatus, version: string): Release => extRecord(revision, status, version, [cm]);

const revision = (n: number, version: string, succeeded: boolean, state: 'Active' | 'Archived' = 'Active'): ObjectSetManifest => {
  const s = desiredRevision({ name: 'ext', uid: 'ce-uid' }, { ...record(n, 'deployed', version), installNamespace: 'ns' }, n);
  return {
    ...s,
    metadata: { ...s.metadata, finalizers: ['olm.operatorframework.io/teardown'], creationTimestamp: T },
    spec: { ...s.spec, lifecycleState: state },
    status: { conditions: succeeded ? [{ type: 'Succeeded', status: 'True', reason: 'Succeeded', message: '', lastTransitionTime: T }] : [] },
  };
};

describe('recordOfRevision', () => {
  it.each<[string, Release[], string | undefined]>([
    ['no records: an install', [], '1 Install complete 1.1.0'],
    [
      'the deployed record runs another bundle: an upgrade after it',
      [record(2, 'deployed', '1.0.0'), record(1, 'superseded', '0.9.0')],
      '3 Upgrade complete 1.1.0',
    ],
    ['the deployed record runs the same bundle: none', [record(1, 'deployed', '1.1.0')], undefined],
  ])('%s', (_name, history, want) => {
    const set = revision(2, '1.1.0', true);
    const r = recordOfRevision(set, [set], [cm], history, owner, T);
    expect(r === undefined ? undefined : `${r.revision} ${r.description} ${r.bundle.version}`).toBe(want);
    if (r !== undefined) expect(r).toMatchObject({ status: 'deployed', extensionUID: 'ce-uid', namespace: 'ns', lastDeployed: T });
    if (r !== undefined) expect(r.objectSet).toBeUndefined();
  });
});

describe('migrateToReleases', () => {
  it('records the installed revision, then lets every revision go without its objects (Orphan, only the teardown finalizer taken off)', async () => {
    const cluster = fakeCluster();
    for (const obj of [revision(1, '1.0.0', true, 'Archived'), revision(2, '1.1.0', true), cm]) cluster.seed(obj);
    const created: Release[] = [];
    const updated: Release[] = [];
    const releases = {
      history: () => Promise.resolve([record(1, 'deployed', '1.0.0')]),
      create: (r: Release) => Promise.resolve(void created.push(r)),
      update: (r: Release) => Promise.resolve(void updated.push(r)),
    };
    expect(await migrateToReleases({ client: cluster.client, releases, systemNamespace: 'olmv1-system', now: () => new Date(T) }, owner)).toBe(
      'released',
    );
    expect(created.map((r) => `${r.revision} ${r.status} ${r.bundle.version}`)).toEqual(['2 deployed 1.1.0']);
    expect(updated.map((r) => `${r.revision} ${r.status}`)).toEqual(['1 superseded']);
    expect(cluster.writes.filter((w) => w.includes('ClusterObjectSet'))).toEqual([
      'delete ClusterObjectSet ext-1',
      'patch ClusterObjectSet ext-1',
      'delete ClusterObjectSet ext-2',
      'patch ClusterObjectSet ext-2',
    ]);
    expect(cluster.live(cm)).toBeDefined();
  });

  it('does nothing without revisions, or where the kind may not be listed', async () => {
    const releases = {
      history: () => Promise.reject(new Error('not read')),
      create: () => Promise.reject(new Error('no')),
      update: () => Promise.reject(new Error('no')),
    };
    const empty = fakeCluster();
    expect(await migrateToReleases({ client: empty.client, releases, systemNamespace: 'olmv1-system' }, owner)).toBe('none');
    const refused = fakeCluster({ refuse: { 'list ClusterObjectSet': new ApiError(403, 'Forbidden', 'no') } });
    expect(await migrateToReleases({ client: refused.client, releases, systemNamespace: 'olmv1-system' }, owner)).toBe('none');
    expect([...empty.writes, ...refused.writes]).toEqual([]);
  });
});
