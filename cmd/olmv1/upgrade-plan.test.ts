import { describe, expect, it } from 'vitest';
import { fakeCluster, type FakeCluster } from '../../test/support/fake-cluster.ts';
import { clusterExtension, fakeKubeContext, objectSetHistory, seedHelmHistory } from '../../test/support/revision-fixtures.ts';
import { resolvePlan, type PlanOptions, type UpgradeDeps } from './upgrade-plan.ts';

async function plan(cluster: FakeCluster, extension: string) {
  // No catalogs: the plan's resolution fails after the installed revision is read.
  const kube = await fakeKubeContext(cluster);
  const deps: UpgradeDeps = {
    connectCluster: () => Promise.resolve(kube),
    catalogContent: {
      getPackage: () => Promise.reject(new Error('no catalogd here')),
      packageNames: () => Promise.reject(new Error('no catalogd here')),
      forget: () => undefined,
    },
  };
  const o: PlanOptions = {
    extension,
    systemNamespace: 'olmv1-system',
    catalogdUrl: undefined,
    certProvider: undefined,
    registryValues: {},
    imageLimits: {} as PlanOptions['imageLimits'],
    clusterVersion: undefined,
  };
  return resolvePlan(kube, deps, o);
}

// The API server's /version, which the dependency check reads.
const versionAnswer = <T>(): Promise<T> => Promise.resolve({ gitVersion: 'v1.33.0' } as T);

describe('olmv1 upgrade plan: the installed revision', () => {
  it('is the deployed ClusterObjectSet when the extension has them (BoxcutterRuntime), named in the plan', async () => {
    const cluster = fakeCluster({ request: versionAnswer });
    cluster.seed(clusterExtension('boxy'));
    for (const set of objectSetHistory('boxy')) cluster.seed(set);
    const r = await plan(cluster, 'boxy');
    expect(r.plan.installed).toEqual({ bundle: 'demo.v1.1.0', version: '1.1.0', revision: 2, objectSet: 'boxy-2' });
    expect(r.release.manifest.objects()).toMatchObject([{ kind: 'ConfigMap', data: { version: '1.1.0' } }]);
  });

  it.each([
    ['the extension has no ClusterObjectSets', {}],
    ['the cluster does not serve ClusterObjectSets', { unserved: ['olm.operatorframework.io/v1/ClusterObjectSet'] }],
  ])('is the deployed Helm record when %s, and the plan has no objectSet', async (_, options) => {
    const cluster = fakeCluster({ ...options, request: versionAnswer });
    cluster.seed(clusterExtension('helmy'));
    await seedHelmHistory(cluster.client, 'helmy');
    const r = await plan(cluster, 'helmy');
    expect(r.plan.installed).toEqual({ bundle: 'demo.v1.1.0', version: '1.1.0', revision: 2 });
    expect(JSON.stringify(r.plan.installed)).toBe('{"bundle":"demo.v1.1.0","version":"1.1.0","revision":2}');
  });

  it('says nothing is installed when neither records nor ClusterObjectSets exist', async () => {
    const cluster = fakeCluster();
    cluster.seed(clusterExtension('empty'));
    await expect(plan(cluster, 'empty')).rejects.toThrow('ClusterExtension "empty" has no deployed release: nothing is installed to upgrade from');
  });
});
