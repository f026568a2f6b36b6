// clusterResolve: `olmv1 resolve --cluster` and `olmv1 upgrade plan` check bundles' dependencies
// as the controller's resolve step does (decision 0104), over what the CLI's user can read, and
// say so when they cannot read the ClusterExtensions or the server version. End to end (real
// API server, catalogd): test/e2e/dependencies.test.ts.
import { describe, expect, it } from 'vitest';
import { clusterCatalogObject } from '../../test/support/cluster-catalogs.ts';
import { catalogSource, chainedPackage } from '../../test/support/extension-ports.ts';
import { fakeCluster } from '../../test/support/fake-cluster.ts';
import type { DeclarativeConfig } from '../../pkg/shared/fbc/index.ts';
import { ApiError, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { selectedCatalogs } from '../../pkg/operator-controller/dependencyview/index.ts';
import type { ResolveInput } from '../../pkg/operator-controller/resolve/index.ts';
import { clusterResolve } from './resolve-cluster.ts';

const NEEDS_ETCD = { type: 'olm.constraint', value: { failureMessage: 'p 2 needs etcd', package: { packageName: 'etcd', versionRange: '>=3.2.0' } } };

function content(): DeclarativeConfig {
  const p = chainedPackage('p', ['1.0.0', '2.0.0']);
  const etcd = chainedPackage('etcd', ['3.2.0']);
  p.bundles.find((b) => b.name === 'p.v2.0.0')?.properties.push(NEEDS_ETCD, { type: 'olm.csv.metadata', value: { minKubeVersion: '1.20.0' } });
  return { ...p, packages: [...p.packages, ...etcd.packages], channels: [...p.channels, ...etcd.channels], bundles: [...p.bundles, ...etcd.bundles] };
}

const etcdInstalled: KubeObject = {
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterExtension',
  metadata: { name: 'etcd' },
  spec: { namespace: 'etcd', serviceAccount: { name: 'sa' }, source: { sourceType: 'Catalog', catalog: { packageName: 'etcd' } } },
  status: { install: { bundle: { name: 'etcd.v3.2.0', version: '3.2.0' } } },
};

async function resolveFor(o: { etcd?: boolean; refuseList?: boolean; version?: boolean }) {
  const cluster = fakeCluster({
    ...(o.refuseList === true ? { refuse: { 'list ClusterExtension': new ApiError(403, 'Forbidden', 'clusterextensions is forbidden') } } : {}),
    request: <T>(_method: string, path: string): Promise<T> =>
      path === '/version' && o.version !== false
        ? Promise.resolve({ gitVersion: 'v1.31.0' } as T)
        : Promise.reject(new ApiError(403, 'Forbidden', 'no')),
  });
  cluster.seed(clusterCatalogObject('c'));
  if (o.etcd === true) cluster.seed(etcdInstalled);
  // One package's partition, as catalogd's content cache gives it.
  const all = catalogSource(content());
  const only = (pkg: string): DeclarativeConfig => {
    const c = content();
    return {
      ...c,
      packages: c.packages.filter((x) => x.name === pkg),
      channels: c.channels.filter((x) => x.package === pkg),
      bundles: c.bundles.filter((x) => x.package === pkg),
    };
  };
  const source = { ...all, content: { ...all.content, getPackage: (_ref: unknown, pkg: string) => Promise.resolve(only(pkg)) } };
  const selection = await selectedCatalogs(source, undefined, 'p');
  if (!selection.ok) throw new Error(selection.error);
  const input: ResolveInput = { packageName: 'p', channels: [], versionRange: '', installed: null, catalogs: selection.value.inputs };
  const { client } = cluster;
  return clusterResolve(
    { client, transport: client.transport, mapper: client.mapper },
    { connectCluster: () => Promise.reject(new Error('unused')), catalogContent: source.content },
    undefined,
    'p',
    undefined,
    input,
  );
}

const picked = (r: Awaited<ReturnType<typeof resolveFor>>) => (r.result.ok ? r.result.value.bundle.name : r.result.error);

describe('clusterResolve', () => {
  it('passes over a bundle whose requirement nothing installed meets, as the controller does', async () => {
    const r = await resolveFor({});
    expect(picked(r)).toBe('p.v1.0.0');
    expect(r.note).toBeUndefined();
  });

  it('takes it when an installed ClusterExtension meets the requirement', async () => {
    const r = await resolveFor({ etcd: true });
    expect(picked(r)).toBe('p.v2.0.0');
    expect(r.note).toBeUndefined();
  });

  it('resolves as if met, and says so, when the ClusterExtensions cannot be listed', async () => {
    const r = await resolveFor({ refuseList: true });
    expect(picked(r)).toBe('p.v2.0.0');
    expect(r.note).toMatch(
      /^dependencies not checked, bundles that declare them resolved as if they were met: cannot read the ClusterExtensions \(.*forbidden/,
    );
  });

  it('says minKubeVersion was not checked when the server version cannot be read', async () => {
    const r = await resolveFor({ etcd: true, version: false });
    expect(picked(r)).toBe('p.v2.0.0');
    expect(r.note).toMatch(/^dependencies checked in part: cannot read the server version \(/);
  });
});
