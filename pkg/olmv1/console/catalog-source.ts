/**
 * How the console reads a catalog from catalogd: its package names (`/api/v1/metas?schema=olm.package`),
 * then each package on demand (`/api/v1/metas?package=NAME`, the per-package answer
 * operator-controller resolves from). The hub index is built one package at a time and keeps only
 * tiles, so the console holds no catalog's whole content (the 5,000-bundle catalog parsed whole
 * is some 200 MB).
 */
import type { CatalogClient } from '../../operator-controller/catalogclient/index.ts';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';

/** A catalog as the console reads it. */
interface ConsoleCatalogContent {
  packageNames: readonly string[];
  load(pkg: string): Promise<DeclarativeConfig>;
}

/** Reads the package names of the catalog at `baseURL`; its packages are read when asked for. */
export async function packageWiseCatalog(
  client: Pick<CatalogClient, 'packageNames' | 'getPackage'>,
  baseURL: string,
  signal?: AbortSignal,
): Promise<ConsoleCatalogContent> {
  const names = [...(await client.packageNames(baseURL, signal))].sort();
  return { packageNames: names, load: (pkg) => client.getPackage(baseURL, pkg, AbortSignal.timeout(120_000)) };
}
