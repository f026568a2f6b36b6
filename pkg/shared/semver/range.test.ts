import { describe, expect, it } from 'vitest';
import { parseBlangRange, parseSemver, type SemVersion } from './index.ts';

function v(s: string): SemVersion {
  const r = parseSemver(s);
  if (!r.ok) throw new Error(`${s}: ${r.error}`);
  return r.value;
}

function range(s: string) {
  const r = parseBlangRange(s);
  if (!r.ok) throw new Error(`${s}: ${r.error}`);
  return r.value;
}

describe('blang range parsing (from the pkg/shared/fbc suite)', () => {
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
    for (const s of inside) expect(r.value.contains(v(s)), s).toBe(true);
    for (const s of outside) expect(r.value.contains(v(s)), s).toBe(false);
  });
});

describe('blang range details', () => {
  it.each<[string, string]>([
    // Every group's wildcards are expanded before any term is parsed, so a wildcard error in a
    // later group wins over a term error in an earlier one.
    ['~1.0.0 || >=x', 'Could not get version from string: ">=x"'],
    ['=1.0.0-xyz', 'Could not get version from string: "<"'],
    // Atoi + 1 wraps at int64; an Atoi failure leaves an empty version.
    [
      '>9223372036854775807.x',
      'Could not parse Range ">=-9223372036854775808.0.0": Could not parse comparator ">=-" in ">=-9223372036854775808.0.0"',
    ],
    ['>99999999999999999999.x', 'Could not get version from string: ">="'],
    [
      '>=1.0.0, <2.0.0',
      'Could not parse Range ">=1.0.0,": Could not parse version "1.0.0," in ">=1.0.0,": Invalid character(s) found in patch number "0,"',
    ],
    ['1.2.*', 'Could not parse Range "1.2.*": Could not parse version "1.2.*" in "1.2.*": Invalid character(s) found in patch number "*"'],
  ])('%j -> %s', (input, want) => {
    expect(parseBlangRange(input)).toEqual({ ok: false, error: want });
  });

  it('bumps wildcard numbers beyond 2^53 exactly', () => {
    const r = range('>9007199254740993.x');
    expect(r.contains(v('9007199254740994.0.0'))).toBe(true);
    expect(r.contains(v('9007199254740993.9.0'))).toBe(false);
  });

  it('parses an empty OR group but flags it; the group matches nothing', () => {
    const r = range('>=1.0.0 || || <0.5.0');
    expect(r.hasEmptyGroup).toBe(true);
    expect(r.contains(v('1.0.0'))).toBe(true);
    expect(r.contains(v('0.1.0'))).toBe(true);
    expect(r.contains(v('0.7.0'))).toBe(false);
    expect(range('>=1.0.0 || <0.5.0').hasEmptyGroup).toBe(false);
  });

  it('trims other white space around the operator and drops one-byte tokens', () => {
    expect(range('\t>= 1.0.0 a').contains(v('1.0.0'))).toBe(true);
    expect(range('\t>= 1.0.0 a').contains(v('0.9.0'))).toBe(false);
    // A two-byte character is a token of its own (and not a version).
    expect(parseBlangRange('é')).toEqual({ ok: false, error: 'Could not get version from string: "é"' });
  });
});
