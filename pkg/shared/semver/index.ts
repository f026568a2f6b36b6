/**
 * blang/semver v4 semantics shared by catalog validation (pkg/shared/fbc) and resolution
 * (pkg/operator-controller/resolve): strict versions with blang's error texts, pre-release identifiers and
 * precedence, blang ranges (channel `skipRange`) and operator-registry's bundle releases.
 * Pure. Resolution policy on top of these (legacy build-as-release, (version, release)
 * ordering, what an unparsable skipRange means) stays in pkg/operator-controller/resolve.
 */
export { parseBlangRange } from './range.ts';
export { parseTolerant } from './tolerant.ts';
export { compareRelease, formatRelease, parseRelease, type Release } from './release.ts';
export { ZERO_VERSION, compareIdentifiers, compareSemver, formatSemver, parseSemver, type Identifier, type SemVersion } from './version.ts';
