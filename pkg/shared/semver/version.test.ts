import { describe, expect, it } from 'vitest';
import { ZERO_VERSION, compareSemver, formatSemver, parseSemver, type SemVersion } from './index.ts';
import { compareIdentifier, parseIdentifier } from './version.ts';

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

describe('blang version parsing (from the pkg/shared/fbc suite)', () => {
  it.each<[string, string]>([
    ['', 'Version string empty'],
    ['1.0', 'No Major.Minor.Patch elements found'],
    ['v1.0.0', 'Invalid character(s) found in major number "v1"'],
    ['1.x.0', 'Invalid character(s) found in minor number "x"'],
    ['0.1.0.1', 'Invalid character(s) found in patch number "0.1"'],
    ['01.0.0', 'Major number must not contain leading zeroes "01"'],
    ['1.00.1', 'Minor number must not contain leading zeroes "00"'],
    ['1.0.00', 'Patch number must not contain leading zeroes "00"'],
    ['1.0.0-01', 'Numeric PreRelease version must not contain leading zeroes "01"'],
    ['1.0.0-a..b', 'Prerelease is empty'],
    ['1.0.0-a_b', 'Invalid character(s) found in prerelease "a_b"'],
    ['1.0.0+', 'Build meta data is empty'],
    ['1.0.0+a_b', 'Invalid character(s) found in build meta data "a_b"'],
    ['.0.0', 'strconv.ParseUint: parsing "": invalid syntax'],
    ['18446744073709551616.0.0', 'strconv.ParseUint: parsing "18446744073709551616": value out of range'],
  ])('%j -> %s', (input, want) => {
    expect(parseSemver(input)).toEqual({ ok: false, error: want });
  });

  it('round-trips valid versions and orders them like semver', () => {
    expect(formatSemver(v('1.2.3-rc.1.x-y+build.5'))).toBe('1.2.3-rc.1.x-y+build.5');
    expect(formatSemver(v('18446744073709551615.0.0'))).toBe('18446744073709551615.0.0');
    const ordered = ['1.0.0-1', '1.0.0-2', '1.0.0-10', '1.0.0-a', '1.0.0-a.1', '1.0.0', '1.0.1', '1.10.0', '2.0.0'];
    for (let i = 1; i < ordered.length; i++) expect(compareSemver(v(ordered[i - 1] as string), v(ordered[i] as string))).toBe(-1);
    expect(compareSemver(v('1.0.0+a'), v('1.0.0+b'))).toBe(0);
  });
});

describe('identifiers', () => {
  it('parses numeric identifiers as numbers and keeps the text', () => {
    expect(parseIdentifier('18446744073709551615')).toEqual({ ok: true, value: { str: '18446744073709551615', num: 18446744073709551615n } });
    expect(parseIdentifier('0a')).toEqual({ ok: true, value: { str: '0a', num: undefined } });
    expect(parseIdentifier('18446744073709551616')).toEqual({
      ok: false,
      error: 'strconv.ParseUint: parsing "18446744073709551616": value out of range',
    });
  });

  it('orders numeric below alphanumeric, numbers by value, strings by bytes', () => {
    const id = (s: string) => {
      const r = parseIdentifier(s);
      if (!r.ok) throw new Error(r.error);
      return r.value;
    };
    expect(compareIdentifier(id('9'), id('10'))).toBe(-1);
    expect(compareIdentifier(id('99'), id('a'))).toBe(-1);
    expect(compareIdentifier(id('pre9'), id('pre10'))).toBe(1);
    expect(compareIdentifier(id('B'), id('a'))).toBe(-1);
    expect(compareIdentifier(id('x'), id('x'))).toBe(0);
  });

  it('has 0.0.0 as the zero version', () => {
    expect(formatSemver(ZERO_VERSION)).toBe('0.0.0');
    expect(compareSemver(ZERO_VERSION, v('0.0.0+b'))).toBe(0);
  });
});
