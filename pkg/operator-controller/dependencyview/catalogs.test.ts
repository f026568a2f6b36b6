import { describe, expect, it } from 'vitest';
import { parseClusterCatalog } from '../../shared/api/index.ts';
import type { CatalogContentCache, CatalogRef } from '../catalogclient/index.ts';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { catalogBaseUrl, catalogDigestRef, clusterCatalogObject } from '../../../test/support/cluster-catalogs.ts';
import { contentRef, selectedCatalogs, type CatalogSource } from './catalogs.ts';

// ---- fixtures ------------------------------------------------------------------------------

const config = (pkg: string, catalog: string): DeclarativeConfig => ({
  packages: [{ schema: 'olm.package', name: pkg, defaultChannel: 'stable', description: catalog }],
  channels: [],
  bundles: [],
  deprecations: [],
  others: [],
});

/** A content cache recording getPackage calls; `fail` maps catalog names to the error thrown. */
function fakeContent(fail: Record<string, Error> = {}): { content: CatalogContentCache; fetched: [CatalogRef, string][] } {
  const fetched: [CatalogRef, string][] = [];
  const content: CatalogContentCache = {
    getPackage: (ref, pkg) => {
      fetched.push([ref, pkg]);
      const e = fail[ref.name];
      return e === undefined ? Promise.resolve(config(pkg, ref.name)) : Promise.reject(e);
    },
    packageNames: () => Promise.reject(new Error('not used')),
    forget: () => undefined,
  };
  return { content, fetched };
}

function source(objects: KubeObject[], content: CatalogContentCache, baseURL?: CatalogSource['baseURL']): CatalogSource {
  return { catalogs: { list: () => objects }, content, ...(baseURL === undefined ? {} : { baseURL }) };
}

