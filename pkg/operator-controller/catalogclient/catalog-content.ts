/**
 * A whole catalog (`/api/v1/all`) held as compact blobs grouped per package, for catalogd
 * servers without `/api/v1/metas`; a package is loaded into typed form only when asked for.
 */
import { errorMessage } from '../../shared/errors/index.ts';
import { type DeclarativeConfig, type Meta, loadMetas } from '../../shared/fbc/index.ts';
import { packagePartition } from '../resolve/index.ts';

/** The blobs of one catalog version, per package. Immutable once built. */
export interface CatalogContent {
  /** Names of the catalog's `olm.package` blobs. */
  readonly packageNames: ReadonlySet<string>;
  /**
   * The partition of `packageName` (as `CatalogClient.getPackage` returns it); a package the
   * catalog does not have gives an empty config.
   *
   * @throws Error `error loading package "<pkg>": <cause>` when a blob does not load as FBC.
   */
  loadPackage(packageName: string): DeclarativeConfig;
}

/** Collects blobs as they are decoded; `finish` returns the grouped content. */
interface CatalogContentBuilder {
  add(meta: Meta): void;
  finish(): CatalogContent;
}

/**
 * The package a blob belongs to, as upstream's cache files it: an `olm.package` blob under
 * its own name, anything else under its `package` field ("" for blobs of no package).
 */
function packageOf(meta: Meta): string {
  return meta.schema === 'olm.package' ? meta.name : meta.package;
}

/**
 * Loads `metas` (the blobs of one package, any order) and keeps the partition of
 * `packageName`, one blob per (schema, name) slot, later blobs winning.
 *
 * @throws Error `error loading package "<pkg>": <cause>` (upstream's cache text).
 */
export function loadPackagePartition(metas: Iterable<Meta>, packageName: string): DeclarativeConfig {
  let loaded: DeclarativeConfig;
  try {
    loaded = loadMetas(metas);
  } catch (err) {
    throw new Error(`error loading package ${JSON.stringify(packageName)}: ${errorMessage(err)}`, { cause: err });
  }
  return packagePartition(loaded, packageName);
}

/** Starts grouping a stream of blobs; blobs of no package are dropped (no partition uses them). */
export function createCatalogContentBuilder(): CatalogContentBuilder {
  const byPackage = new Map<string, Meta[]>();
  const names = new Set<string>();
  return {
    add(meta) {
      const pkg = packageOf(meta);
      if (pkg === '') return;
      if (meta.schema === 'olm.package') names.add(pkg);
      const list = byPackage.get(pkg);
      if (list === undefined) byPackage.set(pkg, [meta]);
      else list.push(meta);
    },
    finish() {
      return {
        packageNames: names,
        loadPackage: (packageName) => loadPackagePartition(byPackage.get(packageName) ?? [], packageName),
      };
    },
  };
}
