/**
 * The tenant controller's reads of catalogs and bundles (decision 0138): the resolution of a
 * request over the cluster's catalogs, as the ClusterExtension's resolve step reads them, and a
 * resolved bundle's installer, from the bundle image pulled into the ClusterExtension's own
 * cache entry (its uninstall removes it; its own pull then finds the bundle there).
 */
import { err, errorMessage, ok, type Result } from '../../shared/errors/index.ts';
import { fetchBundle, type BundleSource } from '../bundlepull/index.ts';
import { selectedCatalogs, type CatalogSource } from '../dependencyview/index.ts';
import { bundleInstaller, type BundleInstaller, type RenderOptions } from '../render/index.ts';
import { metadataFor, resolve, type LabelSelector } from '../resolve/index.ts';

/** What a request resolves within. */
export interface ResolveRequest {
  packageName: string;
  channels: readonly string[];
  versionRange: string | undefined;
  selector: LabelSelector | undefined;
  upgradeConstraintPolicy: string;
  installed: { name: string; version: string; release?: string | undefined } | undefined;
}

/** The bundle a resolution picked. */
export interface Resolved {
  name: string;
  version: string;
  image: string;
  catalog: string;
}

/** Resolves `r` over the catalogs its selector picks; a failure is the resolver's message. */
export async function resolveRequest(source: CatalogSource, r: ResolveRequest, signal?: AbortSignal): Promise<Result<Resolved, string>> {
  const selection = await selectedCatalogs(source, r.selector, r.packageName, signal);
  if (!selection.ok) return selection;
  const resolved = resolve({
    packageName: r.packageName,
    channels: r.channels,
    versionRange: r.versionRange,
    upgradeConstraintPolicy: r.upgradeConstraintPolicy,
    installed: r.installed ?? null,
    catalogs: selection.value.inputs,
  });
  if (!resolved.ok) return resolved;
  const { bundle, versionRelease, catalog } = resolved.value;
  return ok({ name: bundle.name, version: metadataFor(bundle.name, versionRelease).version, image: bundle.image, catalog });
}

/**
 * Pulls `image` into `owner`'s cache entry and computes its installer rendered with `options`;
 * a bundle that does not render or cannot be authorized is a failure value, a pull that fails
 * throws.
 */
export async function installerOf(
  source: BundleSource,
  req: { owner: string; image: string; options: RenderOptions; serviceAccount: string },
  signal?: AbortSignal,
): Promise<Result<BundleInstaller, string>> {
  const fetched = await fetchBundle(source, { owner: req.owner, ref: req.image, signal });
  try {
    const installer = bundleInstaller(fetched.bundle, req.options, req.serviceAccount);
    if (installer.ok) return installer;
    const failure = installer.error;
    return err('render' in failure ? failure.render.message : failure.rbac);
  } catch (e) {
    throw new Error(`computing the installer of ${req.image}: ${errorMessage(e)}`, { cause: e });
  } finally {
    fetched.lease?.release();
  }
}
