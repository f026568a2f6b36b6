/**
 * Operator semantics of one Masterminds v3 constraint: how a single `OP VER` term, after
 * wildcard normalisation (wildcard or missing parts become zeros, marked dirty), judges a
 * candidate version. The pre-release gate (a candidate with a pre-release passes only OR
 * groups that mention a pre-release) is applied per OR group by the caller and repeated here,
 * as upstream does, so every operator is safe to call on its own.
 */
import { compareIdentifiers, compareSemver, type SemVersion } from '../../shared/semver/index.ts';

/** The operators the grammar accepts, aliases included. */
export type RangeOperator = '' | '=' | '!=' | '>' | '<' | '>=' | '=>' | '<=' | '=<' | '~' | '~>' | '^';

/**
 * One parsed term. `version` is the constraint version after wildcard normalisation
 * (BUILD is irrelevant and left empty). `dirty` is set for any wildcard or missing part;
 * `minorDirty` when the minor part is the first wildcard, `patchDirty` when the patch is.
 */
export interface RangeTerm {
  readonly op: RangeOperator;
  readonly version: SemVersion;
  readonly dirty: boolean;
  readonly minorDirty: boolean;
  readonly patchDirty: boolean;
}

function isZeroZeroZero(v: SemVersion): boolean {
  return v.major === 0n && v.minor === 0n && v.patch === 0n;
}

function tilde(v: SemVersion, t: RangeTerm): boolean {
  const c = t.version;
  if (compareSemver(v, c) < 0) return false;
  // `~0.0.0` and bare `*`-like terms accept everything at or above the constraint.
  if (isZeroZeroZero(c) && !t.minorDirty && !t.patchDirty) return true;
  if (v.major !== c.major) return false;
  return t.minorDirty || v.minor === c.minor;
}

function caret(v: SemVersion, t: RangeTerm): boolean {
  const c = t.version;
  if (compareSemver(v, c) < 0) return false;
  if (c.major > 0n || t.minorDirty) return v.major === c.major;
  if (v.major > 0n) return false;
  if (c.minor > 0n || t.patchDirty) return v.minor === c.minor;
  if (v.minor > 0n) return false;
  return v.patch === c.patch;
}

function notEqual(v: SemVersion, t: RangeTerm): boolean {
  const c = t.version;
  if (t.dirty) {
    if (v.major !== c.major) return true;
    if (t.minorDirty) return false;
    if (v.minor !== c.minor) return true;
    if (t.patchDirty) {
      // Same major.minor: only a differing pre-release makes the version "not equal".
      if (v.pre.length === 0 && c.pre.length === 0) return false;
      return compareIdentifiers(v.pre, c.pre) !== 0;
    }
    // Major-only wildcard: the version is 0.0.0[-PRE]; fall through to plain inequality.
  }
  return compareSemver(v, c) !== 0;
}

function greaterThan(v: SemVersion, t: RangeTerm): boolean {
  const c = t.version;
  if (!t.dirty) return compareSemver(v, c) > 0;
  if (v.major !== c.major) return v.major > c.major;
  if (t.minorDirty) return false;
  if (t.patchDirty) return v.minor > c.minor;
  return compareSemver(v, c) > 0;
}

function lessThanOrEqual(v: SemVersion, t: RangeTerm): boolean {
  const c = t.version;
  if (!t.dirty) return compareSemver(v, c) <= 0;
  if (v.major > c.major) return false;
  return !(v.major === c.major && v.minor > c.minor && !t.minorDirty);
}

/**
 * Whether `v` satisfies the term. `includePre` is the OR group's pre-release gate: when it
 * is false, any candidate with a pre-release fails every operator.
 */
export function termAccepts(v: SemVersion, t: RangeTerm, includePre: boolean): boolean {
  if (v.pre.length > 0 && !includePre) return false;
  switch (t.op) {
    case '':
    case '=':
      return t.dirty ? tilde(v, t) : compareSemver(v, t.version) === 0;
    case '!=':
      return notEqual(v, t);
    case '>':
      return greaterThan(v, t);
    case '<':
      return compareSemver(v, t.version) < 0;
    case '>=':
    case '=>':
      return compareSemver(v, t.version) >= 0;
    case '<=':
    case '=<':
      return lessThanOrEqual(v, t);
    case '~':
    case '~>':
      return tilde(v, t);
    case '^':
      return caret(v, t);
  }
}
