/**
 * Bundle releases (operator-registry's `NewRelease`, used by resolution and by catalog
 * validation): a dotted list of pre-release identifiers of at most 20 bytes, ordered
 * after the version it accompanies.
 */
import { err, ok, type Result } from '../errors/index.ts';
import { goQuote, utf8Length } from '../../gocompat/gotext/index.ts';
import { compareIdentifiers, parseIdentifier, type Identifier } from './version.ts';

/** Longest release string accepted, in UTF-8 bytes. */
const MAX_RELEASE_LENGTH = 20;

/** A release: its identifiers in order. Empty and null (no release) order alike. */
export type Release = readonly Identifier[];

/**
 * Parses a release string: `""` gives null (no release, not an error). Errors are
 * operator-registry's texts: `invalid release "<s>": exceeds maximum length of 20 characters`
 * (counted in bytes), or `invalid release "<s>": segment <i>: <identifier error>` with one
 * `segment` line per bad segment, joined by newlines.
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
  // errors.Join separates messages with newlines.
  if (problems.length > 0) return err(`invalid release ${goQuote(s)}: ${problems.join('\n')}`);
  return ok(ids);
}

/** Orders releases (-1, 0, 1): empty or null below any non-empty one; otherwise like PRE lists. */
export function compareRelease(a: Release | null, b: Release | null): number {
  const al = a?.length ?? 0;
  const bl = b?.length ?? 0;
  if (al === 0) return bl === 0 ? 0 : -1;
  if (bl === 0) return 1;
  return compareIdentifiers(a ?? [], b ?? []);
}

/** Renders a release dotted (`""` for none). */
export function formatRelease(release: Release | null): string {
  return (release ?? []).map((id) => id.str).join('.');
}
