import { describe, expect, it } from 'vitest';
import { EMPTY_QUERY, facetCounts, filterTiles, toggle, type FilterableTile, type HubQuery } from './filter.ts';

const t = (name: string, o: Partial<FilterableTile> = {}): FilterableTile => ({
  catalog: 'c',
  name,
  displayName: name,
  provider: '',
  description: '',
  categories: [],
  capabilities: '',
  infrastructure: [],
  installModes: [],
  keywords: [],
  ...o,
});

const q = (selected: HubQuery['selected'], text = ''): HubQuery => ({ ...EMPTY_QUERY, text, selected });

describe('hub filter', () => {
  const tiles = [
    t('b', { provider: 'Z', categories: ['DB'], keywords: ['sql'] }),
    t('a', { provider: 'Y', catalog: 'd', infrastructure: ['disconnected'] }),
  ];
  it('matches every word of the search in any text field and each filter exactly', () => {
    expect(filterTiles(tiles, { ...EMPTY_QUERY, text: 'SQL b' }).map((x) => x.name)).toEqual(['b']);
    expect(filterTiles(tiles, q({ category: ['DB'] })).map((x) => x.name)).toEqual(['b']);
    expect(filterTiles(tiles, q({ infrastructure: ['disconnected'] })).map((x) => x.name)).toEqual(['a']);
    expect(filterTiles(tiles, q({ catalog: ['x'] }))).toEqual([]);
  });
  it('sorts by name, provider or catalog', () => {
    expect(filterTiles(tiles, EMPTY_QUERY).map((x) => x.name)).toEqual(['a', 'b']);
    expect(filterTiles(tiles, { ...EMPTY_QUERY, sort: 'catalog' }).map((x) => x.name)).toEqual(['b', 'a']);
  });

  const many = [
    t('p1', { provider: 'Acme', categories: ['DB', 'Security'], installed: true, arch: ['amd64', 'arm64'], sourceType: 'Community' }),
    t('p2', { provider: 'Acme', categories: ['DB'], os: ['linux', 'windows'] }),
    t('p3', { provider: 'Globex', categories: ['Security'], installed: true }),
    t('p4', { provider: 'Globex', categories: ['Networking'], arch: ['s390x'] }),
  ];
  it('widens within a filter (any checked value) and narrows across filters (all of them)', () => {
    expect(filterTiles(many, q({ category: ['DB', 'Networking'] })).map((x) => x.name)).toEqual(['p1', 'p2', 'p4']);
    expect(filterTiles(many, q({ category: ['DB', 'Networking'], provider: ['Globex'] })).map((x) => x.name)).toEqual(['p4']);
    expect(filterTiles(many, q({ installed: ['Not installed'] })).map((x) => x.name)).toEqual(['p2', 'p4']);
    expect(filterTiles(many, q({ installed: ['Installed', 'Not installed'] }))).toHaveLength(4);
  });
  it('takes amd64 and linux when a package names no architecture or OS, as OLM classic does', () => {
    expect(filterTiles(many, q({ arch: ['amd64'] })).map((x) => x.name)).toEqual(['p1', 'p2', 'p3']);
    expect(filterTiles(many, q({ arch: ['arm64', 's390x'] })).map((x) => x.name)).toEqual(['p1', 'p4']);
    expect(filterTiles(many, q({ os: ['windows'] })).map((x) => x.name)).toEqual(['p2']);
    expect(filterTiles(many, q({ source: ['Custom'] })).map((x) => x.name)).toEqual(['p2', 'p3', 'p4']);
  });
  it("counts each value among the packages the search and the other filters leave, checked values' own filter aside", () => {
    const c = facetCounts(many, q({ category: ['Security'] }));
    // Category counts ignore the Category filter itself ...
    expect(c.category).toEqual([
      { value: 'DB', count: 2 },
      { value: 'Networking', count: 1 },
      { value: 'Security', count: 2 },
    ]);
    // ... the other filters count only p1 and p3.
    expect(c.provider).toEqual([
      { value: 'Acme', count: 1 },
      { value: 'Globex', count: 1 },
    ]);
    expect(c.installed).toEqual([{ value: 'Installed', count: 2 }]);
    expect(c.arch).toEqual([
      { value: 'amd64', count: 2 },
      { value: 'arm64', count: 1 },
    ]);
    const narrowed = facetCounts(many, q({ category: ['Security'], provider: ['Globex'] }, 'p3'));
    expect(narrowed.category).toEqual([{ value: 'Security', count: 1 }]);
    expect(narrowed.provider).toEqual([{ value: 'Globex', count: 1 }]);
    // A checked value the others leave no package for stays listed, with 0.
    expect(facetCounts(many, q({ provider: ['Nobody'] })).provider.find((x) => x.value === 'Nobody')).toEqual({ value: 'Nobody', count: 0 });
  });
  it('lists at most 200 values of a filter, the most common first kept, checked ones always', () => {
    const lots = Array.from({ length: 300 }, (_, i) => t(`x${i}`, { provider: `P${i}`, categories: i < 10 ? ['common'] : [] }));
    lots.push(...Array.from({ length: 5 }, (_, i) => t(`y${i}`, { provider: 'P299' })));
    const c = facetCounts(lots, q({ provider: ['P7'] }));
    expect(c.provider).toHaveLength(200);
    expect(c.provider.find((x) => x.value === 'P299')?.count).toBe(6);
    expect(c.provider.some((x) => x.value === 'P7')).toBe(true);
  });
  it('toggles a value of a filter', () => {
    const on = toggle(EMPTY_QUERY, 'category', 'DB', true);
    expect(on.selected.category).toEqual(['DB']);
    expect(toggle(on, 'category', 'DB', false).selected.category).toEqual([]);
  });
});
