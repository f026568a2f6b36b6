import { describe, expect, it } from 'vitest';
import { goCleanPath, goRelPath } from './go-path.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';
import { onlyPath } from './path-filter.ts';

describe('onlyPath', () => {
  const cases: Array<{ name: string; labels: string[]; entries: string[]; keep: boolean }> = [
    {
      name: 'everything is kept when the label names the root',
      labels: ['', '/'],
      entries: ['file', '/file', '/nested/file', '/deeply/nested/file'],
      keep: true,
    },
    {
      name: 'nothing outside the label directory is kept',
      labels: ['source'],
      entries: ['elsewhere', '/elsewhere', '/nested/elsewhere', '/deeply/nested/elsewhere'],
      keep: false,
    },
    {
      name: 'leading slashes are trimmed on both sides',
      labels: ['source', '/source'],
      entries: ['source', '/source', 'source/nested/elsewhere', '/source/nested/elsewhere', '/source/deeply/nested/elsewhere'],
      keep: true,
    },
    {
      name: 'entries above the root are dropped without error',
      labels: ['fine', '/'],
      entries: ['../not-supported', '../fine'],
      keep: false,
    },
    {
      name: 'prefixes match whole path components',
      labels: ['configs'],
      entries: ['configsfoo/x', 'configs-old', 'config'],
      keep: false,
    },
    {
      name: 'names are cleaned before comparing',
      labels: ['configs/', './configs'],
      entries: ['configs/./a', 'configs//b', 'x/../configs/c', 'configs/'],
      keep: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      for (const label of c.labels) {
        const filter = onlyPath(label);
        for (const entry of c.entries) expect([label, entry, filter(entry)]).toEqual([label, entry, c.keep]);
      }
    });
  }

  it('fails with "error getting relative path" for a label that climbs up', () => {
    expect(() => onlyPath('../not-supported')('anything')).toThrow(
      "error getting relative path: Rel: can't make anything relative to ../not-supported",
    );
  });
});

describe('Go path helpers', () => {
  it.each([
    ['', '.'],
    ['a//b/./c/', 'a/b/c'],
    ['/../a', '/a'],
    ['../../a/..', '../..'],
    ['/', '/'],
  ])('cleans %j to %j', (input, want) => {
    expect(goCleanPath(input)).toBe(want);
  });

  it.each([
    ['a', 'a/b/c', 'b/c'],
    ['a/b', 'a/c', '../c'],
    ['.', '../x', '../x'],
    ['fine', '../fine', '../../fine'],
    ['a', 'a', '.'],
  ])('Rel(%j, %j) = %j', (base, target, want) => {
    expect(goRelPath(base, target)).toBe(want);
  });

  it('cannot relate a rooted path to a relative one', () => {
    expect(() => goRelPath('/a', 'b')).toThrow("Rel: can't make b relative to /a");
  });

  it('quotes like %q', () => {
    expect(goQuote('a"b\\c\n\u0001ü')).toBe('"a\\"b\\\\c\\n\\x01ü"');
  });
});
