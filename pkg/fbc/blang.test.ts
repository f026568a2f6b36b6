import { describe, expect, it } from 'vitest';
import { blangVersionString, compareBlang, imageReferenceError, parseBlangRange, parseBlangVersion, parseRelease } from './index.ts';
import { dns1123LabelErrors } from '../k8sname/index.ts';

function version(s: string) {
  const v = parseBlangVersion(s);
  if (!v.ok) throw new Error(v.error);
  return v.value;
}

describe('blang version parsing', () => {
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
    expect(parseBlangVersion(input)).toEqual({ ok: false, error: want });
  });

  it('round-trips valid versions and orders them like semver', () => {
    expect(blangVersionString(version('1.2.3-rc.1.x-y+build.5'))).toBe('1.2.3-rc.1.x-y+build.5');
    expect(blangVersionString(version('18446744073709551615.0.0'))).toBe('18446744073709551615.0.0');
    const ordered = ['1.0.0-1', '1.0.0-2', '1.0.0-10', '1.0.0-a', '1.0.0-a.1', '1.0.0', '1.0.1', '1.10.0', '2.0.0'];
    for (let i = 1; i < ordered.length; i++) expect(compareBlang(version(ordered[i - 1] as string), version(ordered[i] as string))).toBe(-1);
    expect(compareBlang(version('1.0.0+a'), version('1.0.0+b'))).toBe(0);
  });
});

describe('blang range parsing', () => {
  it.each<[string, string]>([
    ['>v0.1.0', 'Could not parse Range ">v0.1.0": Could not parse comparator ">v" in ">v0.1.0"'],
    ['>1.00.1', 'Could not parse Range ">1.00.1": Could not parse version "1.00.1" in ">1.00.1": Minor number must not contain leading zeroes "00"'],
    ['|| 1.0.0', `First element in range is '||'`],
    ['1.0.0 ||', `Last element in range is '||'`],
    ['', `Last element in range is '||'`],
    ['>=a', 'Could not get version from string: ">=a"'],
    ['~1.0.0', 'Could not parse Range "~1.0.0": Could not parse comparator "~" in "~1.0.0"'],
    ['1.2.3-xyz', 'Could not get version from string: "<"'], // any 'x' triggers wildcard expansion
  ])('%j -> %s', (input, want) => {
    expect(parseBlangRange(input)).toEqual({ ok: false, error: want });
  });

  it.each<[string, string[], string[]]>([
    ['>=1.0.0 <2.0.0', ['1.0.0', '1.9.9'], ['0.9.9', '2.0.0']],
    ['>= 1.0.0', ['1.0.0'], ['0.1.0']],
    ['<1.0.0 || >=3.0.0', ['0.5.0', '3.1.0'], ['1.0.0', '2.9.9']],
    ['1.2.x', ['1.2.0', '1.2.9'], ['1.3.0', '1.1.9']],
    ['>1.x', ['2.0.0'], ['1.9.9']],
    ['!=1.2.x', [], ['1.1.0', '1.2.5', '1.3.0']], // blang ANDs "<1.2.0" and ">=1.3.0": nothing matches
    ['!1.0.0', ['1.0.1'], ['1.0.0']],
    ['==1.0.0', ['1.0.0'], ['1.0.1']],
    ['<=1.2.x', ['1.2.9'], ['1.3.0']],
  ])('%s', (input, inside, outside) => {
    const r = parseBlangRange(input);
    if (!r.ok) throw new Error(r.error);
    for (const v of inside) expect(r.value(version(v)), v).toBe(true);
    for (const v of outside) expect(r.value(version(v)), v).toBe(false);
  });
});

describe('releases', () => {
  it.each<[string, string | string[]]>([
    ['', []],
    ['1', ['1']],
    ['alpha.2', ['alpha', '2']],
    ['a'.repeat(21), `invalid release "${'a'.repeat(21)}": exceeds maximum length of 20 characters`],
    ['01', 'invalid release "01": segment 0: Numeric PreRelease version must not contain leading zeroes "01"'],
    ['a..b_c', 'invalid release "a..b_c": segment 1: Prerelease is empty\nsegment 2: Invalid character(s) found in prerelease "b_c"'],
  ])('%j', (input, want) => {
    const r = parseRelease(input);
    if (typeof want === 'string') expect(r).toEqual({ ok: false, error: want });
    else expect(r.ok && r.value.map((p) => (p.isNum ? p.num.toString() : p.str))).toEqual(want);
  });
});

describe('DNS-1123 labels', () => {
  const regexMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  it.each<[string, string[]]>([
    ['my-operator', []],
    ['a.b', ['must not contain dots']],
    ['Foo', [regexMsg]],
    ['-x', [regexMsg]],
    ['a'.repeat(64), ['must be no more than 63 characters']],
    [`${'a'.repeat(63)}.b`, ['must be no more than 63 characters', 'must not contain dots']],
  ])('%s', (name, want) => {
    expect(dns1123LabelErrors(name)).toEqual(want);
  });
});

describe('image references (ParseNormalizedNamed)', () => {
  const hex = 'a'.repeat(64);
  it.each<[string, string | undefined]>([
    ['quay.io/ns/img:tag', undefined],
    ['busybox', undefined],
    ['localhost:5000/img', undefined],
    [`name:tag@sha256:${hex}`, undefined],
    [`quay.io/ns/img@sha512:${'b'.repeat(128)}`, undefined],
    ['quay.io/NS/img:tag', 'invalid reference format: repository name must be lowercase'],
    ['Quay.io/ns/img', undefined], // the domain may be upper case
    [hex, `invalid repository name (${hex}), cannot specify 64-byte hexadecimal strings`],
    ['quay.io/ns/img:', 'invalid reference format'],
    ['quay.io/ns/img:-tag', 'invalid reference format'],
    [`quay.io/ns/img@ssha256:${hex}`, 'unsupported digest algorithm'],
    [`quay.io/ns/img@md5:${'c'.repeat(32)}`, 'unsupported digest algorithm'],
    [`quay.io/ns/img@sha256:${'a'.repeat(63)}`, 'invalid checksum digest length'],
    [`quay.io/ns/img@sha256:${'A'.repeat(64)}`, 'invalid checksum digest format'],
    [`quay.io/${'a'.repeat(250)}`, 'repository name must not be more than 255 characters'],
    ['quay.io/ns/img:tag with space', 'invalid reference format'],
  ])('%s', (ref, want) => {
    expect(imageReferenceError(ref)).toBe(want);
  });
});
