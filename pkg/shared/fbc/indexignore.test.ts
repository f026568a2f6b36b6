import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goFilepathMatch } from './glob.ts';
import { IgnoreMatcher, parseIndexIgnore } from './indexignore.ts';
import { listCatalogFiles } from './walk.ts';

describe('goFilepathMatch (Go filepath.Match)', () => {
  const cases: [string, string, boolean][] = [
    ['*.json', 'catalog.json', true],
    ['*.json', 'catalog.yaml', false],
    ['*', 'a/b', false],
    ['a?c', 'abc', true],
    ['a?c', 'a/c', false],
    ['[abc].json', 'b.json', true],
    ['[^abc].json', 'b.json', false],
    ['[a-c]x', 'bx', true],
    ['[a-c]x', 'dx', false],
    ['\\*.json', '*.json', true],
    ['\\*.json', 'x.json', false],
    ['a*b*c', 'axxbyyc', true],
    ['a*', 'a', true],
    ['[', '[', false], // malformed: never matches
    ['a[', 'a', false],
    ['[]a]', ']', false],
    ['ä?', 'äö', true],
  ];
  it.each(cases)('%s vs %s -> %s', (pattern, name, want) => {
    expect(goFilepathMatch(pattern, name)).toBe(want);
  });
});

describe('.indexignore patterns (go-git v5 semantics)', () => {
  // [pattern lines, domain, path, ignored?]
  const cases: [string, string[], string, boolean][] = [
    ['README.md', [], 'README.md', true],
    ['README.md', [], 'pkg/README.md', true],
    ['README.md', [], 'README.mdx', false],
    ['*.md', [], 'a/b/x.md', true],
    ['docs/', [], 'docs/x.json', true],
    ['docs/', [], 'docs', false], // dir-only never matches the file itself
    ['/foo', [], 'foo', true],
    ['/foo', [], 'foo/x.json', true], // a consumed glob matches longer paths
    ['/foo', [], 'a/foo', false],
    ['a/b', [], 'a/b/c.json', true],
    ['a/b', [], 'x/a/b', false],
    ['a/b/', [], 'a/b', false],
    ['a/b/', [], 'a/b/c', true],
    ['**/foo', [], 'foo', true],
    ['**/foo', [], 'x/y/foo', true],
    ['**/foo', [], 'x/foo/z.json', true],
    ['**/foo', [], 'x/bar', false],
    ['foo/**', [], 'foo/x', true],
    ['foo/**', [], 'foo', true], // upstream quirk: trailing ** does not require a child
    ['a/**/b', [], 'a/b', true],
    ['a/**/b', [], 'a/x/y/b', true],
    ['a/**/b', [], 'a/x', false],
    ['a**b/c', [], 'ab/c', false], // '**' inside a component never matches
    ['*.json\n!keep.json', [], 'keep.json', false],
    ['*.json\n!keep.json', [], 'drop.json', true],
    ['!keep.json\n*.json', [], 'keep.json', true], // last matching pattern wins
    ['sub/\n!sub/keep.json', [], 'sub/keep.json', false], // re-include below an ignored dir
    ['sub/\n!sub/keep.json', [], 'sub/other.json', true],
    ['*.yaml', ['pkg'], 'pkg/x.yaml', true],
    ['*.yaml', ['pkg'], 'other/x.yaml', false],
    ['*.yaml', ['pkg'], 'pkg', false],
    ['# a comment\n\n   x.json   ', [], 'x.json', true],
    ['#x.json', [], '#x.json', false],
    ['\\#x.json', [], '#x.json', true], // no special escape: `\#` is filepath.Match's escape
    ['?.json', [], 'a.json', true],
  ];
  it.each(cases)('%j in %j: %s ignored=%s', (content, domain, path, want) => {
    const m = new IgnoreMatcher(parseIndexIgnore(content, domain));
    expect(m.ignores(path)).toBe(want);
  });
});

describe('listCatalogFiles', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'fbc-ignore-'));
    const files: Record<string, string> = {
      '.indexignore': '*.yaml\n!pkg/keep.yaml\n',
      'pkg/.indexignore': '!*.yaml\nsecret/\n',
      'pkg/a.yaml': '',
      'pkg/keep.yaml': '',
      'pkg/secret/x.json': '',
      'B.json': '',
      'a.json': '',
      '.hidden.json': '',
      'z/.indexignore/inner.json': '', // a directory named .indexignore is walked normally
    };
    for (const [rel, body] of Object.entries(files)) {
      await mkdir(join(root, rel, '..'), { recursive: true });
      await writeFile(join(root, rel), body);
    }
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('walks in byte-wise lexical order, parents first, skipping .indexignore files', async () => {
    const { files } = await listCatalogFiles(root);
    expect(files).toEqual(['.hidden.json', 'B.json', 'a.json', 'pkg/a.yaml', 'pkg/keep.yaml', 'pkg/secret/x.json', 'z/.indexignore/inner.json']);
  });

  it('orders patterns by walk order so deeper files win', async () => {
    const { files, patterns } = await listCatalogFiles(root);
    const m = new IgnoreMatcher(patterns);
    // pkg/.indexignore (later) re-includes what the root ignores; its secret/ rule applies.
    expect(files.filter((f) => !m.ignores(f))).toEqual([
      '.hidden.json',
      'B.json',
      'a.json',
      'pkg/a.yaml',
      'pkg/keep.yaml',
      'z/.indexignore/inner.json',
    ]);
  });
});
