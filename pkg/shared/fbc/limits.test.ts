import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_DECODE_LIMITS,
  type DecodeLimits,
  FbcLoadError,
  loadFS,
  parseMetas,
  parseMetaStream,
  walkEntryDocuments,
  walkMetas,
} from './index.ts';
import { type MetaEntry, type WalkStats } from './walk.ts';
import { NeedsUnpackError, type TreeEntry } from './entry-walk.ts';
import { MAX_INDEX_IGNORE_BYTES } from './walk.ts';

const PKG = '{"schema":"olm.package","name":"foo"}\n';

async function walk(root: string, opts: Parameters<typeof walkMetas>[1] = {}): Promise<{ entries: MetaEntry[]; errors: string[] }> {
  const entries: MetaEntry[] = [];
  const errors: string[] = [];
  for await (const e of walkMetas(root, { onError: (err) => errors.push(err.message), ...opts })) entries.push(e);
  return { entries, errors };
}

function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

// `n` nested arrays as the value of `v`.
function deepJson(n: number): string {
  return `{"schema":"x","v":${'['.repeat(n)}${']'.repeat(n)}}\n`;
}

function chunked(text: string, size: number): Buffer[] {
  const b = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
}

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'fbc-limits-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('nesting depth', () => {
  it('decodes and normalises 1,000 levels, in JSON and YAML', () => {
    // Before the limit, normalising ~4,300 levels overflowed the stack ("Maximum call stack size exceeded").
    expect(parseMetas(deepJson(999))[0]?.meta.blob).toBe(`${deepJson(999).trim()}\n`);
    const yaml = `schema: x\nv: ${'['.repeat(999)}${']'.repeat(999)}\n`;
    expect(parseMetas(yaml)[0]?.meta.blob).toBe(`{"schema":"x","v":${'['.repeat(999)}${']'.repeat(999)}}\n`);
  });

  it('refuses deeper documents with a clear error naming file and line, and decodes the other files', async () => {
    await writeFile(join(root, 'a.json'), PKG);
    await writeFile(join(root, 'b.json'), `\n${deepJson(100_000)}`);
    await writeFile(join(root, 'c.yaml'), `schema: x\nv: ${'['.repeat(5000)}${']'.repeat(5000)}\n`);
    await writeFile(join(root, 'd.yaml'), `schema: x\n${Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} 1\n`);
    await writeFile(join(root, 'e.json'), PKG);
    const { entries, errors } = await walk(root);
    expect(errors).toEqual([
      "b.json:2: json: offset 1019: invalid character '[' exceeded max depth",
      'c.yaml:2: error converting YAML to JSON: yaml: line 2: exceeded max depth of 1000',
      'd.yaml:1002: error converting YAML to JSON: yaml: line 1002: exceeded max depth of 1000',
    ]);
    expect(entries.map((e) => e.source.file)).toEqual(['a.json', 'e.json']);
  });

  it('finds the depth error while streaming, whatever the chunking', async () => {
    for (const size of [7, 4096]) {
      const errors: string[] = [];
      for await (const _ of parseMetaStream(chunked(deepJson(5000), size), { file: 'f', onError: (e) => errors.push(e.message) })) {
        // none
      }
      expect(errors).toEqual(["f:1: json: offset 1018: invalid character '[' exceeded max depth"]);
    }
  });
});

