import { describe, expect, it } from 'vitest';
import { compareSemver, formatSemver, parseSemver, type SemVersion } from './index.ts';

function v(s: string): SemVersion {
  const r = parseSemver(s);
  if (!r.ok) throw new Error(`${s}: ${r.error}`);
  return r.value;
}

describe('parseSemver (strict)', () => {
  it.each([
    ['0.0.0', 0n, 0n, 0n, [], []],
    ['1.2.3', 1n, 2n, 3n, [], []],
    ['1.2.3-rc.1', 1n, 2n, 3n, ['rc', '1'], []],
    ['1.2.3-01a.0', 1n, 2n, 3n, ['01a', '0'], []],
    ['1.2.3+001.build', 1n, 2n, 3n, [], ['001', 'build']],
    ['1.2.3-a-b+c-d', 1n, 2n, 3n, ['a-b'], ['c-d']],
    ['1.2.3-x+y-z', 1n, 2n, 3n, ['x'], ['y-z']],
    ['18446744073709551615.0.0', 18446744073709551615n, 0n, 0n, [], []],
  ])('parses %s', (input, major, minor, patch, pre, build) => {
    const got = v(input);
    expect([got.major, got.minor, got.patch]).toEqual([major, minor, patch]);
    expect(got.pre.map((p) => p.str)).toEqual(pre);
    expect(got.build).toEqual(build);
  });

  it.each([
    ['', 'Version string empty'],
    ['1.2', 'No Major.Minor.Patch elements found'],
    ['v1.2.3', 'Invalid character(s) found in major number "v1"'],
    ['01.2.3', 'Major number must not contain leading zeroes "01"'],
    ['1.02.3', 'Minor number must not contain leading zeroes "02"'],
    ['1.2.03', 'Patch number must not contain leading zeroes "03"'],
    ['1.2-beta.3', 'Invalid character(s) found in minor number "2-beta"'],
    ['1.2.x', 'Invalid character(s) found in patch number "x"'],
    ['1.2.3-', 'Prerelease is empty'],
    ['1.2.3-a..b', 'Prerelease is empty'],
    ['1.2.3-01', 'Numeric PreRelease version must not contain leading zeroes "01"'],
    ['1.2.3-a_b', 'Invalid character(s) found in prerelease "a_b"'],
    ['1.2.3+', 'Build meta data is empty'],
    ['1.2.3+a_b', 'Invalid character(s) found in build meta data "a_b"'],
    ['.1.2', 'strconv.ParseUint: parsing "": invalid syntax'],
    ['18446744073709551616.0.0', 'strconv.ParseUint: parsing "18446744073709551616": value out of range'],
    ['1.2.3-\n', 'Invalid character(s) found in prerelease "\\n"'],
  ])('rejects %j with upstream text', (input, message) => {
    expect(parseSemver(input)).toEqual({ ok: false, error: message });
  });

  it('reports the prerelease error before the build error', () => {
    expect(parseSemver('1.2.3-a_b+c_d')).toEqual({ ok: false, error: 'Invalid character(s) found in prerelease "a_b"' });
  });
});

describe('compareSemver (precedence)', () => {
  // Each row is strictly ascending.
  it.each([
    ['1.0.0-alpha', '1.0.0-alpha.1'],
    ['1.0.0-alpha.1', '1.0.0-alpha.beta'],
    ['1.0.0-alpha.beta', '1.0.0-beta'],
    ['1.0.0-beta.2', '1.0.0-beta.11'],
    ['1.0.0-beta.11', '1.0.0-rc.1'],
    ['1.0.0-rc.1', '1.0.0'],
    ['1.0.0-pre10', '1.0.0-pre9'],
    ['1.0.0-B', '1.0.0-a'],
    ['1.0.0-999', '1.0.0-a'],
    ['1.9.9', '1.10.0'],
    ['9.0.0', '10.0.0'],
    ['18446744073709551614.0.0', '18446744073709551615.0.0'],
  ])('%s < %s', (a, b) => {
    expect(compareSemver(v(a), v(b))).toBe(-1);
    expect(compareSemver(v(b), v(a))).toBe(1);
  });

  it('ignores build metadata', () => {
    expect(compareSemver(v('1.0.0+1'), v('1.0.0+2'))).toBe(0);
    expect(compareSemver(v('1.0.0-rc.1+x'), v('1.0.0-rc.1'))).toBe(0);
  });

  it('formats back to the input', () => {
    for (const s of ['1.2.3', '1.2.3-rc.1', '1.2.3+b.001', '0.0.0-0+x']) expect(formatSemver(v(s))).toBe(s);
  });
});
