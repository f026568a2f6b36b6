/**
 * `spec.source.catalog.version`: Masterminds semver v3 constraints (not node-semver's).
 *
 * The grammar is recognised by a linear scanner that accepts exactly the strings upstream's
 * validation regex accepts and splits them into the same terms (a test checks this against
 * the regex itself), so no input can trigger catastrophic regex backtracking.
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';
import { termAccepts, type RangeOperator, type RangeTerm } from './range-operators.ts';
import type { Identifier, SemVersion } from '../../shared/semver/index.ts';

/** A parsed version range: OR groups of ANDed terms, each with its pre-release gate. */
export interface VersionRange {
  /** The range text as given. */
  readonly source: string;
  readonly groups: readonly { readonly terms: readonly RangeTerm[]; readonly includePre: boolean }[];
}

/** Upstream's error for a term whose version cannot be built (e.g. `1.2.3-beta.01`). */
export const CONSTRAINT_PARSER_ERROR = 'constraint parser error';

const OPERATORS: ReadonlySet<string> = new Set(['', '=', '!=', '>', '<', '>=', '=>', '<=', '=<', '~', '~>', '^']);

function isOperator(op: string): op is RangeOperator {
  return OPERATORS.has(op);
}
const OP_CHARS = new Set(['=', '!', '>', '<', '~', '^']);
// Go's regexp `\s`: ASCII whitespace without \v.
const WS = '[\\t\\n\\f\\r ]';
const WS_CHARS = new Set(['\t', '\n', '\f', '\r', ' ']);

// The constraint version (upstream's `cvRegex`), whole, with its parts captured.
const NUM = '[0-9|xX*]+';
const IDS = '[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*';
const CV = `v?${NUM}(?:\\.${NUM})?(?:\\.${NUM})?(?:-${IDS})?(?:\\+${IDS})?`;
const CV_PARTS = new RegExp(`^v?(${NUM})(?:\\.(${NUM}))?(?:\\.(${NUM}))?(?:-(${IDS}))?(?:\\+${IDS})?$`);
// `A - B` (spaces required around the dash), rewritten to `>= A, <= B ` before anything else.
const HYPHEN_RANGE = new RegExp(`${WS}*(${CV})${WS}+-${WS}+(${CV})${WS}*`, 'g');
// Masterminds' lenient version parser, used on the normalised constraint version.
const LOOSE_VERSION = new RegExp(`^v?([0-9]+)(?:\\.([0-9]+))?(?:\\.([0-9]+))?(?:-(${IDS}))?(?:\\+${IDS})?$`);
const UINT64_MAX = 18446744073709551615n;

function isWildcard(part: string | undefined): boolean {
  return part === 'x' || part === 'X' || part === '*';
}

function rewriteHyphenRanges(s: string): string {
  let out = s;
  for (const m of s.matchAll(HYPHEN_RANGE)) {
    // Like upstream, replace the first occurrence of the matched text, wherever it now is.
    const at = out.indexOf(m[0]);
    if (at >= 0) out = `${out.slice(0, at)}>= ${m[1] ?? ''}, <= ${m[2] ?? ''} ${out.slice(at + m[0].length)}`;
  }
  return out;
}

/**
 * Splits one OR group into `[op, version]` terms, or returns null when the group is not
 * `^\s*OP\s*VER\s*((\s+|,\s*)OP\s*VER\s*)*$`. Operator characters never occur in a
 * version, and terms must be separated by whitespace or one comma, so every term is a
 * maximal operator run followed by a maximal run of non-space, non-comma characters.
 */
