import { describe, expect, it } from 'vitest';
import { compareUtf8, goBool, goDuration, goFormatFloatG, goList, goQuote, goSorted, goTrimSpace, parseUint64, utf8Length } from './index.ts';

describe('goQuote (strconv.Quote)', () => {
  it.each([
    ['plain', '"plain"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['\x07\b\f\n\r\t\v', '"\\a\\b\\f\\n\\r\\t\\v"'],
    ['\x00\x1f\x7f', '"\\x00\\x1f\\x7f"'],
    ['héllo 世界', '"héllo 世界"'],
    ['\u00a0\u200b', '"\\u00a0\\u200b"'],
    ['\u{1F600}', '"😀"'],
    ['\u{E0001}', '"\\U000e0001"'],
    ['\ud800', '"�"'],
  ])('%j', (input, want) => expect(goQuote(input)).toBe(want));
});

describe('Go string semantics', () => {
  it('orders by UTF-8 bytes, not UTF-16 code units', () => {
    // In UTF-16, U+10000 (a surrogate pair, D800 DC00) sorts before U+E000; in UTF-8 bytes
    // (F0 90 80 80 vs EE 80 80) it sorts after, and Go uses the byte order.
    expect(compareUtf8('\ue000', '\u{10000}')).toBeLessThan(0);
    expect(goSorted(['b', 'B', 'a', '\u{10000}', '\ue000'])).toEqual(['B', 'a', 'b', '\ue000', '\u{10000}']);
  });
  it('trims unicode.IsSpace but not U+FEFF', () => {
    expect(goTrimSpace('\u00a0\t x \u3000')).toBe('x');
    expect(goTrimSpace('\ufeffx')).toBe('\ufeffx');
  });
  it('counts UTF-8 bytes and prints %v of []string', () => {
    expect(utf8Length('aé世😀')).toBe(1 + 2 + 3 + 4);
    expect(goList(['a', '', 'b'])).toBe('[a  b]');
  });
});

describe('Go numbers', () => {
  it('formats floats in shortest g form', () => {
    expect(goFormatFloatG(1)).toBe('1');
    expect(goFormatFloatG(1e21)).toBe('1e+21');
    expect(goFormatFloatG(0.0001)).toBe('0.0001');
    expect(goFormatFloatG(0.00001)).toBe('1e-05');
    expect(goFormatFloatG(-0)).toBe('-0');
  });
  it('parses uint64 with strconv texts', () => {
    expect(parseUint64('18446744073709551615')).toEqual({ ok: true, value: 18446744073709551615n });
    expect(parseUint64('18446744073709551616')).toEqual({
      ok: false,
      error: 'strconv.ParseUint: parsing "18446744073709551616": value out of range',
    });
    expect(parseUint64('')).toEqual({ ok: false, error: 'strconv.ParseUint: parsing "": invalid syntax' });
    expect(parseUint64('1a')).toEqual({ ok: false, error: 'strconv.ParseUint: parsing "1a": invalid syntax' });
  });
});

describe('goDuration (time.Duration.String)', () => {
  it.each([
    [0, '0s'],
    [250, '250ms'],
    [1_000, '1s'],
    [1_500, '1.5s'],
    [61_020, '1m1.02s'],
    [600_000, '10m0s'],
    [3_600_000, '1h0m0s'],
    [43_200_000, '12h0m0s'],
    [-90_000, '-1m30s'],
  ])('%d ms', (ms, want) => expect(goDuration(ms)).toBe(want));
});

describe('goBool (strconv.ParseBool)', () => {
  it.each([
    ['true', true],
    ['1', true],
    ['T', true],
    ['false', false],
    ['0', false],
    ['f', false],
    ['yes', undefined],
    ['', undefined],
  ])('%j', (v, want) => expect(goBool(v)).toBe(want));
});
