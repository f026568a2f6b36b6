import { describe, expect, it } from 'vitest';
import type { CatalogContentCache } from '../../operator-controller/catalogclient/index.ts';
import { clusterCatalogObject } from '../../../test/support/cluster-catalogs.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { catalogsServing } from './served-by.ts';

// `serves` has the package, `lacks` does not (an empty partition, as the cache answers), `broken`'s content cannot be read, `dev` is not selected by env=prod.
const content: CatalogContentCache = {
  getPackage: async (ref, pkg) => {
    if (ref.name === 'broken') throw new Error('catalogd unreachable');
    const packages = ref.name === 'lacks' ? [] : [{ schema: 'olm.package' as const, name: pkg, defaultChannel: 'stable' }];
    return { packages, channels: [], bundles: [], deprecations: [], others: [] };
  },
  packageNames: () => Promise.reject(new Error('not used')),
  forget: () => undefined,
};

function cluster() {
  const c = fakeCluster();
  for (const name of ['serves', 'lacks', 'broken']) c.seed(clusterCatalogObject(name, { labels: { env: 'prod' } }));
  c.seed(clusterCatalogObject('dev', { labels: { env: 'dev' } }));
  return c;
}
const names = (objects: { metadata: { name?: string } }[]) => objects.map((o) => o.metadata.name).sort();

describe('catalogsServing', () => {
  it('answers the selected ClusterCatalogs that serve the package or cannot be read, as the caller lists them', async () => {
    const c = cluster();
    const prod = { matchLabels: { env: 'prod' } };
    expect(names(await catalogsServing(c, { content }, { selector: prod, packageName: 'widgets' }))).toEqual(['broken', 'serves']);
    expect(names(await catalogsServing(c, { content }, { selector: undefined, packageName: 'widgets' }))).toEqual(['broken', 'dev', 'serves']);
    expect(c.calls.filter((call) => call.startsWith('list'))).toHaveLength(2);
  });

  it('answers none for a selector that does not parse (the tenant controller refuses the request)', async () => {
    const bad = { matchExpressions: [{ key: 'env', operator: 'Sometimes', values: ['x'] }] };
    expect(await catalogsServing(cluster(), { content }, { selector: bad, packageName: 'widgets' })).toEqual([]);
  });
});
