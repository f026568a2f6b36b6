import { describe, expect, it } from 'vitest';
import { cleanPath, evaluatePreconditions, negotiateCoding, parseHttpDate, parseRange } from './http-semantics.ts';

describe('cleanPath', () => {
  it.each([
    ['/catalogs/x/api/v1/all', '/catalogs/x/api/v1/all'],
    ['//catalogs//x', '/catalogs/x'],
    ['/catalogs/./x/../y', '/catalogs/y'],
    ['/catalogs/x/', '/catalogs/x/'],
    ['/..', '/'],
    ['', '/'],
  ])('%s -> %s', (input, want) => expect(cleanPath(input)).toBe(want));
});

describe('parseHttpDate', () => {
  const want = Date.UTC(1994, 10, 6, 8, 49, 37);
  it.each(['Sun, 06 Nov 1994 08:49:37 GMT', 'Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994'])('parses %s', (s) => {
    expect(parseHttpDate(s)?.getTime()).toBe(want);
  });
  it.each(['yesterday', '2026-11-22T00:00:00Z', 'Sun, 06 Nov 1994 08:49:37 UTC', 'Xyz, 06 Nov 1994 08:49:37 GMT'])('rejects %s', (s) => {
    expect(parseHttpDate(s)).toBeUndefined();
  });
});

describe('evaluatePreconditions', () => {
  const mtime = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
  const at = (s: number): string => new Date(Date.UTC(2026, 0, 2, 3, 4, s)).toUTCString();
  it.each<[Record<string, string>, string]>([
    [{}, 'proceed'],
    [{ 'if-modified-since': at(5) }, 'not-modified'],
    [{ 'if-modified-since': at(4) }, 'proceed'],
    [{ 'if-modified-since': 'garbage' }, 'proceed'],
    [{ 'if-none-match': '*' }, 'not-modified'],
    [{ 'if-none-match': '"abc"', 'if-modified-since': at(9) }, 'proceed'],
    [{ 'if-match': '"abc"' }, 'precondition-failed'],
    [{ 'if-match': '*' }, 'proceed'],
    [{ 'if-unmodified-since': at(4) }, 'precondition-failed'],
    [{ 'if-unmodified-since': at(5) }, 'proceed'],
  ])('%j -> %s', (headers, want) => expect(evaluatePreconditions(headers, mtime)).toBe(want));
});

describe('parseRange', () => {
  it.each<[string | undefined, unknown]>([
    [undefined, undefined],
    ['bytes=0-9', [{ start: 0, end: 10 }]],
    ['bytes=90-', [{ start: 90, end: 100 }]],
    ['bytes=-5', [{ start: 95, end: 100 }]],
    ['bytes=95-200', [{ start: 95, end: 100 }]],
    [
      'bytes=0-1, 5-6',
      [
        { start: 0, end: 2 },
        { start: 5, end: 7 },
      ],
    ],
    ['bytes=100-', 'unsatisfiable'],
    ['bytes=5-1', 'invalid'],
    ['items=0-1', 'invalid'],
    ['bytes=0-99,0-99', undefined],
    ['bytes=', undefined],
  ])('%s', (header, want) => expect(parseRange(header, 100)).toEqual(want));
});

describe('negotiateCoding', () => {
  it.each<[string | undefined, string]>([
    [undefined, 'identity'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br, zstd', 'gzip'],
    ['zstd', 'identity'],
    ['zstd, gzip;q=0.1', 'gzip'],
    ['gzip;q=0', 'identity'],
    ['identity', 'identity'],
  ])('%s -> %s', (h, want) => expect(negotiateCoding(h)).toBe(want));
});
