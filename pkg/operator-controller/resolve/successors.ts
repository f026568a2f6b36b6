/**
 * The upgrade candidates the catalogs offer from an installed bundle, each with its edge, for
 * `olmv1 upgrade plan` (pure): the catalogs read as `resolve` reads them, but every candidate
 * listed, with whether `spec.source.catalog.version` keeps it and whether it is deprecated.
 */
import { edgeFrom, type InstalledEdges, type SkipRange } from './candidates.ts';
import { bundleVersionRelease } from './bundle-version.ts';
import {
  compareVersionRelease,
  formatLegacyVersion,
  parseExplicitVersionRelease,
  parseLegacyVersionRelease,
  type VersionRelease,
} from './release.ts';
import type { ResolveInput } from './types.ts';
import { checkVersionRange } from './resolver.ts';
import { rangeContains } from './version-range.ts';

/** One bundle a catalog offers as an upgrade from the installed one. */
export interface Successor {
  catalog: string;
  /** The channel whose entry holds the edge; null for SelfCertified candidates in no selected channel. */
  channel: string | null;
  bundle: string;
  /** The bundle's version ('' when it has none that parses). */
  version: string;
  /** The edge from the installed bundle; `SelfCertified` when edges are not followed. */
  edge: 'replaces' | 'skips' | 'skipRange' | 'SelfCertified';
  /** The entry's skipRange, for `edge: 'skipRange'`. */
  skipRange?: string;
  /** True when `spec.source.catalog.version` (if any) contains the version. */
  inRange: boolean;
  /** True when the catalog's deprecations name the bundle. */
  deprecated: boolean;
}

const MAX_SUCCESSORS = 200;

/**
 * Every bundle with an edge from `input.installed` in the selected channels of each fetched
 * catalog (with SelfCertified: every bundle of the selected channels, or of the package, with a
 * higher version), one per catalog, channel and bundle, highest version first, at most
 * MAX_SUCCESSORS. Empty when nothing is installed or its version does not parse.
 */
export function upgradeSuccessors(input: ResolveInput): Successor[] {
  const installed = installedEdges(input);
  if (installed === undefined) return [];
  const range = checkVersionRange(input.versionRange ?? '');
  const selfCertified = input.upgradeConstraintPolicy === 'SelfCertified';
  const wanted = new Set(input.channels ?? []);
  const skipRanges = new Map<string, SkipRange | null>();
  const out: { s: Successor; vr: VersionRelease | undefined }[] = [];
  for (const catalog of input.catalogs) {
    if (!('package' in catalog) || catalog.package === null) continue;
    const fbc = catalog.package;
    const deprecatedNames = new Set(
      (fbc.deprecations[0]?.entries ?? []).filter((e) => e.reference.schema === 'olm.bundle').map((e) => e.reference.name),
    );
    const bundles = new Map(fbc.bundles.map((b) => [b.name, b]));
    const channels = wanted.size === 0 ? fbc.channels : fbc.channels.filter((c) => wanted.has(c.name));
    const add = (channel: string | null, name: string, edge: Successor['edge'], skipRange?: string): void => {
      const bundle = bundles.get(name);
      const vr = bundle === undefined ? undefined : bundleVersionRelease(bundle, input);
      const version = vr?.ok === true ? vr.value : undefined;
      if (edge === 'SelfCertified' && (version === undefined || compareVersionRelease(version, installed.versionRelease) <= 0)) return;
      const inRange = !range.ok ? false : range.value === undefined || (version !== undefined && rangeContains(range.value, version.version));
      const s: Successor = {
        catalog: catalog.name,
        channel,
        bundle: name,
        version: version === undefined ? '' : formatLegacyVersion(version),
        edge,
        ...(skipRange === undefined ? {} : { skipRange }),
        inRange,
        deprecated: deprecatedNames.has(name),
      };
      out.push({ s, vr: version });
    };
    if (selfCertified) {
      const names =
        wanted.size === 0
          ? fbc.bundles.map((b) => [null, b.name] as const)
          : channels.flatMap((c) => c.entries.map((e) => [c.name, e.name] as const));
      for (const [channel, name] of names) add(channel, name, 'SelfCertified');
      continue;
    }
    for (const channel of channels) {
      for (const entry of channel.entries) {
        const edge = edgeFrom(entry, installed, skipRanges);
        if (edge !== undefined) add(channel.name, entry.name, edge, edge === 'skipRange' ? entry.skipRange : undefined);
      }
    }
  }
  out.sort((a, b) => {
    if (a.vr === undefined || b.vr === undefined) return (a.vr === undefined ? 1 : 0) - (b.vr === undefined ? 1 : 0);
    return compareVersionRelease(b.vr, a.vr);
  });
  return out.slice(0, MAX_SUCCESSORS).map((x) => x.s);
}

function installedEdges(input: ResolveInput): InstalledEdges | undefined {
  const installed = input.installed;
  if (installed === null || installed === undefined) return undefined;
  const explicit = installed.release !== null && installed.release !== undefined;
  const vr = explicit ? parseExplicitVersionRelease(installed.version, installed.release ?? '') : parseLegacyVersionRelease(installed.version);
  return vr.ok ? { name: installed.name, versionRelease: vr.value } : undefined;
}
