import { describe, expect, it } from 'vitest';
import { re2ToJs } from './stored-regex.ts';

const runs = (pattern: string, text: string): boolean => {
  const r = re2ToJs(pattern);
  if (!r.ok) throw new Error(r.error);
  return new RegExp(r.value, 'u').test(text);
};

describe('re2ToJs', () => {
  it('translates what differs: `.` and `\\s` as RE2 reads them', () => {
    expect(runs('^a.c$', 'a\rc')).toBe(true); // RE2's `.` matches \r, JS's does not
    expect(runs('^a.c$', 'a\nc')).toBe(false);
    expect(runs('^\\s$', '\u00a0')).toBe(false); // RE2's \s is ASCII only
    expect(runs('^[\\s]$', '\t')).toBe(true);
    expect(runs('^a{2}\\-$', 'aa-')).toBe(true);
    expect(runs('^[]a]+$', ']a')).toBe(true); // RE2: a leading ] is a literal
    expect(runs('^x{,2}$', 'x{,2}')).toBe(true); // RE2: not a repetition
  });

  it('refuses what it cannot run exactly', () => {
    for (const p of ['[[:alpha:]]', '\\pL', '(?i)abc', '(?P<n>a)', '\\Qa.b\\E', 'a\\z', '\\x{41}', '(?=a)', 'a{1001}']) {
      expect(re2ToJs(p).ok, p).toBe(false);
    }
  });
});
