/**
 * Bundle releases and the (version, release) pair bundles are ordered by
 * (resolver.md §2.2, §2.3), plus the round trip into `status.install.bundle` (§1.2).
 */
import type { BundleMetadata } from '../api/index.ts';
import { err, ok, type Result } from '../errors/index.ts';
import { goQuote, utf8Length } from '../gotext/index.ts';
import {
  compareIdentifiers,
  compareSemver,
  formatSemver,
  parseIdentifier,
  parseSemver,
  type Identifier,
  type SemVersion,
} from './semver.ts';

/** Longest release string accepted, in bytes. */
export const MAX_RELEASE_LENGTH = 20;

/**
 * A bundle's version and release. `release` is null when there is none; an explicit empty
 * release (`[]`) orders like null but is reported as `""` when the gate is on.
 */
export interface VersionRelease {
  readonly version: SemVersion;
  readonly release: readonly Identifier[] | null;
}

/** Options shared by every function that depends on the `BundleReleaseSupport` feature gate. */
export interface ReleaseOptions {
  /** The `BundleReleaseSupport` gate; off (false) by default, as upstream. */
  readonly bundleReleaseSupport?: boolean | undefined;
}

/**
 * Parses a release string: `""` gives null; longer than 20 bytes or a bad dotted segment
 * is an error (`invalid release "<s>": segment <i>: <reason>`, several joined by newlines).
 */
export function parseRelease(s: string): Result<Identifier[] | null, string> {
  if (s === '') return ok(null);
  if (utf8Length(s) > MAX_RELEASE_LENGTH) {
    return err(`invalid release ${goQuote(s)}: exceeds maximum length of ${MAX_RELEASE_LENGTH} characters`);
  }
  const ids: Identifier[] = [];
  const problems: string[] = [];
  for (const [i, segment] of s.split('.').entries()) {
    const id = parseIdentifier(segment);
    if (id.ok) ids.push(id.value);
    else problems.push(`segment ${i}: ${id.error}`);
  }
  if (problems.length > 0) return err(`invalid release ${goQuote(s)}: ${problems.join('\n')}`);
  return ok(ids);
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

/** Orders releases: empty or null below any non-empty one; otherwise like PRE lists. */
export function compareRelease(a: readonly Identifier[] | null, b: readonly Identifier[] | null): number {
  const al = a?.length ?? 0;
  const bl = b?.length ?? 0;
  if (al === 0) return bl === 0 ? 0 : -1;
  if (bl === 0) return 1;
  return compareIdentifiers(a ?? [], b ?? []);
}

/** Orders (version, release) pairs: version precedence (BUILD ignored), then release. */
export function compareVersionRelease(a: VersionRelease, b: VersionRelease): number {
  return compareSemver(a.version, b.version) || compareRelease(a.release, b.release);
}

/** Renders a release dotted (`""` for none). */
export function formatRelease(release: readonly Identifier[] | null): string {
  return (release ?? []).map((id) => id.str).join('.');
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
