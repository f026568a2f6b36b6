/**
 * OLM's CEL function `semver_compare(a, b)`: -1, 0 or 1 as blang/semver's `Compare` of the
 * two values read tolerantly (operator-framework/api's constraint library). Tolerant reading
 * trims spaces and a leading `v`, drops leading zeros of the numeric parts and fills a short
 * `1` or `1.2` up to three parts; anything else must be a strict semantic version.
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { compareSemver, parseSemver, type SemVersion } from '../../shared/semver/index.ts';

/** Reads `text` as blang's `ParseTolerant` does. */
export function parseTolerant(text: string): Result<SemVersion, string> {
  let s = text.trim();
  if (s.startsWith('v')) s = s.slice(1);
  const parts = splitN(s, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    const trimmed = p.replace(/^0+/, '');
    return trimmed === '' || !/^[0-9]/.test(trimmed) ? `0${trimmed}` : trimmed;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1] ?? '')) return err('Short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

// Go's strings.SplitN: at most n pieces, the last holding the rest.
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

/** Renders a CEL value the way Go's `fmt.Sprint` renders the decoded JSON value it stands for. */
function sprint(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v) ?? String(v);
}

/** `semver_compare(a, b)`; an unreadable side is an evaluation error naming the value. */
export function semverCompare(a: unknown, b: unknown): Result<number, string> {
  const va = parseTolerant(sprint(a));
  if (!va.ok) return err(`unable to parse '${sprint(a)}' to semver format`);
  const vb = parseTolerant(sprint(b));
  if (!vb.ok) return err(`unable to parse '${sprint(b)}' to semver format`);
  return ok(compareSemver(va.value, vb.value));
}
