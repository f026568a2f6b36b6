/**
 * The in-cluster console's hub index shared between sessions (issue 71, HUB item 4): one read of
 * a catalog per content digest, however many sessions ask. Safe to share because catalogd serves
 * catalog content to anyone who reaches it (no token: the console reads it with its own client,
 * the same for every session), so a session learns nothing from it that it could not read
 * itself; which catalogs a session sees stays its own, from its own ClusterCatalog list. One
 * entry per catalog name: a new digest replaces the old one; a read that fails is forgotten,
 * so the next session reads again.
 */
import type { ConsoleCatalog } from './sources.ts';

/** The shared reads, keyed by catalog name and content key (digest and URL). */
export interface SharedCatalogs {
  /** The catalog `name` read for `key`: the read under way or done, else `read()`. */
  get(name: string, key: string, read: () => Promise<ConsoleCatalog>): Promise<ConsoleCatalog>;
  /** How many catalogs are held. */
  size(): number;
}

/** An empty set of shared reads. */
export function createSharedCatalogs(): SharedCatalogs {
  const entries = new Map<string, { key: string; catalog: Promise<ConsoleCatalog> }>();
  return {
    get(name, key, read) {
      const held = entries.get(name);
      if (held?.key === key) return held.catalog;
      const catalog = read();
      const entry = { key, catalog };
      entries.set(name, entry);
      catalog.catch(() => {
        if (entries.get(name) === entry) entries.delete(name);
      });
      return catalog;
    },
    size: () => entries.size,
  };
}
