import { describe, expect, it } from 'vitest';
import { EMPTY_QUERY, facetValues, filterTiles, type FilterableTile } from './filter.ts';

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

describe('hub filter', () => {
  const tiles = [
    t('b', { provider: 'Z', categories: ['DB'], keywords: ['sql'] }),
    t('a', { provider: 'Y', catalog: 'd', infrastructure: ['disconnected'] }),
  ];
  it('matches every word of the search in any text field and each facet exactly', () => {
    expect(filterTiles(tiles, { ...EMPTY_QUERY, text: 'SQL b' }).map((x) => x.name)).toEqual(['b']);
    expect(filterTiles(tiles, { ...EMPTY_QUERY, category: 'DB' }).map((x) => x.name)).toEqual(['b']);
    expect(filterTiles(tiles, { ...EMPTY_QUERY, infrastructure: 'disconnected' }).map((x) => x.name)).toEqual(['a']);
    expect(filterTiles(tiles, { ...EMPTY_QUERY, catalog: 'x' })).toEqual([]);
  });
  it('sorts by name, provider or catalog and lists facet values', () => {
    expect(filterTiles(tiles, EMPTY_QUERY).map((x) => x.name)).toEqual(['a', 'b']);
    expect(filterTiles(tiles, { ...EMPTY_QUERY, sort: 'catalog' }).map((x) => x.name)).toEqual(['b', 'a']);
    expect(facetValues(tiles, (x) => x.categories)).toEqual(['DB']);
  });
});
