import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareWalkOrder } from '../../gocompat/gotext/index.ts';
import { NeedsUnpackError, type TreeEntry, walkEntryDocuments } from './entry-walk.ts';
import { listCatalogFiles, walkDocuments } from './walk.ts';

const TESTDATA = join(dirname(fileURLToPath(import.meta.url)), 'testdata');

type Spec = [path: string, content: string | 'dir' | { other: string }];

/** Entries as a tar would carry them; bodies in chunks of 7 bytes to cross document boundaries. */
async function* entries(specs: readonly Spec[]): AsyncGenerator<TreeEntry> {
  for (const [path, content] of specs) {
    if (content === 'dir') yield { path, kind: 'dir', body: chunks(Buffer.alloc(0)) };
    else if (typeof content === 'object') yield { path, kind: 'other', what: content.other, body: chunks(Buffer.alloc(0)) };
    else yield { path, kind: 'file', body: chunks(Buffer.from(content)) };
  }
}

async function* chunks(data: Buffer): AsyncGenerator<Buffer> {
  for (let i = 0; i < data.length; i += 7) yield data.subarray(i, i + 7);
}

/** What a walk yields (documents as JSON with their source), or its error. */
async function outcome(docs: AsyncIterable<{ meta: unknown; source: unknown }>): Promise<{ docs: string[]; error?: string; needsUnpack?: boolean }> {
  const out: string[] = [];
  try {
    for await (const d of docs) out.push(JSON.stringify([d.meta, d.source]));
    return { docs: out };
  } catch (err) {
    return { docs: out, error: (err as Error).message, needsUnpack: err instanceof NeedsUnpackError };
  }
}

/** A directory's entries in walk order, directories included, as an image build writes them. */
async function specsOf(root: string, rel = ''): Promise<Spec[]> {
  const out: Spec[] = [];
  for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
    const path = rel === '' ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) out.push([path, 'dir'], ...(await specsOf(root, path)));
    else out.push([path, await readFile(join(root, path), 'utf8')]);
  }
  return out.sort((a, b) => compareWalkOrder(a[0], b[0]));
}

async function writeTree(root: string, specs: readonly Spec[]): Promise<void> {
  for (const [path, content] of specs) {
    if (typeof content !== 'string') continue;
    if (content === 'dir') await mkdir(join(root, path), { recursive: true });
    else {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), content);
    }
  }
}

const PKG = (name: string): string => `{"schema":"olm.package","name":"${name}"}\n`;

