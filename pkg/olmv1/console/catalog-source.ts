/**
 * How the console reads a catalog from catalogd. The hub index comes from one pass over
 * `/api/v1/all`, a package at a time (the catalog client's `eachPackage`): each package's tile is
 * made as its blobs stream in and its content dropped, so the console holds tiles, not the
 * catalog (the 5,000-bundle catalog parsed whole is some 200 MB), and one request replaces the
 * one or two per package the index took before. A package page reads its package again
 * (`/api/v1/metas?package=NAME`, the per-package answer operator-controller resolves from).
 */
import type { CatalogClient } from '../../operator-controller/catalogclient/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { hubTile, type HubTile } from './hub-index.ts';
import type { ConsoleCatalog } from './sources.ts';

/**
 * Reads the catalog `catalog` served at `baseURL` in one pass and makes its tiles; its packages
 * are read again when asked for. A package that does not load is left out of the tiles and
 * named in `problems`; a package whose blobs were not together in the stream is read whole.
 */
export async function streamedCatalog(
  client: Pick<CatalogClient, 'eachPackage' | 'getPackage'>,
  catalog: string,
  baseURL: string,
  signal?: AbortSignal,
): Promise<ConsoleCatalog> {
  const tiles = new Map<string, HubTile>();
  const problems: string[] = [];
  const load = (pkg: string): ReturnType<CatalogClient['getPackage']> => client.getPackage(baseURL, pkg, AbortSignal.timeout(120_000));
  const { packageNames, scattered } = await client.eachPackage(
    baseURL,
    (pkg, partition) => {
      if (partition instanceof Error) problems.push(`catalog ${catalog}, package ${pkg}: ${partition.message}`);
      else tiles.set(pkg, hubTile(catalog, pkg, partition));
    },
    signal,
  );
  for (const pkg of scattered) {
    try {
      tiles.set(pkg, hubTile(catalog, pkg, await load(pkg)));
    } catch (e) {
      tiles.delete(pkg);
      problems.push(`catalog ${catalog}, package ${pkg}: ${errorMessage(e)}`);
    }
  }
  return {
    packageNames: [...packageNames].sort(),
    load,
    tiles: [...tiles.values()].filter((t) => packageNames.has(t.name)),
    problems,
  };
}
