/**
 * Strict semantic versions with blang/semver v4's rules, as upstream's resolver and catalog
 * validation apply them: the parser bundle versions, installed versions and skipRange
 * operands go through, its error texts, pre-release identifiers and precedence. Numeric parts
 * range over uint64, hence BigInt.
 */
import { err, ok, type Result } from '../errors/index.ts';
import { goQuote, parseUint64 } from '../../gocompat/gotext/index.ts';

/**
 * One pre-release identifier (also a release segment). `num` is set iff the identifier is
 * purely numeric; `str` is always the identifier as written (canonical for numerics, since
 * leading zeros are rejected).
 */
export interface Identifier {
  readonly str: string;
  readonly num: bigint | undefined;
}

/** A parsed `MAJOR.MINOR.PATCH[-PRE][+BUILD]` version. `build` never affects ordering. */
export interface SemVersion {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly pre: readonly Identifier[];
  readonly build: readonly string[];
}

/** 0.0.0, the version a model bundle carries before (or without) a parsed `olm.package`. */
export const ZERO_VERSION: SemVersion = Object.freeze({ major: 0n, minor: 0n, patch: 0n, pre: [], build: [] });

const DIGITS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;

function hasLeadingZero(s: string): boolean {
  return s.length > 1 && s.startsWith('0');
}

/**
 * Parses one pre-release identifier: non-empty, `[0-9A-Za-z-]` only, numeric ones without a
 * leading zero and within uint64. Errors are blang's texts (`Prerelease is empty`,
 * `Numeric PreRelease version must not contain leading zeroes "01"`, ...).
 */
export function parseIdentifier(s: string): Result<Identifier, string> {
  if (s === '') return err('Prerelease is empty');
  if (DIGITS.test(s)) {
    if (hasLeadingZero(s)) return err(`Numeric PreRelease version must not contain leading zeroes ${goQuote(s)}`);
    const n = parseUint64(s);
    if (!n.ok) return err(n.error);
    return ok({ str: s, num: n.value });
  }
  if (ALPHANUM.test(s)) return ok({ str: s, num: undefined });
  return err(`Invalid character(s) found in prerelease ${goQuote(s)}`);
}

function parseNumber(s: string, what: 'major' | 'minor' | 'patch'): Result<bigint, string> {
  if (!DIGITS.test(s)) return err(`Invalid character(s) found in ${what} number ${goQuote(s)}`);
  if (hasLeadingZero(s)) {
    const title = what.charAt(0).toUpperCase() + what.slice(1);
    return err(`${title} number must not contain leading zeroes ${goQuote(s)}`);
  }
  // "" passes both checks above and fails here with strconv's "invalid syntax", as upstream.
  const n = parseUint64(s);
  return n.ok ? ok(n.value) : err(n.error);
}

/**
 * Strict parse (blang `Parse`), checking parts in blang's order so the first error reported
 * is the same: no `v` prefix, exactly three numeric parts, the first `+` starts BUILD and the
 * first `-` before it starts PRE; PRE is checked before BUILD. Errors are blang's texts, e.g.
 * `No Major.Minor.Patch elements found`.
 */
export function parseSemver(s: string): Result<SemVersion, string> {
  if (s === '') return err('Version string empty');
  const first = s.indexOf('.');
  const second = first < 0 ? -1 : s.indexOf('.', first + 1);
  if (second < 0) return err('No Major.Minor.Patch elements found');
  const major = parseNumber(s.slice(0, first), 'major');
  if (!major.ok) return major;
  const minor = parseNumber(s.slice(first + 1, second), 'minor');
  if (!minor.ok) return minor;

  let rest = s.slice(second + 1);
  let buildParts: string[] = [];
  const plus = rest.indexOf('+');
  if (plus >= 0) {
    buildParts = rest.slice(plus + 1).split('.');
    rest = rest.slice(0, plus);
  }
  let preParts: string[] = [];
  const dash = rest.indexOf('-');
  if (dash >= 0) {
    preParts = rest.slice(dash + 1).split('.');
    rest = rest.slice(0, dash);
  }
  const patch = parseNumber(rest, 'patch');
  if (!patch.ok) return patch;

  const pre: Identifier[] = [];
  for (const part of preParts) {
    const id = parseIdentifier(part);
    if (!id.ok) return id;
    pre.push(id.value);
  }
  for (const part of buildParts) {
    if (part === '') return err('Build meta data is empty');
    if (!ALPHANUM.test(part)) return err(`Invalid character(s) found in build meta data ${goQuote(part)}`);
  }
  return ok({ major: major.value, minor: minor.value, patch: patch.value, pre, build: buildParts });
}

function cmpBig(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares two identifiers (-1, 0, 1): numeric < alphanumeric; numbers by value; strings by bytes. */
export function compareIdentifier(a: Identifier, b: Identifier): number {
  if (a.num !== undefined) return b.num === undefined ? -1 : cmpBig(a.num, b.num);
  if (b.num !== undefined) return 1;
  // Identifiers are ASCII, so UTF-16 order is byte order.
  return a.str < b.str ? -1 : a.str > b.str ? 1 : 0;
}

/** Compares identifier lists left to right (-1, 0, 1); when one is a prefix of the other, the longer wins. */
export function compareIdentifiers(a: readonly Identifier[], b: readonly Identifier[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareIdentifier(a[i] as Identifier, b[i] as Identifier);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Semver precedence (-1, 0, 1): numbers, then "no PRE beats any PRE", then PRE lists. BUILD is ignored. */
export function compareSemver(a: SemVersion, b: SemVersion): number {
  const c = cmpBig(a.major, b.major) || cmpBig(a.minor, b.minor) || cmpBig(a.patch, b.patch);
  if (c !== 0) return c;
  if (a.pre.length === 0) return b.pre.length === 0 ? 0 : 1;
  if (b.pre.length === 0) return -1;
  return compareIdentifiers(a.pre, b.pre);
}

/** Renders a version as blang's `String()` does: `M.m.p`, then `-PRE` and `+BUILD` when present. */
export function formatSemver(v: SemVersion): string {
  let s = `${v.major}.${v.minor}.${v.patch}`;
  if (v.pre.length > 0) s += `-${v.pre.map((p) => p.str).join('.')}`;
  if (v.build.length > 0) s += `+${v.build.join('.')}`;
  return s;
}
