/** The hub's search, filters and sort (pure; runs in the browser, tested in Node). */

/** The fields of a tile the hub filters on. */
export interface FilterableTile {
  catalog: string;
  name: string;
  displayName: string;
  provider: string;
  description: string;
  categories: string[];
  capabilities: string;
  infrastructure: string[];
  installModes: string[];
  keywords: string[];
  installed?: boolean;
}

/** Facets the user picked; '' means any. */
export interface HubQuery {
  text: string;
  catalog: string;
  category: string;
  provider: string;
  capability: string;
  infrastructure: string;
  installMode: string;
  sort: 'name' | 'provider' | 'catalog';
}

export const EMPTY_QUERY: HubQuery = {
  text: '',
  catalog: '',
  category: '',
  provider: '',
  capability: '',
  infrastructure: '',
  installMode: '',
  sort: 'name',
};

/** The tiles that match `q`, sorted. */
export function filterTiles<T extends FilterableTile>(tiles: readonly T[], q: HubQuery): T[] {
  const words = q.text
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  const out = tiles.filter(
    (t) =>
      (q.catalog === '' || t.catalog === q.catalog) &&
      (q.category === '' || t.categories.includes(q.category)) &&
      (q.provider === '' || t.provider === q.provider) &&
      (q.capability === '' || t.capabilities === q.capability) &&
      (q.infrastructure === '' || t.infrastructure.includes(q.infrastructure)) &&
      (q.installMode === '' || t.installModes.includes(q.installMode)) &&
      (words.length === 0 || words.every((w) => haystack(t).includes(w))),
  );
  const key = (t: T): string => (q.sort === 'provider' ? t.provider : q.sort === 'catalog' ? t.catalog : t.displayName).toLowerCase();
  return out.sort((a, b) => key(a).localeCompare(key(b)) || a.name.localeCompare(b.name));
}

/** The values a facet takes among `tiles`, sorted, without ''. */
export function facetValues(tiles: readonly FilterableTile[], pick: (t: FilterableTile) => string | string[]): string[] {
  const s = new Set<string>();
  for (const t of tiles) for (const v of [pick(t)].flat()) if (v !== '') s.add(v);
  return [...s].sort((a, b) => a.localeCompare(b));
}

const cache = new WeakMap<FilterableTile, string>();
function haystack(t: FilterableTile): string {
  let h = cache.get(t);
  if (h === undefined) {
    h = [t.name, t.displayName, t.provider, t.description, t.catalog, ...t.keywords, ...t.categories].join('\n').toLowerCase();
    cache.set(t, h);
  }
  return h;
}
