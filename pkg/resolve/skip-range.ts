/**
 * Channel-entry `skipRange` expressions (resolver.md §2.5). These use the range grammar of
 * the library OLM has always used for them, not the Masterminds grammar of `spec.version`:
 * space-separated AND terms, `||` tokens for OR, full strict versions, lowercase `x` as the
 * only wildcard, no commas and no pre-release gate. Its quirks are reproduced on purpose
 * (single-character tokens are dropped, an unknown operator in front of a wildcard reads as
 * equality) because existing catalogs were written against them.
 */
import { goTrimSpace, utf8Length } from '../gotext/index.ts';
import { compareSemver, parseSemver, type SemVersion } from './semver.ts';

/** A parsed skipRange: true when the (installed) version is inside it. */
export type SkipRange = (v: SemVersion) => boolean;

const NO_SPLIT_AFTER = new Set(['>', '<', '=']);
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

// Splits on spaces, except a space that follows `>`, `<` or `=` (ignoring other spaces),
// then removes the remaining spaces. Pieces shorter than two bytes are dropped, as upstream.
function splitAndTrim(s: string): string[] {
  const result: string[] = [];
  let last = 0;
  let lastChar = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string;
    if (ch === ' ' && !NO_SPLIT_AFTER.has(lastChar)) {
      if (utf8Length(s.slice(last, i)) >= 2) result.push(s.slice(last, i));
      last = i + 1;
    } else if (ch !== ' ') {
      lastChar = ch;
    }
  }
  if (utf8Length(s.slice(last)) >= 2) result.push(s.slice(last));
  return result.map((p) => p.replaceAll(' ', ''));
}

function splitOr(parts: string[]): string[][] | null {
  const groups: string[][] = [];
  let last = 0;
  for (const [i, p] of parts.entries()) {
    if (p !== '||') continue;
    if (i === 0) return null;
    groups.push(parts.slice(last, i));
    last = i + 1;
  }
  if (last === parts.length) return null;
  groups.push(parts.slice(last));
  return groups;
}

function splitComparatorVersion(part: string): [string, string] | null {
  const i = part.search(/\p{Nd}/u);
  if (i < 0) return null;
  return [goTrimSpace(part.slice(0, i)), part.slice(i)];
}

// Go's strconv.Atoi followed by +1 with int64 wrap-around; null when Atoi fails.
function incrementPart(s: string | undefined): string | null {
  if (s === undefined || !/^[+-]?[0-9]+$/.test(s)) return null;
  const n = BigInt(s);
  if (n > INT64_MAX || n < INT64_MIN) return null;
  return String(n === INT64_MAX ? INT64_MIN : n + 1n);
}

function increment(flat: string, index: 0 | 1): string {
  const parts = flat.split('.');
  const next = incrementPart(parts[index]);
  if (next === null) return '';
  parts[index] = next;
  return parts.join('.');
}

// How each operator rewrites a wildcard term: the resulting operator, whether the version
// is bumped to the next minor (patch wildcard) or major (minor wildcard), and for equality
// and inequality the extra bound emitted first.
const WILDCARD_RULES: ReadonlyMap<string, { op: string; bump: boolean; lower?: string }> = new Map([
  ['>', { op: '>=', bump: true }],
  ['>=', { op: '>=', bump: false }],
  ['<', { op: '<', bump: false }],
  ['<=', { op: '<', bump: true }],
  ['', { op: '<', bump: true, lower: '>=' }],
  ['=', { op: '<', bump: true, lower: '>=' }],
  ['==', { op: '<', bump: true, lower: '>=' }],
  ['!=', { op: '>=', bump: true, lower: '<' }],
  ['!', { op: '>=', bump: true, lower: '<' }],
]);

// Rewrites every term containing an `x` into plain comparisons (upstream's wildcard step).
function expandWildcards(group: string[]): string[] | null {
  const out: string[] = [];
  for (const part of group) {
    if (!part.includes('x')) {
      out.push(part);
      continue;
    }
    const split = splitComparatorVersion(part);
    if (split === null) return null;
    const [op, ver] = split;
    const pieces = ver.split('.');
    const kind = pieces[pieces.length - 1] === 'x' ? pieces.length : 0;
    let flat = ver.replace('.x.x', '.x').replace('.x', '.0');
    if (flat.split('.').length === 2) flat += '.0';

    const rule = WILDCARD_RULES.get(op);
    // An operator without a rule (e.g. `~`) leaves just the flattened version: equality.
    if (rule?.lower !== undefined) out.push(`${rule.lower}${flat}`);
    let resultVersion = flat;
    if (rule?.bump === true) resultVersion = kind === 3 ? increment(flat, 1) : kind === 2 ? increment(flat, 0) : '';
    out.push((rule?.op ?? '') + resultVersion);
  }
  return out;
}

const COMPARATORS: ReadonlyMap<string, (c: number) => boolean> = new Map([
  ['', (c: number) => c === 0],
  ['=', (c: number) => c === 0],
  ['==', (c: number) => c === 0],
  ['!', (c: number) => c !== 0],
  ['!=', (c: number) => c !== 0],
  ['>', (c: number) => c > 0],
  ['>=', (c: number) => c >= 0],
  ['<', (c: number) => c < 0],
  ['<=', (c: number) => c <= 0],
]);

/**
 * Parses a skipRange. Returns null for anything upstream fails to parse; the caller then
 * treats the entry as "not a successor via skipRange" (its replaces/skips still count).
 */
export function parseSkipRange(s: string): SkipRange | null {
  const groups = splitOr(splitAndTrim(s));
  if (groups === null) return null;
  const ors: { test: (c: number) => boolean; version: SemVersion }[][] = [];
  for (const group of groups) {
    // `a || || b` leaves an empty group, which upstream would dereference as a nil
    // function when evaluating; treat it as unparsable instead.
    if (group.length === 0) return null;
    const expanded = expandWildcards(group);
    if (expanded === null) return null;
    const ands: { test: (c: number) => boolean; version: SemVersion }[] = [];
    for (const part of expanded) {
      const split = splitComparatorVersion(part);
      if (split === null) return null;
      const test = COMPARATORS.get(split[0]);
      const version = parseSemver(split[1]);
      if (test === undefined || !version.ok) return null;
      ands.push({ test, version: version.value });
    }
    ors.push(ands);
  }
  return (v) => ors.some((ands) => ands.every((a) => a.test(compareSemver(v, a.version))));
}
