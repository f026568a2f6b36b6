/**
 * The error texts resolution produces, each builder labelled with a short code (E-range,
 * E-walk-1, ...) that the resolver's comments and tests use. They reach the ClusterExtension's
 * Progressing condition verbatim, and users and tools compare them with upstream's, so each
 * builder reproduces upstream's format exactly (Go `%q` quoting, `%v` lists, trimming).
 */
import { goQuote, goList, goTrimSpace } from '../../gocompat/gotext/index.ts';

const WALK = 'error walking catalogs: ';

/** E-range: `desired version range "<range>" is invalid: <parser error>`. */
export function versionRangeInvalid(range: string, reason: string): string {
  return `desired version range ${goQuote(range)} is invalid: ${reason}`;
}

/** E-walk-2: fetching the package from a catalog failed; aborts the whole resolution. */
export function getPackageFailed(packageName: string, catalog: string, reason: string): string {
  return `${WALK}error getting package ${goQuote(packageName)} from catalog ${goQuote(catalog)}: ${reason}`;
}

/** E-edges: the installed version or release does not parse. */
export function upgradeEdgesFailed(reason: string): string {
  return `${WALK}error finding upgrade edges: ${reason}`;
}

/** E-ver: the chosen bundle has no usable version. */
export function resolvedVersionFailed(bundleName: string, reason: string): string {
  return `error getting resolved bundle version for bundle ${goQuote(bundleName)}: ${reason}`;
}

/** E-dep: the chosen bundle declares a dependency, which OLM v1 does not resolve. */
export function dependencyNotSupported(bundleName: string, propertyType: string): string {
  const q = goQuote(bundleName);
  return `validating bundle ${q}: bundle ${q} has a dependency declared via property ${goQuote(propertyType)} which is currently not supported`;
}

/** Fetch error: the catalog's Serving condition is not True. */
export function catalogNotServed(catalog: string): string {
  return `catalog ${goQuote(catalog)} is not being served`;
}

/** Fetch error: the catalog has no `status.resolvedSource`. */
export function catalogNilResolvedSource(catalog: string): string {
  return `error: catalog ${goQuote(catalog)} has a nil status.resolvedSource value`;
}

/** Fetch error: the catalog has no `status.resolvedSource.image`. */
export function catalogNilResolvedImage(catalog: string): string {
  return `error: catalog ${goQuote(catalog)} has a nil status.resolvedSource.image value`;
}

/** Fetch error: populating the local content cache failed earlier (the error is cached). */
export function catalogCacheFailed(catalog: string, reason: string): string {
  return `error retrieving cache for catalog ${goQuote(catalog)}: ${reason}`;
}

/** What the "no unique bundle" error (E-none / E-ambig) is built from. */
interface ResolutionFailure {
  readonly packageName: string;
  readonly versionRange: string;
  readonly channels: readonly string[];
  /** The raw `installed.version`, when something is installed. */
  readonly installedVersion: string | undefined;
  /** Names of the catalogs still in contention (none, or several of equal top priority). */
  readonly catalogs: readonly string[];
}

/**
 * E-none / E-ambig, built from parts and trimmed like upstream, e.g.
 * `error upgrading from currently installed version "1.0.0": no bundles found for package "p" matching version "2.0.0" in channels [stable]`
 * or `found bundles for package "p" in multiple catalogs with the same priority [a b]`.
 */
export function resolutionFailed(f: ResolutionFailure): string {
  let s = '';
  if (f.installedVersion !== undefined) {
    s += `error upgrading from currently installed version ${goQuote(f.installedVersion)}: `;
  }
  const several = f.catalogs.length > 1;
  s += `${several ? 'found bundles' : 'no bundles found'} for package ${goQuote(f.packageName)} `;
  if (f.versionRange !== '') s += `matching version ${goQuote(f.versionRange)} `;
  if (f.channels.length > 0) s += `in channels ${goList(f.channels)} `;
  if (several) {
    // Byte-wise sort, like Go's slices.Sort on strings.
    const sorted = [...f.catalogs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    s += `in multiple catalogs with the same priority ${goList(sorted)} `;
  }
  return goTrimSpace(s);
}

/** Reasons the installed bundle's identity cannot be read (inside E-edges). */
export function installedVersionFailed(explicitRelease: boolean, reason: string): string {
  return explicitRelease
    ? `failed to parse installed bundle version and release: ${reason}`
    : `failed to get version and release of installed bundle: ${reason}`;
}