async function select(src: CatalogSource, selector: Parameters<typeof selectedCatalogs>[1], pkg = 'widgets') {
  const r = await selectedCatalogs(src, selector, pkg);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

// ---- tests ---------------------------------------------------------------------------------

describe('selectedCatalogs', () => {
  const objects = [
    clusterCatalogObject('zeta', { labels: { env: 'prod' }, priority: 5 }),
    clusterCatalogObject('alpha', { labels: { env: 'prod' } }),
    clusterCatalogObject('mid', { labels: { env: 'dev' }, priority: -1 }),
  ];

  it('without a selector takes every catalog, in name order, fetching the package from each', async () => {
    const { content, fetched } = fakeContent();
    const out = await select(source(objects, content), undefined);
    expect(out.matching).toBe(3);
    expect(out.inputs).toEqual([
      { name: 'alpha', priority: 0, package: config('widgets', 'alpha') },
      { name: 'mid', priority: -1, package: config('widgets', 'mid') },
      { name: 'zeta', priority: 5, package: config('widgets', 'zeta') },
    ]);
    expect(fetched).toEqual([
      [{ name: 'alpha', digestRef: catalogDigestRef('alpha'), baseURL: catalogBaseUrl('alpha') }, 'widgets'],
      [{ name: 'mid', digestRef: catalogDigestRef('mid'), baseURL: catalogBaseUrl('mid') }, 'widgets'],
      [{ name: 'zeta', digestRef: catalogDigestRef('zeta'), baseURL: catalogBaseUrl('zeta') }, 'widgets'],
    ]);
  });

  it.each([
    ['matchLabels', { matchLabels: { env: 'prod' } }, ['alpha', 'zeta']],
    ['the metadata.name label', { matchLabels: { 'olm.operatorframework.io/metadata.name': 'mid' } }, ['mid']],
    ['matchExpressions NotIn', { matchExpressions: [{ key: 'env', operator: 'NotIn' as const, values: ['prod'] }] }, ['mid']],
    ['an empty selector matches everything', {}, ['alpha', 'mid', 'zeta']],
    ['no match', { matchLabels: { env: 'qa' } }, []],
  ])('selects by label selector: %s', async (_name, selector, want) => {
    const { content, fetched } = fakeContent();
    const out = await select(source(objects, content), selector);
    expect(out.inputs.map((i) => i.name)).toEqual(want);
    expect(out.matching).toBe(want.length);
    expect(fetched.map(([ref]) => ref.name)).toEqual(want);
  });

  it('returns the selector error for an invalid selector without fetching', async () => {
    const { content, fetched } = fakeContent();
    const r = await selectedCatalogs(source(objects, content), { matchExpressions: [{ key: 'env', operator: 'In', values: [] }] }, 'widgets');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.startsWith('desired catalog selector is invalid: ')).toBe(true);
    expect(fetched).toEqual([]);
  });

  it('drops Unavailable catalogs but counts them in matching', async () => {
    const { content, fetched } = fakeContent();
    const out = await select(
      source(
        [
          clusterCatalogObject('a'),
          clusterCatalogObject('b', { availabilityMode: 'Unavailable' }),
          clusterCatalogObject('c', { availabilityMode: 'Available' }),
        ],
        content,
      ),
      undefined,
    );
    expect(out.matching).toBe(3);
    expect(out.inputs.map((i) => i.name)).toEqual(['a', 'c']);
    expect(fetched.map(([ref]) => ref.name)).toEqual(['a', 'c']);
    const none = await select(source([clusterCatalogObject('b', { availabilityMode: 'Unavailable' })], content), undefined);
    expect(none).toEqual({ matching: 1, inputs: [] });
  });

  it.each([
    ['not serving', { serving: 'False' as const }, 'catalog "x" is not being served'],
    ['no Serving condition', { serving: 'absent' as const }, 'catalog "x" is not being served'],
    ['nil resolvedSource', { resolved: false }, 'error: catalog "x" has a nil status.resolvedSource value'],
    ['missing urls', { urls: false }, 'error: catalog "x" has a nil status.urls value'],
  ])('a catalog %s is a failure input with upstream text, and is not fetched', async (_name, o, error) => {
    const { content, fetched } = fakeContent();
    const out = await select(source([clusterCatalogObject('x', o), clusterCatalogObject('y')], content), undefined);
    expect(out.inputs).toEqual([
      { name: 'x', error },
      { name: 'y', priority: 0, package: config('widgets', 'y') },
    ]);
    expect(fetched.map(([ref]) => ref.name)).toEqual(['y']);
  });

  it('a fetch error becomes `error retrieving cache for catalog "<name>": <err>`', async () => {
    const { content } = fakeContent({ b: new Error('Get "https://catalogd/catalogs/b/api/v1/all": connection refused') });
    const out = await select(source([clusterCatalogObject('a'), clusterCatalogObject('b')], content), undefined);
    expect(out.inputs[1]).toEqual({
      name: 'b',
      error: 'error retrieving cache for catalog "b": Get "https://catalogd/catalogs/b/api/v1/all": connection refused',
    });
    expect(out.inputs[0]).toMatchObject({ name: 'a', priority: 0 });
  });

  it('fetches from the URL the baseURL hook gives (the --catalogd-url rewriting)', async () => {
    const { content, fetched } = fakeContent();
    const seen: [string, string][] = [];
    const rewrite = (name: string, statusBase: string): string => {
      seen.push([name, statusBase]);
      return `http://localhost:8080${new URL(statusBase).pathname}`;
    };
    await select(source([clusterCatalogObject('a')], content, rewrite), undefined);
    expect(seen).toEqual([['a', catalogBaseUrl('a')]]);
    expect(fetched).toEqual([[{ name: 'a', digestRef: catalogDigestRef('a'), baseURL: 'http://localhost:8080/catalogs/a' }, 'widgets']]);
  });

  it('ignores informer objects that are not valid ClusterCatalogs', async () => {
    const { content } = fakeContent();
    const broken: KubeObject = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', metadata: { name: 'broken' }, spec: {} };
    const out = await select(source([broken, clusterCatalogObject('a')], content), undefined);
    expect(out).toMatchObject({ matching: 1, inputs: [{ name: 'a' }] });
  });
});

describe('contentRef', () => {
  it('uses status.urls.base unchanged without a hook', () => {
    const parsed = parseClusterCatalog(clusterCatalogObject('a'));
    if (!parsed.ok) throw new Error(parsed.error);
    expect(contentRef(parsed.value, undefined)).toEqual({ name: 'a', digestRef: catalogDigestRef('a'), baseURL: catalogBaseUrl('a') });
  });
});
