import { describe, expect, it } from 'vitest';
import { formatSemver } from '../../shared/semver/index.ts';
import { formatMinor, nextMinorVersion, parseClusterVersion } from './index.ts';
import { effectiveCurrentVersion } from './version.ts';

// Current minor, next minor and effective current version of a cluster version.
const CASES: Array<[input: string, current: string, next: string, effective: string]> = [
  ['4.17', '4.17', '4.18', '4.17.0'],
  ['4.18.0-0.nightly-2024-11-05-123456', '4.18', '4.19', '4.18.0'],
  ['4.18.7', '4.18', '4.19', '4.18.0'],
  ['4.22', '4.22', '4.23', '4.22.0'],
  ['4.23', '4.23', '5.1', '5.0.0'],
  ['5.0', '5.0', '5.1', '5.0.0'],
  ['5.1.2', '5.1', '5.2', '5.1.0'],
];

describe('cluster versions', () => {
  it.each(CASES)('%s: current %s, next %s, effective %s', (input, current, next, effective) => {
    const v = parseClusterVersion(input);
    if (!v.ok) throw new Error(v.error);
    expect(formatMinor(v.value)).toBe(current);
    expect(formatMinor(nextMinorVersion(v.value))).toBe(next);
    expect(formatSemver(effectiveCurrentVersion(v.value))).toBe(effective);
  });

  it.each([
    ['4', 'invalid cluster version "4": No Major.Minor.Patch elements found'],
    ['v4.18', 'invalid cluster version "v4.18": No Major.Minor.Patch elements found'],
    ['4.18.x', 'invalid cluster version "4.18.x": Invalid character(s) found in patch number "x"'],
  ])('%s is refused', (input, message) => {
    expect(parseClusterVersion(input)).toEqual({ ok: false, error: message });
  });
});
