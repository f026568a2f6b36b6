/**
 * blang/semver v4 ranges, the grammar of `skipRange`: space-separated AND terms, `||` for OR,
 * full strict versions, `x` as the only wildcard. blang's quirks are kept, as catalogs rely on
 * them: a space right after `>`, `<` or `=` does not split, single-byte tokens are dropped, any
 * token with an `x` takes the wildcard path, an unknown operator before a wildcard means `=`.
 */
import { err, ok, type Result } from '../errors/index.ts';
import { goQuote, goTrimSpace, utf8Length } from '../../gocompat/gotext/index.ts';
import { compareSemver, parseSemver, type SemVersion } from './version.ts';

/**
 * A parsed range; `contains` ignores BUILD. `hasEmptyGroup` marks an empty OR group (`a || || b`),
 * which blang parses but panics on when evaluated: here it matches nothing, callers decide.
 */
interface BlangRange {
  readonly contains: (v: SemVersion) => boolean;
  readonly hasEmptyGroup: boolean;
}

const NO_SPLIT_AFTER = new Set(['>', '<', '=']);
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

// Splits on spaces, except a space that follows `>`, `<` or `=` (other spaces in between do
// not count as "follows"), then removes the remaining spaces. Pieces shorter than two UTF-8
// bytes are dropped, as upstream does.
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

// Groups tokens between `||` tokens. An empty input reports the "last element" error too.
function splitOr(parts: string[]): Result<string[][], string> {
  const groups: string[][] = [];
  let last = 0;
  for (const [i, p] of parts.entries()) {
    if (p !== '||') continue;
    if (i === 0) return err(`First element in range is '||'`);
    groups.push(parts.slice(last, i));
    last = i + 1;
  }
  if (last === parts.length) return err(`Last element in range is '||'`);
  groups.push(parts.slice(last));
  return ok(groups);
}

// The operator is everything before the first Unicode decimal digit (Go's unicode.IsDigit).
function splitComparatorVersion(part: string): Result<[string, string], string> {
  const i = part.search(/\p{Nd}/u);
  if (i < 0) return err(`Could not get version from string: ${goQuote(part)}`);
  return ok([goTrimSpace(part.slice(0, i)), part.slice(i)]);
}

// Go's strconv.Atoi followed by +1 with int64 wrap-around; null when Atoi fails.
function incrementPart(s: string | undefined): string | null {
  if (s === undefined || !/^[+-]?[0-9]+$/.test(s)) return null;
  const n = BigInt(s);
  if (n > INT64_MAX || n < INT64_MIN) return null;
  return String(n === INT64_MAX ? INT64_MIN : n + 1n);
}

// Bumps part `index` of a dotted version; "" when that part is not an integer (upstream
// ignores the error and goes on with an empty version).
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

// Rewrites one term containing an `x` into plain comparisons (upstream's wildcard step).
function expandWildcard(part: string, out: string[]): Result<void, string> {
  const split = splitComparatorVersion(part);
  if (!split.ok) return split;
  const [op, ver] = split.value;
  const pieces = ver.split('.');
  // 2 pieces ending in `x` is a minor wildcard, 3 a patch wildcard; anything else bumps to "".
  const kind = pieces[pieces.length - 1] === 'x' ? pieces.length : 0;
  let flat = ver.replace('.x.x', '.x').replace('.x', '.0');
  if (flat.split('.').length === 2) flat += '.0';

  const rule = WILDCARD_RULES.get(op);
  // An operator without a rule (e.g. `~`) leaves just the flattened version: equality.
  if (rule?.lower !== undefined) out.push(`${rule.lower}${flat}`);
  let resultVersion = flat;
  if (rule?.bump === true) resultVersion = kind === 3 ? increment(flat, 1) : kind === 2 ? increment(flat, 0) : '';
  out.push((rule?.op ?? '') + resultVersion);
  return ok(undefined);
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

interface Check {
  readonly test: (c: number) => boolean;
  readonly version: SemVersion;
}

// One expanded term: operator and strict version, with upstream's wrapped error texts.
function parseTerm(part: string): Result<Check, string> {
  const split = splitComparatorVersion(part);
  if (!split.ok) return split;
  const [op, ver] = split.value;
  const test = COMPARATORS.get(op);
  if (test === undefined) {
    return err(`Could not parse Range ${goQuote(part)}: Could not parse comparator ${goQuote(op)} in ${goQuote(op + ver)}`);
  }
  const version = parseSemver(ver);
  if (!version.ok) {
    return err(`Could not parse Range ${goQuote(part)}: Could not parse version ${goQuote(ver)} in ${goQuote(op + ver)}: ${version.error}`);
  }
  return ok({ test, version: version.value });
}

/**
 * Parses a range (blang `ParseRange`). Errors are blang's texts, in blang's order: the `||`
 * placement (`First element in range is '||'`, `Last element in range is '||'`, also for an
 * empty string), then wildcard expansion of every group (`Could not get version from
 * string: "..."`), then each term left to right (`Could not parse Range "<term>": Could not
 * parse comparator|version ...`).
 */
export function parseBlangRange(s: string): Result<BlangRange, string> {
  const groups = splitOr(splitAndTrim(s));
  if (!groups.ok) return groups;
  // Upstream expands the wildcards of all groups before it parses any term.
  const expanded: string[][] = [];
  for (const group of groups.value) {
    const out: string[] = [];
    for (const part of group) {
      if (!part.includes('x')) out.push(part);
      else {
        const r = expandWildcard(part, out);
        if (!r.ok) return r;
      }
    }
    expanded.push(out);
  }
  const ors: Check[][] = [];
  for (const group of expanded) {
    const ands: Check[] = [];
    for (const part of group) {
      const check = parseTerm(part);
      if (!check.ok) return check;
      ands.push(check.value);
    }
    ors.push(ands);
  }
  return ok({
    contains: (v) => ors.some((ands) => ands.length > 0 && ands.every((a) => a.test(compareSemver(v, a.version)))),
    hasEmptyGroup: ors.some((ands) => ands.length === 0),
  });
}
