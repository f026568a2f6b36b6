import { describe, expect, it } from 'vitest';
import { compareRelease, formatRelease, parseRelease, type Release } from './index.ts';

function rel(s: string): Release | null {
  const r = parseRelease(s);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('parseRelease', () => {
  it('treats "" as no release', () => {
    expect(parseRelease('')).toEqual({ ok: true, value: null });
  });

  it.each(['2', '1.el9', '3.alpha.1', '0', '01alpha', 'a-b', '12345678901234567890'])('accepts %s', (s) => {
    const r = parseRelease(s);
    expect(r.ok && formatRelease(r.value)).toBe(s);
  });

  it.each([
    ['123456789012345678901', 'invalid release "123456789012345678901": exceeds maximum length of 20 characters'],
    ['001', 'invalid release "001": segment 0: Numeric PreRelease version must not contain leading zeroes "001"'],
    ['1..2', 'invalid release "1..2": segment 1: Prerelease is empty'],
    [
      'a_b.01',
      'invalid release "a_b.01": segment 0: Invalid character(s) found in prerelease "a_b"\nsegment 1: Numeric PreRelease version must not contain leading zeroes "01"',
    ],
    [
      '99999999999999999999',
      'invalid release "99999999999999999999": segment 0: strconv.ParseUint: parsing "99999999999999999999": value out of range',
    ],
  ])('rejects %j', (s, message) => {
    expect(parseRelease(s)).toEqual({ ok: false, error: message });
  });

  it('counts the length limit in bytes', () => {
    // 10 two-byte characters are 20 bytes: too long only at 11.
    expect(parseRelease('é'.repeat(11))).toEqual({
      ok: false,
      error: `invalid release "${'é'.repeat(11)}": exceeds maximum length of 20 characters`,
    });
  });
});

describe('parseRelease (from the pkg/shared/fbc suite)', () => {
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
    else expect(r.ok && (r.value ?? []).map((p) => p.str)).toEqual(want);
  });
});

describe('compareRelease', () => {
  // Each row is strictly ascending.
  it.each([
    ['', '0'],
    ['1', '2'],
    ['2', '10'],
    ['10', 'a'],
    ['el9', 'el9.1'],
    ['pre10', 'pre9'],
  ])('%j < %j', (a, b) => {
    expect(compareRelease(rel(a), rel(b))).toBe(-1);
    expect(compareRelease(rel(b), rel(a))).toBe(1);
  });

  it('orders an empty release like none', () => {
    expect(compareRelease([], null)).toBe(0);
    expect(compareRelease(rel('1.el9'), rel('1.el9'))).toBe(0);
  });
});