describe('walkEntryDocuments', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'fbc-entry-walk-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it.each(['valid', 'invalid-decode', 'invalid-model'])('yields what the directory walk yields for testdata/%s, errors included', async (name) => {
    const root = join(TESTDATA, name);
    const streamed = await outcome(walkEntryDocuments(entries(await specsOf(root))));
    const walked = await outcome(walkDocuments(root));
    expect(streamed).toEqual({ ...walked, ...(walked.error !== undefined ? { needsUnpack: false } : {}) });
    expect(name === 'invalid-decode' ? walked.error : walked.docs.length).toBeTruthy();
  });

  it('applies .indexignore patterns that arrive before the files they ignore', async () => {
    const specs: Spec[] = [
      ['.indexignore', '*.md\n/skip\n'],
      ['README.md', 'not a catalog'],
      ['a', 'dir'],
      ['a/catalog.json', PKG('a')],
      ['skip/x.json', '{"broken'],
    ];
    const root = join(scratch, 'ignore-first');
    await writeTree(root, specs);
    const streamed = await outcome(walkEntryDocuments(entries(specs)));
    expect(streamed).toEqual(await outcome(walkDocuments(root)));
    expect(streamed.docs).toHaveLength(1);
  });

  it.each<[string, Spec[], RegExp]>([
    [
      'files out of walk order',
      [
        ['b.json', PKG('b')],
        ['a.json', PKG('a')],
      ],
      /a\.json comes after b\.json/,
    ],
    [
      '`a-b` before `a/x` (a plain string sort)',
      [
        ['a-b.json', PKG('b')],
        ['a/x.json', PKG('a')],
      ],
      /a\/x\.json comes after a-b\.json/,
    ],
    [
      'the same path twice (a later layer replaces it)',
      [
        ['a.json', PKG('a')],
        ['a.json', PKG('b')],
      ],
      /comes after a\.json/,
    ],
    ['a symlink', [['a.json', { other: 'a symlink' }]], /a\.json is a symlink/],
    [
      'a whiteout',
      [
        ['a.json', PKG('a')],
        ['.wh.a.json', { other: 'a whiteout' }],
      ],
      /is a whiteout/,
    ],
    [
      'a file under a file',
      [
        ['a', PKG('a')],
        ['a/b.json', PKG('b')],
      ],
      /a\/b\.json lies under the file a/,
    ],
    [
      'a directory replacing a file',
      [
        ['a', PKG('a')],
        ['a', 'dir'],
      ],
      /directory a replaces a file/,
    ],
    [
      'a file replacing a directory',
      [
        ['a', 'dir'],
        ['a', PKG('a')],
      ],
      /file a replaces a directory/,
    ],
    [
      'an .indexignore ignoring a file already read',
      [
        ['-a.json', PKG('a')],
        ['.indexignore', '-a.json\n'],
      ],
      /decides differently about -a\.json/,
    ],
    [
      'an .indexignore un-ignoring a file already passed',
      [
        ['.indexignore', '*.json\n'],
        ['d/-a.json', PKG('a')],
        ['d/.indexignore', '!-a.json\n'],
      ],
      /decides differently about d\/-a\.json/,
    ],
  ])('refuses %s', async (_, specs, message) => {
    const streamed = await outcome(walkEntryDocuments(entries(specs)));
    expect(streamed.needsUnpack).toBe(true);
    expect(streamed.error).toMatch(message);
  });

  it('reports a decoding error only after checking the rest of the stream', async () => {
    const broken = '{"schema":"olm.package","name":"a"}\n{"broken\n';
    // The walk of the unpacked tree would ignore the broken file: the stream must say so.
    const undone = await outcome(
      walkEntryDocuments(
        entries([
          ['-a.json', broken],
          ['.indexignore', '-a.json\n'],
          ['b.json', PKG('b')],
        ]),
      ),
    );
    expect(undone.needsUnpack).toBe(true);
    const out = await outcome(
      walkEntryDocuments(
        entries([
          ['a.json', broken],
          ['b.json', PKG('b')],
          ['c.json', '{"also broken'],
        ]),
      ),
    );
    expect(out.needsUnpack).toBe(false);
    expect(out.error).toMatch(/^a\.json:2: /);
    const late = await outcome(
      walkEntryDocuments(
        entries([
          ['b.json', broken],
          ['a.json', PKG('a')],
        ]),
      ),
    );
    expect(late.needsUnpack).toBe(true);
  });

  it('matches the directory walk on random trees written in walk order', async () => {
    const name = fc.constantFrom('a', 'a-b', 'a.b', 'b', '-x', '.hidden', 'z0', 'é', '.indexignore');
    const path = fc.array(name, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(path, { minLength: 1, maxLength: 8 }),
        fc.array(fc.constantFrom('a', '*.json', '!b', '/z0', 'a-b/'), { maxLength: 3 }),
        async (paths, ignore) => {
          // Paths that are also parents of other paths become directories.
          const dirs = new Set(
            paths.flatMap((p) =>
              p
                .split('/')
                .slice(0, -1)
                .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
            ),
          );
          const files = paths.filter((p) => !dirs.has(p));
          const specs: Spec[] = files.map((p, i) => [p, p.endsWith('.indexignore') ? ignore.join('\n') : PKG(`p${i}`)]);
          specs.sort((a, b) => compareWalkOrder(a[0], b[0]));
          const root = join(scratch, `random-${n++}`);
          await writeTree(root, specs);
          const walked = await outcome(walkDocuments(root));
          const streamed = await outcome(walkEntryDocuments(entries(specs)));
          if (streamed.needsUnpack === true) {
            // Allowed only for a pattern arriving after files it decides about.
            expect(streamed.error).toMatch(/decides differently/);
            expect(specs.some(([p], i) => p.endsWith('.indexignore') && i > 0)).toBe(true);
          } else {
            expect(streamed).toEqual({ ...walked, ...(walked.error !== undefined ? { needsUnpack: false } : {}) });
          }
          expect((await listCatalogFiles(root)).files).toEqual(specs.map(([p]) => p).filter((p) => !p.endsWith('.indexignore')));
        },
      ),
      { numRuns: 60 },
    );
  });
});