describe('size limits', () => {
  it('defaults to 16 MiB per document, 8 MiB per string and 256 MiB per catalog', () => {
    expect(DEFAULT_DECODE_LIMITS).toEqual({ maxDocumentBytes: 16 << 20, maxStringBytes: 8 << 20, maxCatalogBytes: 256 << 20 });
  });

  it('refuses a JSON document over its limit before buffering it whole', async () => {
    const limits = { maxDocumentBytes: 10_000 };
    const big = `{"schema":"x","v":[${Array(5000).fill('"abcdefgh"').join(',')}]}\n`;
    const errors: string[] = [];
    const docs: MetaEntry[] = [];
    const chunks = chunked(`${PKG}${PKG}\n${big}${PKG}`, 1000);
    let fed = 0;
    async function* source(): AsyncGenerator<Buffer> {
      for (const c of chunks) {
        fed += c.length;
        yield c;
      }
    }
    for await (const d of parseMetaStream(source(), { file: 'f.json', limits, onError: (e) => errors.push(e.message) })) docs.push(d);
    expect(errors).toEqual(['f.json:4: document exceeds the limit of 10000 bytes']);
    expect(docs).toHaveLength(2);
    // Decoding stopped right after the limit was crossed (the rest was not needed).
    expect(fed).toBeLessThan(2 * PKG.length + 1 + 10_000 + 2000);
  });

  it('refuses a YAML document over its limit, also one long line', () => {
    const limits = { maxDocumentBytes: 1000 };
    const lines = `schema: a\n---\nschema: x\nv:\n${'  - abcdefgh\n'.repeat(200)}---\nschema: b\n`;
    expect(thrown(() => parseMetas(lines, { file: 'f.yaml', limits })).message).toBe('f.yaml:3: document exceeds the limit of 1000 bytes');
    expect(thrown(() => parseMetas(`schema: x\nv: ${'y'.repeat(5000)}`, { file: 'f.yaml', limits })).message).toBe(
      'f.yaml:1: document exceeds the limit of 1000 bytes',
    );
    expect(thrown(() => parseMetas('y'.repeat(5000), { file: 'f.yaml', limits })).message).toBe('f.yaml:1: document exceeds the limit of 1000 bytes');
  });

  it('keeps the JSON error when the YAML retry of a failed first value crosses the limit', () => {
    // Upstream retries the rest of the file as one YAML document; the JSON error is what it reports.
    const text = `{"schema":"x","name":1}\n${PKG.repeat(100)}`;
    expect(thrown(() => parseMetas(text, { file: 'f.json', limits: { maxDocumentBytes: 500 } })).message).toMatch(
      /^f\.json:1: expected value for key "name" to be a string/,
    );
  });

  it('refuses strings over their limit in JSON (while streaming) and YAML', () => {
    const limits = { maxStringBytes: 100 };
    expect(parseMetas(`{"schema":"x","v":"${'y'.repeat(100)}"}`, { limits })).toHaveLength(1);
    expect(thrown(() => parseMetas(`${PKG}{"schema":"x","v":"${'y'.repeat(101)}"}`, { file: 'f', limits })).message).toBe(
      'f:2: string exceeds the limit of 100 bytes',
    );
    // An escaped quote is part of the string.
    expect(thrown(() => parseMetas(`{"schema":"x","v":"${'\\"'.repeat(51)}"}`, { file: 'f', limits })).message).toBe(
      'f:1: string exceeds the limit of 100 bytes',
    );
    const errors: string[] = [];
    const docs = parseMetas(`schema: a\n---\nschema: x\nv: |\n${'  yyyyyyyyy\n'.repeat(20)}---\nschema: b\n`, {
      file: 'f.yaml',
      limits,
      onError: (e) => errors.push(e.message),
    });
    expect(errors).toEqual(['f.yaml:3: string exceeds the limit of 100 bytes']);
    expect(docs.map((d) => d.meta.schema)).toEqual(['a', 'b']);
  });

  it('refuses a JSON string over its limit before its end arrives', async () => {
    let fed = 0;
    async function* source(): AsyncGenerator<Buffer> {
      yield Buffer.from('{"schema":"x","v":"');
      for (let i = 0; i < 1000; i++) {
        fed += 1000;
        yield Buffer.alloc(1000, 0x61);
      }
    }
    const errors: string[] = [];
    for await (const _ of parseMetaStream(source(), { file: 'f', limits: { maxStringBytes: 5000 }, onError: (e) => errors.push(e.message) })) {
      // none
    }
    expect(errors).toEqual(['f:1: string exceeds the limit of 5000 bytes']);
    // Refused at the chunk that crossed the limit, not at the string's end.
    expect(fed).toBe(6000);
  });

  it('bounds a whole stream', () => {
    expect(parseMetas(PKG.repeat(10), { limits: { maxCatalogBytes: PKG.length * 10 } })).toHaveLength(10);
    const err = thrown(() => parseMetas(PKG.repeat(10), { file: 'all', limits: { maxCatalogBytes: PKG.length * 10 - 1 }, onError: () => undefined }));
    expect(err).toBeInstanceOf(FbcLoadError);
    expect(err.message).toBe(`all: catalog exceeds the limit of ${PKG.length * 10 - 1} bytes`);
  });
});

