import { describe, expect, it } from 'vitest';
import { formatSemver, parseTolerant } from './index.ts';

describe('parseTolerant (blang v4 ParseTolerant)', () => {
  it.each([
    ['1', '1.0.0'],
    ['1.2', '1.2.0'],
    [' v1.2.3 ', '1.2.3'],
    ['01.002.0003', '1.2.3'],
    ['1.2.3-rc.1+build', '1.2.3-rc.1+build'],
    ['4.18', '4.18.0'],
  ])('reads %j as %s', (text, want) => {
    const got = parseTolerant(text);
    expect(got.ok && formatSemver(got.value)).toBe(want);
  });

  it.each([
    ['4.18-rc', 'short version cannot contain PreRelease/Build meta data'],
    ['1+meta', 'short version cannot contain PreRelease/Build meta data'],
  ])('refuses %j with blang v4 text', (text, want) => {
    expect(parseTolerant(text)).toEqual({ ok: false, error: want });
  });

  it('trims only what Go counts as space (a byte order mark stays and fails)', () => {
    expect(parseTolerant('\uFEFF1.2.3').ok).toBe(false);
  });
});
