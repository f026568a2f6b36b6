/**
 * blang/semver v4's `ParseTolerant` (the `olm.maxOpenShiftVersion` gate, OLM's dependency
 * constraints): trims white space and one leading `v`, drops leading zeros, fills `1` or `1.2` up
 * to three parts, then parses strictly, with blang v4's (lower-case) error texts.
 */
import { err, type Result } from '../errors/index.ts';
import { goTrimSpace } from '../../gocompat/gotext/index.ts';
import { parseSemver, type SemVersion } from './version.ts';

/** Reads `text` as blang's `ParseTolerant` does. */
export function parseTolerant(text: string): Result<SemVersion, string> {
  let s = goTrimSpace(text);
  if (s.startsWith('v')) s = s.slice(1);
  const parts = splitN(s, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    const trimmed = p.replace(/^0+/, '');
    return trimmed === '' || !/^[0-9]/.test(trimmed) ? `0${trimmed}` : trimmed;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1] ?? '')) return err('short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

// Go's strings.SplitN for n > 0: at most n pieces, the last holding the rest.
function splitN(s: string, sep: string, n: number): string[] {
  const all = s.split(sep);
  if (all.length <= n) return all;
  return [...all.slice(0, n - 1), all.slice(n - 1).join(sep)];
}
