/**
 * Which catalogs' tiles of a package say *Installed* (pure; issue 71): the catalog a
 * ClusterExtension was installed from, not every catalog serving its package. operator-controller
 * records the installed bundle's name (`status.install.bundle`) and image (its Installed message,
 * `Installed bundle IMAGE successfully`), not the catalog: the catalogs are narrowed to those
 * serving that bundle, then to those giving it that image. A catalog pinned by the extension's
 * selector (`olm.operatorframework.io/metadata.name`) narrows first. An extension with nothing
 * installed yet marks every catalog left.
 */
import { CATALOG_NAME_LABEL } from '../../shared/api/index.ts';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';

/** What of a ClusterExtension decides where it came from. */
interface InstalledFrom {
  package: string;
  /** The installed bundle's name, '' while none is installed. */
  bundle: string;
  /** The installed bundle's image, '' when its Installed condition does not say. */
  image: string;
  /** The catalog its selector pins by name, '' when none. */
  pinned: string;
}

/** The installed-from facts of a ClusterExtension object. */
export function installedFrom(obj: unknown): InstalledFrom {
  const o = rec(obj);
  const catalog = rec(rec(rec(o.spec).source).catalog);
  const status = rec(o.status);
  const conds = Array.isArray(status.conditions) ? status.conditions.map(rec) : [];
  const message = s(conds.find((c) => c.type === 'Installed' && c.status === 'True')?.message);
  return {
    package: s(catalog.packageName),
    bundle: s(rec(rec(status.install).bundle).name),
    image: /^Installed bundle (\S+) successfully$/.exec(message)?.[1] ?? '',
    pinned: s(rec(rec(catalog.selector).matchLabels)[CATALOG_NAME_LABEL]),
  };
}

/** Of `candidates` (the catalogs serving the package, with its content), the ones the extension was installed from. */
export function installedCatalogs(from: InstalledFrom, candidates: readonly { catalog: string; content: DeclarativeConfig }[]): string[] {
  let left = from.pinned === '' ? [...candidates] : candidates.filter((c) => c.catalog === from.pinned);
  if (from.bundle === '') return left.map((c) => c.catalog);
  const bundleOf = (c: (typeof left)[number]) => c.content.bundles.find((b) => b.package === from.package && b.name === from.bundle);
  left = left.filter((c) => bundleOf(c) !== undefined);
  const sameImage = left.filter((c) => bundleOf(c)?.image === from.image);
  return (sameImage.length > 0 ? sameImage : left).map((c) => c.catalog);
}

function rec(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function s(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
