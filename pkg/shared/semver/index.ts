/**
 * blang/semver v4 semantics shared by catalog validation and resolution (pure): strict and
 * tolerant versions with blang's error texts, precedence, blang ranges (`skipRange`) and
 * operator-registry's bundle releases. Resolution policy stays in pkg/operator-controller/resolve.
 */
export { parseBlangRange } from './range.ts';
export { parseTolerant } from './tolerant.ts';
export { compareRelease, formatRelease, parseRelease, type Release } from './release.ts';
export { ZERO_VERSION, compareIdentifiers, compareSemver, formatSemver, parseSemver, type Identifier, type SemVersion } from './version.ts';
