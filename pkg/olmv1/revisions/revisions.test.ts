import { describe, expect, it } from 'vitest';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { ApiError } from '../../shared/kube/index.ts';
import { createRevisionReader } from './revisions.ts';
import { clusterExtension, objectSet, objectSetHistory, seedHelmHistory } from '../../../test/support/revision-fixtures.ts';
import { objectSetRollbackRefusal } from './refusal.ts';

const COS = 'olm.operatorframework.io/v1/ClusterObjectSet';

describe('createRevisionReader', () => {
  it('reads an extension that has ClusterObjectSets from them, with each one state', async () => {
    const cluster = fakeCluster();
    await seedHelmHistory(cluster.client, 'helmy');
    for (const set of [...objectSetHistory('boxy'), objectSet('boxy', 3, '1.2.0', 'rolling-out')]) cluster.seed(set);
    const reader = createRevisionReader({ client: cluster.client, namespace: 'olmv1-system' });

    const boxy = await reader.read('boxy');
    expect(boxy.releases.map((r) => [r.revision, r.status, r.bundle.version, r.objectSet])).toEqual([
      [3, 'pending-upgrade', '1.2.0', 'boxy-3'],
      [2, 'deployed', '1.1.0', 'boxy-2'],
      [1, 'superseded', '1.0.0', 'boxy-1'],
    ]);
    expect(boxy.releases[1]?.manifest.objects()).toMatchObject([{ kind: 'ConfigMap', data: { version: '1.1.0' } }]);
    expect(boxy.objectSets).toEqual([
      { name: 'boxy-3', revision: 3, lifecycleState: 'Active', available: 'False (ProbeFailure)', progressing: 'True' },
      { name: 'boxy-2', revision: 2, lifecycleState: 'Active', available: 'True', progressing: 'True' },
      { name: 'boxy-1', revision: 1, lifecycleState: 'Archived', available: 'True', progressing: 'True' },
    ]);
    expect((await reader.deployed('boxy'))?.objectSet).toBe('boxy-2');
    expect(await reader.usesObjectSets('boxy')).toBe(true);

    // Another extension of the same cluster still has Helm records.
    const helmy = await reader.read('helmy');
    expect(helmy.objectSets).toBeUndefined();
    expect(helmy.releases.map((r) => [r.revision, r.status, r.objectSet])).toEqual([
      [2, 'deployed', undefined],
      [1, 'superseded', undefined],
    ]);
    expect(await reader.usesObjectSets('helmy')).toBe(false);
    expect(await reader.list()).toEqual(['helmy', 'boxy']);
  });

  it('reads Helm records, without error, when the ClusterObjectSet kind is not served', async () => {
    const cluster = fakeCluster({ unserved: [COS] });
    await seedHelmHistory(cluster.client, 'helmy');
    const reader = createRevisionReader({ client: cluster.client, namespace: 'olmv1-system' });
    const helmy = await reader.read('helmy');
    expect(helmy.objectSets).toBeUndefined();
    expect(helmy.releases.map((r) => r.revision)).toEqual([2, 1]);
    expect((await reader.deployed('helmy'))?.revision).toBe(2);
    expect(await reader.list()).toEqual(['helmy']);
    expect(await reader.usesObjectSets('helmy')).toBe(false);
  });

  it('reports a refused ClusterObjectSet list instead of showing Helm records that may be stale', async () => {
    const cluster = fakeCluster();
    await seedHelmHistory(cluster.client, 'helmy');
    cluster.refuse('list ClusterObjectSet', new ApiError(403, 'Forbidden', 'clusterobjectsets is forbidden'));
    const reader = createRevisionReader({ client: cluster.client, namespace: 'olmv1-system' });
    await expect(reader.history('helmy')).rejects.toThrow(/clusterobjectsets is forbidden/);
  });
});

describe('objectSetRollbackRefusal', () => {
  it('names the revision a rollback would choose and the exact pin, without a resourceVersion', async () => {
    const cluster = fakeCluster();
    for (const set of objectSetHistory('boxy')) cluster.seed(set);
    const history = await createRevisionReader({ client: cluster.client, namespace: 'olmv1-system' }).history('boxy');
    const text = objectSetRollbackRefusal(clusterExtension('boxy'), history, undefined);
    expect(text).toBe(
      [
        'refusing to roll back "boxy": its revisions are ClusterObjectSets (operator-controller runs with BoxcutterRuntime), and a rollback works from Helm release records. Nothing was changed.',
        'To go back to revision 1 (demo.v1.0.0), pin its version instead:',
        `  kubectl patch clusterextension boxy --type=merge -p '{"metadata":{"annotations":{"olm.operatorframework.io/approved-bundle":"demo.v1.0.0"}},"spec":{"source":{"catalog":{"version":"1.0.0","upgradeConstraintPolicy":"SelfCertified"}}}}'`,
        'or',
        '  olmv1 update boxy --version 1.0.0 --upgrade-constraint-policy SelfCertified',
      ].join('\n'),
    );
  });

  it('keeps a placeholder when there is no revision to go back to or the catalog text is unsafe in a shell', async () => {
    const cluster = fakeCluster();
    cluster.seed(objectSet('boxy', 1, '1.0.0', 'installed'));
    const reader = createRevisionReader({ client: cluster.client, namespace: 'olmv1-system' });
    const none = objectSetRollbackRefusal(clusterExtension('boxy'), await reader.history('boxy'), undefined);
    expect(none).toContain('pin the version of the revision you want instead (see "olmv1 release history boxy")');
    expect(none).toContain(`-p '{"spec":{"source":{"catalog":{"version":"VERSION","upgradeConstraintPolicy":"SelfCertified"}}}}'`);

    const history = await reader.history('boxy');
    const hostile = history.map((r) => ({ ...r, bundle: { ...r.bundle, name: "demo'; rm -rf ~; echo '" } }));
    const older = { ...hostile[0]!, revision: 0, status: 'superseded' as const, bundle: { ...hostile[0]!.bundle, version: '0.9.0' } };
    const text = objectSetRollbackRefusal(clusterExtension('boxy'), [...hostile, older], 0);
    expect(text).not.toContain('rm -rf');
    expect(text).toContain('--version VERSION');
  });
});
