/**
 * blang/semver v4 as operator-registry uses it: strict `MAJOR.MINOR.PATCH[-pre][+build]`
 * parsing with blang's exact error texts (bundle versions), pre-release identifiers (release
 * segments) and `ParseRange` (channel `skipRange`), including its quirks (tokens split on
 * spaces not preceded by an operator, single-character tokens dropped, `x` wildcards expanded
 * whenever a token contains an `x`). Pure. pkg/resolve has its own implementation of the same
 * grammar for resolution; this one serves validation.
 */
import { err, ok, type Result } from '../errors/index.ts';
import { goQuote, goTrimSpace } from '../gotext/index.ts';

/** A pre-release identifier: numeric (compared as a number) or alphanumeric. */
export interface PRVersion {
  isNum: boolean;
  num: bigint;
  str: string;
}

/** A parsed semantic version. Numbers are uint64 in blang, hence bigint. */
export interface BlangVersion {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: PRVersion[];
  build: string[];
}

/** A parsed range: a predicate over versions. */
export type BlangRange = (v: BlangVersion) => boolean;

/** The zero version 0.0.0 (what a model bundle without an `olm.bundle` blob carries). */
export const ZERO_VERSION: Readonly<BlangVersion> = Object.freeze({ major: 0n, minor: 0n, patch: 0n, pre: [], build: [] });

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const UINT64_MAX = 2n ** 64n - 1n;

