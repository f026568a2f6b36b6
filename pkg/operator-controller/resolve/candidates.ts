/**
 * One catalog's contribution to a resolution, as upstream's per-catalog step: filter the
 * package's bundles by channel, range and upgrade edges, then pick the best.
 * Every bundle's version is parsed at most once per call. A channel entry's `skipRange` is a
 * blang range; upstream ignores one that does not parse (its `replaces`/`skips` still count).
 */
import type { Bundle, Channel, ChannelEntry, DeclarativeConfig, Deprecation } from '../../shared/fbc/types.ts';
import type { Result } from '../../shared/errors/index.ts';
import { bundleVersionRelease } from './bundle-version.ts';
import { compareVersionRelease, type ReleaseOptions, type VersionRelease } from './release.ts';
import { parseBlangRange, type SemVersion } from '../../shared/semver/index.ts';
import { rangeContains, type VersionRange } from './version-range.ts';

/** The deprecation-entry schema that makes a bundle rank last. */
const BUNDLE_SCHEMA = 'olm.bundle';

/** What the installed bundle contributes to the successor predicate. */
export interface InstalledEdges {
  readonly name: string;
  readonly versionRelease: VersionRelease;
}

/** Filters shared by every catalog of one resolution. */
export interface CandidateFilter extends ReleaseOptions {
  /** Selected channel names, or undefined for "all channels, and bundles in none". */
  readonly channels: ReadonlySet<string> | undefined;
  readonly range: VersionRange | undefined;
  /** Set when successor filtering applies (something installed, not SelfCertified). */
  readonly installed: InstalledEdges | undefined;
  /** skipRange parses, shared across catalogs of one resolution. */
  readonly skipRanges: Map<string, SkipRange | null>;
  /** Bundle names of this catalog already passed over (unmet dependencies). */
  readonly excluded?: ReadonlySet<string> | undefined;
}

/** A catalog's best bundle and what the cross-catalog steps need to know about it. */
export interface CatalogBest {
  readonly bundle: Bundle;
  readonly versionRelease: Result<VersionRelease, string>;
  /** Whether the bundle is deprecated by this catalog's deprecation object. */
  readonly deprecated: boolean;
  /** The package's first `olm.deprecations` object in this catalog, or null. */
  readonly deprecation: Deprecation | null;
}

/** True when every list of the partition is empty: the catalog does not have the package. */
export function isEmptyPartition(fbc: DeclarativeConfig | null): boolean {
  if (fbc === null) return true;
  return (
    fbc.packages.length === 0 && fbc.channels.length === 0 && fbc.bundles.length === 0 && fbc.deprecations.length === 0 && fbc.others.length === 0
  );
}

function isEdgeFrom(entry: ChannelEntry, installed: InstalledEdges, skipRanges: Map<string, SkipRange | null>): boolean {
  return edgeFrom(entry, installed, skipRanges) !== undefined;
}

/** Which edge of `entry` leads from `installed`: replaces, then skips, then skipRange; undefined for none. */
export function edgeFrom(
  entry: ChannelEntry,
  installed: InstalledEdges,
  skipRanges: Map<string, SkipRange | null>,
): 'replaces' | 'skips' | 'skipRange' | undefined {
  if (entry.replaces === installed.name) return 'replaces';
  if (entry.skips?.includes(installed.name) === true) return 'skips';
  const text = entry.skipRange ?? '';
  if (text === '') return undefined;
  let range = skipRanges.get(text);
  if (range === undefined) {
    range = parseSkipRange(text);
    skipRanges.set(text, range);
  }
  return range !== null && range(installed.versionRelease.version) ? 'skipRange' : undefined;
}

// Ordering of two candidates, best first: not deprecated, then higher (version, release),
// unparsable versions last; then, where upstream's order is undefined, bundle name
// (decision 0030), so the result does not depend on file or stream order.
function better(a: Ranked, b: Ranked): boolean {
  if (a.deprecated !== b.deprecated) return !a.deprecated;
  const av = a.vr;
  const bv = b.vr;
  if (av.ok !== bv.ok) return av.ok;
  if (av.ok && bv.ok) {
    const c = compareVersionRelease(av.value, bv.value);
    if (c !== 0) return c > 0;
  }
  return a.bundle.name < b.bundle.name;
}

interface Ranked {
  bundle: Bundle;
  vr: Result<VersionRelease, string>;
  deprecated: boolean;
}

/**
 * Names of the entries of `channels` with an upgrade edge from `installed` (replaces, skips,
 * skipRange). Edges come from the selected channels when channels are given, else from all.
 */
export function successorNames(channels: readonly Channel[], installed: InstalledEdges, skipRanges: Map<string, SkipRange | null>): Set<string> {
  const names = new Set<string>();
  for (const channel of channels) {
    for (const entry of channel.entries) if (isEdgeFrom(entry, installed, skipRanges)) names.add(entry.name);
  }
  return names;
}

/**
 * The best bundle of one catalog's partition that passes every filter, or undefined when
 * none does. The partition is not modified.
 */
export function bestInCatalog(fbc: DeclarativeConfig, filter: CandidateFilter): CatalogBest | undefined {
  const selected = filter.channels === undefined ? undefined : fbc.channels.filter((c) => filter.channels?.has(c.name));
  const members = selected === undefined ? undefined : new Set(selected.flatMap((c) => c.entries.map((e) => e.name)));

  const installed = filter.installed;
  const successors = installed === undefined ? undefined : successorNames(selected ?? fbc.channels, installed, filter.skipRanges);

  const deprecation = fbc.deprecations[0] ?? null;
  const deprecatedNames = new Set((deprecation?.entries ?? []).filter((e) => e.reference.schema === BUNDLE_SCHEMA).map((e) => e.reference.name));

  let best: Ranked | undefined;
  for (const bundle of fbc.bundles) {
    if (members !== undefined && !members.has(bundle.name)) continue;
    if (filter.excluded?.has(bundle.name) === true) continue;
    let vr: Result<VersionRelease, string> | undefined;
    const versionOf = (): Result<VersionRelease, string> => (vr ??= bundleVersionRelease(bundle, filter));
    if (filter.range !== undefined) {
      const v = versionOf();
      if (!v.ok || !rangeContains(filter.range, v.value.version)) continue;
    }
    if (installed !== undefined && successors?.has(bundle.name) !== true) {
      // Not an edge: still a candidate when it is the installed version+release itself.
      const v = versionOf();
      if (!v.ok || compareVersionRelease(v.value, installed.versionRelease) !== 0) continue;
    }
    const ranked: Ranked = { bundle, vr: versionOf(), deprecated: deprecatedNames.has(bundle.name) };
    if (best === undefined || better(ranked, best)) best = ranked;
  }
  if (best === undefined) return undefined;
  return { bundle: best.bundle, versionRelease: best.vr, deprecated: best.deprecated, deprecation };
}

/** A parsed skipRange: true when the (installed) version is inside it. */
export type SkipRange = (v: SemVersion) => boolean;

/**
 * Parses a skipRange; null for anything blang fails to parse, and also for a range with an
 * empty OR group (`a || || b`), which blang parses but cannot evaluate (decision 0030).
 */
export function parseSkipRange(s: string): SkipRange | null {
  const r = parseBlangRange(s);
  if (!r.ok || r.value.hasEmptyGroup) return null;
  return r.value.contains;
}