export function splitGroup(group: string): [RangeOperator, string][] | null {
  const n = group.length;
  let i = 0;
  const skipWs = (): number => {
    const start = i;
    while (i < n && WS_CHARS.has(group[i] as string)) i++;
    return i - start;
  };
  const terms: [RangeOperator, string][] = [];
  skipWs();
  for (;;) {
    const opStart = i;
    while (i < n && OP_CHARS.has(group[i] as string)) i++;
    const op = group.slice(opStart, i);
    if (!isOperator(op)) return null;
    skipWs();
    const verStart = i;
    while (i < n && group[i] !== ',' && !WS_CHARS.has(group[i] as string)) i++;
    const ver = group.slice(verStart, i);
    if (!CV_PARTS.test(ver)) return null;
    terms.push([op, ver]);
    skipWs();
    if (i === n) return terms;
    // The version run stopped at whitespace (already skipped) or at a comma.
    if (group[i] === ',') {
      i++;
      skipWs();
    }
  }
}

function identifiers(pre: string | undefined): Identifier[] {
  if (pre === undefined || pre === '') return [];
  return pre.split('.').map((str) => {
    const numeric = /^[0-9]+$/.test(str) && BigInt(str) <= UINT64_MAX;
    return { str, num: numeric ? BigInt(str) : undefined };
  });
}

// Masterminds' lenient NewVersion: leading zeros in numbers are accepted; numbers must fit
// uint64; numeric pre-release identifiers must not have leading zeros.
function lenientVersion(s: string): SemVersion | null {
  const m = LOOSE_VERSION.exec(s);
  if (m === null) return null;
  const nums = [m[1], m[2] ?? '0', m[3] ?? '0'].map((p) => BigInt(p ?? '0'));
  if (nums.some((x) => x > UINT64_MAX)) return null;
  const pre = m[4];
  if (pre !== undefined && pre.split('.').some((p) => /^0[0-9]+$/.test(p))) return null;
  return { major: nums[0] ?? 0n, minor: nums[1] ?? 0n, patch: nums[2] ?? 0n, pre: identifiers(pre), build: [] };
}

function parseTerm(op: RangeOperator, ver: string): RangeTerm | null {
  const m = CV_PARTS.exec(ver);
  if (m === null) return null;
  const [, major = '', minor, patch, pre] = m;
  const dashPre = pre === undefined ? '' : `-${pre}`;
  let normalised = ver;
  let dirty = true;
  let minorDirty = false;
  let patchDirty = false;
  if (isWildcard(major)) {
    normalised = `0.0.0${dashPre}`;
  } else if (minor === undefined || isWildcard(minor)) {
    minorDirty = true;
    normalised = `${major}.0.0${dashPre}`;
  } else if (patch === undefined || isWildcard(patch)) {
    patchDirty = true;
    normalised = `${major}.${minor}.0${dashPre}`;
  } else {
    dirty = false;
  }
  const version = lenientVersion(normalised);
  if (version === null) return null;
  return { op, version, dirty, minorDirty, patchDirty };
}

/**
 * Parses a range with upstream's grammar and errors: `improper constraint: "<group>"` (the
 * OR group's untrimmed text) or `constraint parser error`. Groups are checked in order and
 * the first error wins.
 */
export function parseVersionRange(source: string): Result<VersionRange, string> {
  const groups: VersionRange['groups'][number][] = [];
  for (const group of rewriteHyphenRanges(source).split('||')) {
    const split = splitGroup(group);
    if (split === null) return err(`improper constraint: ${goQuote(group)}`);
    const terms: RangeTerm[] = [];
    for (const [op, ver] of split) {
      const term = parseTerm(op, ver);
      if (term === null) return err(CONSTRAINT_PARSER_ERROR);
      terms.push(term);
    }
    groups.push({ terms, includePre: terms.some((t) => t.version.pre.length > 0) });
  }
  return ok({ source, groups });
}

/**
 * Whether `v` is in the range: some OR group whose terms all accept it. BUILD is never
 * looked at; a pre-release candidate passes only groups that mention a pre-release.
 */
export function rangeContains(range: VersionRange, v: SemVersion): boolean {
  return range.groups.some((g) => g.terms.every((t) => termAccepts(v, t, g.includePre)));
}
