/**
 * Reading the hub in two steps: the catalogs (each ClusterCatalog's content, a few at a time, so
 * one slow catalog does not hold the others back), then the hub's tiles (each package of every
 * catalog read once more, for its tile). A page about one package needs only the first step, so
 * it does not wait for every catalog's tiles to be made (server.ts).
 */
import { errorMessage } from '../../shared/errors/index.ts';
import { catalogBadge, type CatalogBadge } from './catalog-badge.ts';
import { hubTile, type HubTile } from './hub-index.ts';
import type { SharedCatalogs } from './shared-catalogs.ts';
import type { ConsoleCatalog, ConsoleSources } from './sources.ts';

/** The catalogs read: each one's content and badge by ClusterCatalog name, and what could not be read. */
export interface CatalogSet {
  catalogs: Map<string, ConsoleCatalog>;
  /** Each catalog's display name and source type, by ClusterCatalog name. */
  badges: Record<string, CatalogBadge>;
  problems: string[];
}

/** The hub index: the catalogs read and the tiles of their packages. */
export interface HubSnapshot extends CatalogSet {
  at: number;
  tiles: HubTile[];
}

/** Catalogs read at once. */
const CATALOG_CONCURRENCY = 4;
/** Packages of one catalog read at once while its tiles are made. */
const INDEX_CONCURRENCY = 4;

/** Every ClusterCatalog the user may list, each read (shared between sessions when its content digest is known). */
export async function readCatalogs(sources: ConsoleSources, shared: SharedCatalogs | undefined, signal: AbortSignal): Promise<CatalogSet> {
  const refs = await sources.listCatalogs(signal);
  const badges: Record<string, CatalogBadge> = {};
  const read = new Array<ConsoleCatalog | string>(refs.length);
  const queue = refs.map((ref, i) => ({ ref, i }));
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const { ref, i } = next;
      badges[ref.name] = catalogBadge(ref.name, ref.annotations);
      const url = ref.baseURL;
      if (typeof url !== 'string') {
        read[i] = `catalog ${ref.name}: ${url.error}`;
        continue;
      }
      const load = (): Promise<ConsoleCatalog> => sources.loadCatalog(ref.name, url, signal);
      try {
        read[i] = shared === undefined || ref.digestRef === undefined ? await load() : await shared.get(ref.name, `${ref.digestRef} ${url}`, load);
      } catch (e) {
        read[i] = `catalog ${ref.name}: ${errorMessage(e)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: CATALOG_CONCURRENCY }, worker));
  // In the order listed, whichever read finished first.
  const catalogs = new Map<string, ConsoleCatalog>();
  const problems: string[] = [];
  refs.forEach((ref, i) => {
    const r = read[i];
    if (typeof r === 'string') problems.push(r);
    else if (r !== undefined) catalogs.set(ref.name, r);
  });
  return { catalogs, badges, problems };
}

/** The hub's tiles of the catalogs `set` holds, sorted by display name; a package that cannot be read is a problem. */
export async function indexTiles(set: CatalogSet, at: number): Promise<HubSnapshot> {
  const tiles: HubTile[] = [];
  const problems = [...set.problems];
  for (const [name, c] of set.catalogs) {
    if (c.tiles !== undefined) {
      tiles.push(...c.tiles);
      problems.push(...(c.problems ?? []));
      continue;
    }
    // A few packages at a time, each dropped once its tile is made: the index holds tiles, not content.
    const queue = [...c.packageNames];
    const worker = async (): Promise<void> => {
      for (let pkg = queue.shift(); pkg !== undefined; pkg = queue.shift()) {
        try {
          tiles.push(hubTile(name, pkg, await c.load(pkg)));
        } catch (e) {
          problems.push(`catalog ${name}, package ${pkg}: ${errorMessage(e)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: INDEX_CONCURRENCY }, worker));
  }
  tiles.sort((a, b) => (a.displayName.toLowerCase() < b.displayName.toLowerCase() ? -1 : 1));
  return { at, catalogs: set.catalogs, badges: set.badges, tiles, problems };
}