describe('catalog size limit', () => {
  async function tree(files: Record<string, string>): Promise<void> {
    for (const [rel, body] of Object.entries(files)) {
      await mkdir(dirname(join(root, rel)), { recursive: true });
      await writeFile(join(root, rel), body);
    }
  }

  it('counts the files a walk decodes (not ignored ones) and stops at the file that crosses it, even when reporting every error', async () => {
    await tree({ '.indexignore': 'big.json\n', 'a.json': PKG, 'b.json': PKG, 'big.json': PKG.repeat(100), 'c.json': PKG });
    const limits = { maxCatalogBytes: 2 * PKG.length };
    await expect(loadFS(root, { limits })).rejects.toThrow(`c.json: catalog exceeds the limit of ${2 * PKG.length} bytes`);
    await expect(walk(root, { limits })).rejects.toThrow(FbcLoadError);
    expect((await walk(root, { limits: { maxCatalogBytes: 3 * PKG.length } })).entries).toHaveLength(3);
  });

  it('applies to catalogs read from a stream of entries', async () => {
    const entries = (files: Record<string, string>): AsyncGenerator<TreeEntry> =>
      (async function* () {
        for (const [path, body] of Object.entries(files)) yield { path, kind: 'file', body: [Buffer.from(body)] as unknown as AsyncIterable<Buffer> };
      })();
    const collect = async (files: Record<string, string>, limits: Partial<DecodeLimits>): Promise<number> => {
      let n = 0;
      for await (const _ of walkEntryDocuments(entries(files), { limits })) n++;
      return n;
    };
    expect(await collect({ 'a.json': PKG, 'b.json': PKG }, { maxCatalogBytes: 2 * PKG.length })).toBe(2);
    await expect(collect({ 'a.json': PKG, 'b.json': PKG }, { maxCatalogBytes: 2 * PKG.length - 1 })).rejects.toThrow(
      `b.json: catalog exceeds the limit of ${2 * PKG.length - 1} bytes`,
    );
    // An oversized .indexignore is left to the directory walk, which refuses it with its path.
    await expect(collect({ '.indexignore': `${'x'.repeat(MAX_INDEX_IGNORE_BYTES)}\n`, 'a.json': PKG }, {})).rejects.toThrow(NeedsUnpackError);
  });

  it('keeps memory to the document limit: a walk never buffers much more than it', async () => {
    await tree({ 'a.json': `${PKG}{"schema":"x","v":"${'y'.repeat(3 << 20)}"}\n${PKG}` });
    const stats: WalkStats = { files: 0, documents: 0, peakBufferBytes: 0 };
    const { entries, errors } = await walk(root, { stats, chunkSize: 64 << 10, limits: { maxDocumentBytes: 1 << 20 } });
    expect(errors).toEqual(['a.json:2: document exceeds the limit of 1048576 bytes']);
    expect(entries).toHaveLength(1);
    expect(stats.peakBufferBytes).toBeLessThanOrEqual(2 * ((1 << 20) + (64 << 10) + PKG.length));
  });
});

describe('reporting every error (onError returns)', () => {
  const TYPE_ERROR = '{"schema":"olm.package","name":12}\n';
  const ARRAY = '[1,2]\n';

  it('reports a type error after two values and decodes the rest of the file, where fail-fast stops', () => {
    const text = `${PKG}${PKG}${TYPE_ERROR}${PKG}${ARRAY}${PKG}`;
    const errors: string[] = [];
    const docs = parseMetas(text, { file: 'f.json', onError: (e) => errors.push(e.message) });
    expect(docs.map((d) => d.source.line)).toEqual([1, 2, 4, 6]);
    expect(errors[0]).toBe('f.json:3: expected value for key "name" to be a string, got %!t(float64=12): 12');
    expect(errors[1]).toMatch(/^f\.json:5: json: cannot unmarshal array into Go value of type map\[string\]interface \{\}/);
    expect(thrown(() => parseMetas(text, { file: 'f.json' })).message).toBe(errors[0]);
  });

  it('goes on after a first value whose YAML retry fails too, reporting the JSON error as upstream does', () => {
    const text = `${TYPE_ERROR}${PKG}${TYPE_ERROR}${PKG}`;
    const errors: string[] = [];
    const docs = parseMetas(text, { file: 'f.json', onError: (e) => errors.push(e.message) });
    expect(errors).toEqual([
      'f.json:1: expected value for key "name" to be a string, got %!t(float64=12): 12',
      'f.json:3: expected value for key "name" to be a string, got %!t(float64=12): 12',
    ]);
    expect(docs.map((d) => d.source.line)).toEqual([2, 4]);
  });

  it('still stops at a syntax error, whose end is unknown', () => {
    const errors: string[] = [];
    const docs = parseMetas(`${PKG}${PKG}{"a":}\n${PKG}`, { file: 'f.json', onError: (e) => errors.push(e.message) });
    expect(errors).toEqual(["f.json:3: invalid character '}' looking for beginning of value"]);
    expect(docs).toHaveLength(2);
  });
});
