/**
 * The (version, release) pair bundles are ordered by: the legacy and explicit readings of a
 * bundle's version and release, their order, and the round trip into
 * `status.install.bundle`. Versions and releases themselves come from pkg/shared/semver.
 */
import type { BundleMetadata } from '../../shared/api/index.ts';
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';
import {
  compareRelease,
  compareSemver,
  formatRelease,
  formatSemver,
  parseRelease,
  parseSemver,
  type Release,
  type SemVersion,
} from '../../shared/semver/index.ts';

/**
 * A bundle's version and release. `release` is null when there is none; an explicit empty
 * release (`[]`) orders like null but is reported as `""` when the gate is on.
 */
export interface VersionRelease {
  readonly version: SemVersion;
  readonly release: Release | null;
}

/** Options shared by every function that depends on the `BundleReleaseSupport` feature gate. */
export interface ReleaseOptions {
  /** The `BundleReleaseSupport` gate; off (false) by default, as upstream. */
  readonly bundleReleaseSupport?: boolean | undefined;
}

/**
 * The legacy (registry+v1) reading of a version string: strict parse, then, when the BUILD
 * identifiers form a valid non-empty release, they become the release and BUILD is
 * cleared. Invalid-as-release BUILD (e.g. `001`) simply stays BUILD. Errors are the strict
 * parser's texts.
 */
export function parseLegacyVersionRelease(version: string): Result<VersionRelease, string> {
  const v = parseSemver(version);
  if (!v.ok) return v;
  const rel = parseRelease(v.value.build.join('.'));
  if (rel.ok && rel.value !== null && rel.value.length > 0) {
    return ok({ version: { ...v.value, build: [] }, release: rel.value });
  }
  return ok({ version: v.value, release: null });
}

/**
 * The explicit reading: strict version (BUILD kept) and a separate release, where `""` is
 * an explicit empty release. Errors: `error parsing version "<v>": ...` and
 * `error parsing release "<r>": ...`.
 */
export function parseExplicitVersionRelease(version: string, release: string): Result<VersionRelease, string> {
  const v = parseSemver(version);
  if (!v.ok) return err(`error parsing version ${goQuote(version)}: ${v.error}`);
  if (release === '') return ok({ version: v.value, release: [] });
  const rel = parseRelease(release);
  if (!rel.ok) return err(`error parsing release ${goQuote(release)}: ${rel.error}`);
  return ok({ version: v.value, release: rel.value });
}

/** Orders (version, release) pairs: version precedence (BUILD ignored), then release. */
export function compareVersionRelease(a: VersionRelease, b: VersionRelease): number {
  return compareSemver(a.version, b.version) || compareRelease(a.release, b.release);
}

/**
 * The version string the gate-off world uses: the release, when there is one, replaces
 * BUILD (e.g. `1.0.0+2`); otherwise the version is rendered with its own BUILD.
 */
export function formatLegacyVersion(vr: VersionRelease): string {
  if (vr.release !== null && vr.release.length > 0) {
    return formatSemver({ ...vr.version, build: vr.release.map((id) => id.str) });
  }
  return formatSemver(vr.version);
}

/**
 * The `status.install.bundle` for a resolved bundle (upstream `MetadataFor`). Gate off:
 * `version` is the legacy form and `release` is unset. Gate on: `version` keeps BUILD and
 * `release` is set whenever the release is non-null (an explicit empty one gives `""`).
 */
export function metadataFor(bundleName: string, vr: VersionRelease, options: ReleaseOptions = {}): BundleMetadata {
  if (options.bundleReleaseSupport !== true) return { name: bundleName, version: formatLegacyVersion(vr) };
  const meta: BundleMetadata = { name: bundleName, version: formatSemver(vr.version) };
  if (vr.release !== null) meta.release = formatRelease(vr.release);
  return meta;
}
