import { describe, expect, it } from 'vitest';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { createRevisionReader } from '../../operator-controller/revisions/index.ts';
import { clusterExtension, objectSet, objectSetHistory } from '../../../test/support/revision-fixtures.ts';
import { objectSetRollbackRefusal } from './refusal.ts';

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
