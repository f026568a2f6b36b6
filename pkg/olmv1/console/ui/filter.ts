/**
 * The hub's search, filters and sort (pure; runs in the browser, tested in Node). As OperatorHub's
 * filter panel: several values of one filter widen the match (any of them), filters narrow it
 * (all of them), and each value is counted among the packages the search and the other filters
 * leave.
 */

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
  arch?: string[];
  os?: string[];
  installed?: boolean;
  /** The catalog's display name and source type (catalog-badge.ts), when known. */
  catalogName?: string;
  sourceType?: string;
}

/** The hub's filters, in the order of its filter panel. */
export const FACETS = [
  { key: 'installed', label: 'Install state', pick: (t: FilterableTile) => (t.installed === true ? 'Installed' : 'Not installed') },
  { key: 'source', label: 'Source', pick: (t: FilterableTile) => t.sourceType ?? 'Custom' },
  { key: 'catalog', label: 'Catalog', pick: (t: FilterableTile) => t.catalogName ?? t.catalog },
  { key: 'category', label: 'Category', pick: (t: FilterableTile) => t.categories },
  { key: 'provider', label: 'Provider', pick: (t: FilterableTile) => t.provider },
  { key: 'capability', label: 'Capability level', pick: (t: FilterableTile) => t.capabilities },
  { key: 'infrastructure', label: 'Infrastructure features', pick: (t: FilterableTile) => t.infrastructure },
  { key: 'arch', label: 'Architecture', pick: (t: FilterableTile) => t.arch ?? ['amd64'] },
  { key: 'os', label: 'Operating system', pick: (t: FilterableTile) => t.os ?? ['linux'] },
  { key: 'installMode', label: 'Install mode', pick: (t: FilterableTile) => t.installModes },
] as const satisfies readonly { key: string; label: string; pick: (t: FilterableTile) => string | readonly string[] }[];

export type FacetKey = (typeof FACETS)[number]['key'];

/** What the user picked: the search text, each filter's checked values (none: any), the sort. */
export interface HubQuery {
  text: string;
  selected: Partial<Record<FacetKey, readonly string[]>>;
  sort: 'name' | 'provider' | 'catalog';
}

export const EMPTY_QUERY: HubQuery = { text: '', selected: {}, sort: 'name' };

/** At most this many values a filter lists (the most common; checked ones always): catalog content is hostile. */
const MAX_FACET_VALUES = 200;

/** One value of a filter with the number of packages it would show. */
interface FacetCount {
  value: string;
  count: number;
}

/** The tiles that match `q`, sorted. */
export function filterTiles<T extends FilterableTile>(tiles: readonly T[], q: HubQuery): T[] {
  const w = words(q.text);
  const key = (t: T): string =>
    (q.sort === 'provider' ? t.provider : q.sort === 'catalog' ? (t.catalogName ?? t.catalog) : t.displayName).toLowerCase();
  // Each key made once and compared by one collator (localeCompare's order): at 5,000 packages
  // the page's first render sorted with ~120,000 lower-casings and localeCompare calls.
  const keyed = tiles.flatMap((t) => (misses(t, q, w) === 0 ? [{ t, k: key(t) }] : []));
  const { compare } = new Intl.Collator();
  return keyed.sort((a, b) => compare(a.k, b.k) || compare(a.t.name, b.t.name)).map((x) => x.t);
}

/**
 * Each filter's values with their counts: how many tiles match the search and every other
 * filter and have that value (OperatorHub's counts). Values sorted by name; '' left out.
 */
export function facetCounts(tiles: readonly FilterableTile[], q: HubQuery): Record<FacetKey, FacetCount[]> {
  const w = words(q.text);
  const counts = new Map<FacetKey, Map<string, number>>(FACETS.map((f) => [f.key, new Map()]));
  // Nothing searched or checked (the hub's first render): every tile counts under every filter.
  const open = w.length === 0 && FACETS.every((f) => (q.selected[f.key] ?? []).length === 0);
  for (const t of tiles) {
    if (w.length > 0 && !w.every((x) => haystack(t).includes(x))) continue;
    const failed = open ? [] : FACETS.filter((f) => !matches(f, t, q));
    // A tile counts under filter f when it passes every filter but f.
    if (failed.length > 1) continue;
    for (const f of failed.length === 1 ? failed : FACETS) {
      const m = counts.get(f.key) as Map<string, number>;
      for (const v of new Set(values(f, t))) if (v !== '') m.set(v, (m.get(v) ?? 0) + 1);
    }
  }
  const out = {} as Record<FacetKey, FacetCount[]>;
  for (const f of FACETS) {
    const m = counts.get(f.key) as Map<string, number>;
    for (const v of q.selected[f.key] ?? []) if (!m.has(v)) m.set(v, 0);
    const picked = new Set(q.selected[f.key] ?? []);
    const kept = [...m]
      .sort((a, b) => Number(picked.has(b[0])) - Number(picked.has(a[0])) || b[1] - a[1])
      .slice(0, MAX_FACET_VALUES)
      .map(([value, count]) => ({ value, count }));
    out[f.key] = kept.sort((a, b) => a.value.localeCompare(b.value));
  }
  return out;
}

/** `q` with `value` of filter `key` checked or unchecked. */
export function toggle(q: HubQuery, key: FacetKey, value: string, on: boolean): HubQuery {
  const now = (q.selected[key] ?? []).filter((v) => v !== value);
  return { ...q, selected: { ...q.selected, [key]: on ? [...now, value] : now } };
}

type Facet = (typeof FACETS)[number];

function values(f: Facet, t: FilterableTile): readonly string[] {
  const v = f.pick(t);
  return typeof v === 'string' ? [v] : v;
}

function matches(f: Facet, t: FilterableTile, q: HubQuery): boolean {
  const want = q.selected[f.key] ?? [];
  return want.length === 0 || values(f, t).some((v) => want.includes(v));
}

function misses(t: FilterableTile, q: HubQuery, w: string[]): number {
  if (w.length > 0 && !w.every((x) => haystack(t).includes(x))) return 1;
  return FACETS.filter((f) => !matches(f, t, q)).length;
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
}

const cache = new WeakMap<FilterableTile, string>();
function haystack(t: FilterableTile): string {
  let h = cache.get(t);
  if (h === undefined) {
    h = [t.name, t.displayName, t.provider, t.description, t.catalogName ?? '', t.catalog, ...t.keywords, ...t.categories].join('\n').toLowerCase();
    cache.set(t, h);
  }
  return h;
}