// strconv.ParseUint(s, 10, 64) on a digits-only string.
function parseUint(s: string): Result<bigint, string> {
  if (s === '') return err(`strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n > UINT64_MAX) return err(`strconv.ParseUint: parsing ${goQuote(s)}: value out of range`);
  return ok(n);
}

function hasLeadingZeroes(s: string): boolean {
  return s.length > 1 && s[0] === '0';
}

/** blang `NewPRVersion`. */
export function parsePRVersion(s: string): Result<PRVersion, string> {
  if (s === '') return err('Prerelease is empty');
  if (NUMBERS.test(s)) {
    if (hasLeadingZeroes(s)) return err(`Numeric PreRelease version must not contain leading zeroes ${goQuote(s)}`);
    const n = parseUint(s);
    if (!n.ok) return n;
    return ok({ isNum: true, num: n.value, str: '' });
  }
  if (ALPHANUM.test(s)) return ok({ isNum: false, num: 0n, str: s });
  return err(`Invalid character(s) found in prerelease ${goQuote(s)}`);
}

function parsePart(s: string, label: 'major' | 'minor' | 'patch'): Result<bigint, string> {
  if (!NUMBERS.test(s)) return err(`Invalid character(s) found in ${label} number ${goQuote(s)}`);
  const cap = label[0]?.toUpperCase() + label.slice(1);
  if (hasLeadingZeroes(s)) return err(`${cap} number must not contain leading zeroes ${goQuote(s)}`);
  return parseUint(s);
}

/** blang `Parse`: strict semver, errors worded as blang words them. */
export function parseBlangVersion(s: string): Result<BlangVersion, string> {
  if (s === '') return err('Version string empty');
  const first = s.indexOf('.');
  const second = first < 0 ? -1 : s.indexOf('.', first + 1);
  if (second < 0) return err('No Major.Minor.Patch elements found');
  const major = parsePart(s.slice(0, first), 'major');
  if (!major.ok) return major;
  const minor = parsePart(s.slice(first + 1, second), 'minor');
  if (!minor.ok) return minor;
  let patchStr = s.slice(second + 1);
  let build: string[] = [];
  let pre: string[] = [];
  const plus = patchStr.indexOf('+');
  if (plus >= 0) {
    build = patchStr.slice(plus + 1).split('.');
    patchStr = patchStr.slice(0, plus);
  }
  const dash = patchStr.indexOf('-');
  if (dash >= 0) {
    pre = patchStr.slice(dash + 1).split('.');
    patchStr = patchStr.slice(0, dash);
  }
  const patch = parsePart(patchStr, 'patch');
  if (!patch.ok) return patch;
  const v: BlangVersion = { major: major.value, minor: minor.value, patch: patch.value, pre: [], build: [] };
  for (const p of pre) {
    const pr = parsePRVersion(p);
    if (!pr.ok) return pr;
    v.pre.push(pr.value);
  }
  for (const b of build) {
    if (b === '') return err('Build meta data is empty');
    if (!ALPHANUM.test(b)) return err(`Invalid character(s) found in build meta data ${goQuote(b)}`);
    v.build.push(b);
  }
  return ok(v);
}

/** A pre-release identifier as text. */
export function prString(p: PRVersion): string {
  return p.isNum ? p.num.toString() : p.str;
}

/** blang `Version.String()`. */
export function blangVersionString(v: BlangVersion): string {
  let s = `${v.major}.${v.minor}.${v.patch}`;
  if (v.pre.length > 0) s += `-${v.pre.map(prString).join('.')}`;
  if (v.build.length > 0) s += `+${v.build.join('.')}`;
  return s;
}

/** blang `PRVersion.Compare`: numeric < alphanumeric; numbers numerically, strings byte-wise. */
export function comparePR(a: PRVersion, b: PRVersion): number {
  if (a.isNum !== b.isNum) return a.isNum ? -1 : 1;
  if (a.isNum) return a.num === b.num ? 0 : a.num > b.num ? 1 : -1;
  return a.str === b.str ? 0 : a.str > b.str ? 1 : -1;
}

/** blang `Version.Compare` (build metadata ignored). */
export function compareBlang(a: BlangVersion, b: BlangVersion): number {
  for (const k of ['major', 'minor', 'patch'] as const) {
    if (a[k] !== b[k]) return a[k] > b[k] ? 1 : -1;
  }
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < a.pre.length && i < b.pre.length; i++) {
    const c = comparePR(a.pre[i] as PRVersion, b.pre[i] as PRVersion);
    if (c !== 0) return c;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}

const COMPARATORS = new Map<string, (c: number) => boolean>([
  ['', (c) => c === 0],
  ['=', (c) => c === 0],
  ['==', (c) => c === 0],
  ['!', (c) => c !== 0],
  ['!=', (c) => c !== 0],
  ['>', (c) => c === 1],
  ['>=', (c) => c >= 0],
  ['<', (c) => c === -1],
  ['<=', (c) => c <= 0],
]);

/** blang `ParseRange`, with its error texts (`Could not parse Range ">v1": ...`). */
export function parseBlangRange(s: string): Result<BlangRange, string> {
  const parts = splitAndTrim(s);
  const orParts: string[][] = [];
  let last = 0;
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] !== '||') continue;
    if (i === 0) return err(`First element in range is '||'`);
    orParts.push(parts.slice(last, i));
    last = i + 1;
  }
  if (last === parts.length) return err(`Last element in range is '||'`);
  orParts.push(parts.slice(last));

  const alternatives: BlangRange[] = [];
  for (const and of orParts) {
    const expanded = expandWildcards(and);
    if (!expanded.ok) return expanded;
    const checks: BlangRange[] = [];
    for (const ap of expanded.value) {
      const split = splitComparatorVersion(ap);
      if (!split.ok) return split;
      const [op, vStr] = split.value;
      const cmp = COMPARATORS.get(op);
      if (cmp === undefined) return err(`Could not parse Range ${goQuote(ap)}: Could not parse comparator ${goQuote(op)} in ${goQuote(op + vStr)}`);
      const v = parseBlangVersion(vStr);
      if (!v.ok) return err(`Could not parse Range ${goQuote(ap)}: Could not parse version ${goQuote(vStr)} in ${goQuote(op + vStr)}: ${v.error}`);
      const target = v.value;
      checks.push((x) => cmp(compareBlang(x, target)));
    }
    alternatives.push((x) => checks.every((c) => c(x)));
  }
  return ok((x) => alternatives.some((a) => a(x)));
}

// Splits on spaces that do not follow '>', '<' or '=' (byte-wise, dropping 1-byte tokens as blang does).
function splitAndTrim(s: string): string[] {
  const b = Buffer.from(s, 'utf8');
  const out: string[] = [];
  let last = 0;
  let lastChar = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i] as number;
    if (c === 0x20 && lastChar !== 0x3e && lastChar !== 0x3c && lastChar !== 0x3d) {
      if (last < i - 1) out.push(b.toString('utf8', last, i));
      last = i + 1;
    } else if (c !== 0x20) {
      lastChar = c;
    }
  }
  if (last < b.length - 1) out.push(b.toString('utf8', last));
  return out.map((p) => p.replaceAll(' ', ''));
}

function splitComparatorVersion(s: string): Result<[string, string], string> {
  const m = /\p{Nd}/u.exec(s);
  if (m === null) return err(`Could not get version from string: ${goQuote(s)}`);
  return ok([goTrimSpace(s.slice(0, m.index)), s.slice(m.index)]);
}

function bump(vStr: string, index: 0 | 1): string {
  const parts = vStr.split('.');
  const p = parts[index] ?? '';
  // strconv.Atoi failures make blang use an empty version (its error is ignored).
  if (!/^[+-]?[0-9]+$/.test(p) || !Number.isSafeInteger(Number(p))) return '';
  parts[index] = String(Number(p) + 1);
  return parts.join('.');
}

function expandWildcards(parts: string[]): Result<string[], string> {
  const out: string[] = [];
  for (let ap of parts) {
    if (ap.includes('x')) {
      const split = splitComparatorVersion(ap);
      if (!split.ok) return split;
      const [op, vStr] = split.value;
      const segs = vStr.split('.');
      const wildcard = segs[segs.length - 1] === 'x' ? segs.length : 0;
      let flat = vStr.replace('.x.x', '.x').replace('.x', '.0');
      if (flat.split('.').length === 2) flat += '.0';
      let resultOp = '';
      let increment = false;
      if (op === '>') [resultOp, increment] = ['>=', true];
      else if (op === '>=') resultOp = '>=';
      else if (op === '<') resultOp = '<';
      else if (op === '<=') [resultOp, increment] = ['<', true];
      else if (op === '' || op === '=' || op === '==') {
        out.push(`>=${flat}`);
        [resultOp, increment] = ['<', true];
      } else if (op === '!=' || op === '!') {
        out.push(`<${flat}`);
        [resultOp, increment] = ['>=', true];
      }
      let version = flat;
      if (increment) version = wildcard === 3 ? bump(flat, 1) : wildcard === 2 ? bump(flat, 0) : '';
      ap = resultOp + version;
    }
    out.push(ap);
  }
  return ok(out);
}
