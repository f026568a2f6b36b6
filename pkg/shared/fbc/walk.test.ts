import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FbcLoadError, loadFS, validate, walkMetas } from './index.ts';
import { isZeroMeta } from './meta.ts';
import { type MetaEntry, type WalkStats } from './walk.ts';

const TESTDATA = join(dirname(fileURLToPath(import.meta.url)), 'testdata');

async function collect(root: string, opts: Parameters<typeof walkMetas>[1] = {}): Promise<MetaEntry[]> {
  const out: MetaEntry[] = [];
  for await (const e of walkMetas(root, opts)) out.push(e);
  return out;
}

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, body] of Object.entries(files)) {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    await writeFile(join(root, rel), body);
  }
}

describe('walking a catalog directory', () => {
  it('loads and validates the hand-written valid fixture', async () => {
    const cfg = await loadFS(join(TESTDATA, 'valid'));
    expect(cfg.packages.map((p) => p.name)).toEqual(['bar', 'foo']);
    expect(cfg.channels.map((c) => `${c.package}/${c.name}`)).toEqual(['bar/alpha', 'foo/stable', 'foo/candidate']);
    expect(cfg.bundles).toHaveLength(7);
    expect(cfg.deprecations).toHaveLength(2);
    expect(cfg.others.map((m) => m.schema)).toEqual(['example.com.custom']);
    expect(validate(cfg)).toEqual([]);
  });

  it('yields documents in walk order with their source', async () => {
    const entries = await collect(join(TESTDATA, 'valid'));
    expect(entries[0]?.source).toEqual({ file: 'bar/catalog.yaml', line: 2 });
    expect(entries.at(-1)?.source).toEqual({ file: 'foo/catalog.json', line: 25 });
    expect(entries.map((e) => e.source.file).filter((f, i, a) => a.indexOf(f) === i)).toEqual(['bar/catalog.yaml', 'foo/catalog.json']);
  });

  describe('in a scratch directory', () => {
    let root: string;
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'fbc-walk-'));
    });
    afterAll(async () => {
      await rm(root, { recursive: true, force: true });
    });

    it('parses every non-ignored file whatever its name, and yields blank YAML documents', async () => {
      const dir = join(root, 'names');
      await writeTree(dir, { '.hidden': '{"schema":"a"}', 'README.md': '# title only\n', 'x/data.txt': 'schema: b\n' });
      const entries = await collect(dir);
      expect(entries.map((e) => [e.source.file, e.meta.schema, isZeroMeta(e.meta)])).toEqual([
        ['.hidden', 'a', false],
        ['README.md', '', true],
        ['x/data.txt', 'b', false],
      ]);
      await expect(loadFS(dir)).rejects.toThrow(`README.md:1: object '' is missing root schema field`);
    });

    it('fails fast naming the file and line, or reports every error through onError', async () => {
      const dir = join(root, 'errors');
      await writeTree(dir, {
        'a.json': '{"schema":"olm.package","name":"a"}\n{"schema":"olm.package","name":"b"}\n{"schema":',
        'b.yaml': 'schema: x\n---\nschema: [1\n---\n- 1\n---\nschema: z\n',
      });
      const first = await collect(dir).catch((err: unknown) => err);
      expect(first).toBeInstanceOf(FbcLoadError);
      expect((first as FbcLoadError).message).toBe('a.json:3: unexpected EOF');
      const errors: FbcLoadError[] = [];
      const entries = await collect(dir, { onError: (e) => errors.push(e) });
      expect(errors.map((e) => `${e.file}:${e.line}`)).toEqual(['a.json:3', 'b.yaml:3', 'b.yaml:5']);
      expect(entries.map((e) => e.meta.schema)).toEqual(['olm.package', 'olm.package', 'x', 'z']);
    });

    it('stops when the signal is aborted', async () => {
      const dir = join(root, 'abort');
      await writeTree(dir, { 'a.json': '{"schema":"a"}', 'b.json': '{"schema":"b"}' });
      const ctrl = new AbortController();
      const seen: string[] = [];
      await expect(
        (async () => {
          for await (const e of walkMetas(dir, { signal: ctrl.signal })) {
            seen.push(e.meta.schema);
            ctrl.abort();
          }
        })(),
      ).rejects.toThrow();
      expect(seen).toEqual(['a']);
    });

    it('streams a large file with a bounded buffer', async () => {
      const dir = join(root, 'large');
      await mkdir(dir, { recursive: true });
      const count = 20_000;
      const filler = 'x'.repeat(500);
      const out = createWriteStream(join(dir, 'catalog.json'));
      for (let i = 0; i < count; i++) {
        out.write(`{"schema":"olm.bundle","name":"b${i}","package":"p","image":"quay.io/p:${i}","note":"${filler}"}\n`);
      }
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
      const fileSize = count * 580;
      const stats: WalkStats = { files: 0, documents: 0, peakBufferBytes: 0 };
      let last = '';
      for await (const e of walkMetas(dir, { stats, chunkSize: 64 * 1024 })) last = e.meta.name;
      expect(last).toBe(`b${count - 1}`);
      expect(stats.documents).toBe(count);
      // ~11 MB went through a decode buffer that never grew beyond a few chunks.
      expect(fileSize).toBeGreaterThan(10_000_000);
      expect(stats.peakBufferBytes).toBeLessThanOrEqual(256 * 1024);
    });

    it('reads links to files inside the root, skips what .indexignore ignores, and refuses the rest with its path when reached', async () => {
      const dir = join(root, 'links');
      await writeTree(dir, { 'pkg/a.json': '{"schema":"olm.package","name":"a"}', '.indexignore': 'ignored-fifo\n', 'sub/x.json': '{"schema":"x"}' });
      await symlink('pkg/a.json', join(dir, 'b-link.json'));
      execFileSync('mkfifo', [join(dir, 'ignored-fifo')]);
      const entries = await collect(dir);
      expect(entries.map((e) => `${e.source.file}:${e.meta.schema}`)).toEqual(['b-link.json:olm.package', 'pkg/a.json:olm.package', 'sub/x.json:x']);

      execFileSync('mkfifo', [join(dir, 'pkg', 'z-fifo')]);
      const errors: FbcLoadError[] = [];
      const fifo = await collect(dir, { onError: (e) => errors.push(e) }).catch((err: unknown) => err);
      expect((fifo as Error).message).toBe(
        `pkg/z-fifo: refusing ${JSON.stringify(join(dir, 'pkg', 'z-fifo'))}: a FIFO, not a regular file or directory`,
      );
      expect(errors).toEqual([]);
      await rm(join(dir, 'pkg', 'z-fifo'));

      // Upstream's fs.WalkDir does not descend a link to a directory; reading it fails, here with the path.
      await symlink('sub', join(dir, 'sub-link'));
      await expect(collect(dir)).rejects.toThrow(`sub-link: read ${JSON.stringify(join(dir, 'sub-link'))}: is a directory`);
    });
  });
});
