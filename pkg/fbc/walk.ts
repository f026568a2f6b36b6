/**
 * Walking a catalog directory like upstream's `WalkMetasFS` with concurrency 1: every file in
 * lexical (byte-wise) walk order, parents before children, except directories, files named
 * `.indexignore` and files their patterns ignore. File extensions do not matter: hidden files
 * and READMEs are parsed as FBC too. Each file is read in chunks and decoded as a stream, so
 * memory stays bounded by the largest single document.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FbcLoadError } from './errors.ts';
import { compareUtf8 } from '../gotext/index.ts';
import { IgnoreMatcher, type IgnorePattern, parseIndexIgnore } from './indexignore.ts';
import { MetaStreamParser, type StreamDocument } from './stream-parser.ts';
import type { Meta, MetaSource } from './types.ts';

/** A document of the catalog and where it came from. */
export interface MetaEntry {
  meta: Meta;
  source: MetaSource;
}

/** Counters a caller may pass to observe a walk (tests use them to bound memory). */
export interface WalkStats {
  files: number;
  documents: number;
  /** Largest decode buffer any single file needed, in bytes. */
  peakBufferBytes: number;
}

/** Options of {@link walkMetas}. */
export interface WalkOptions {
  signal?: AbortSignal;
  /**
   * Receives decode errors and lets the walk go on (the failing document is skipped; a broken
   * JSON stream ends that file). Without it, the first error is thrown.
   */
  onError?: (err: FbcLoadError) => void;
  /** Read size per file system call; default 256 KiB. */
  chunkSize?: number;
  stats?: WalkStats;
}

/** Name of the files holding ignore patterns for their directory. */
export const INDEX_IGNORE = '.indexignore';
const DEFAULT_CHUNK = 256 * 1024;

/**
 * Yields every document of the catalog under `root`, in walk order then document order.
 * Blank/comment-only YAML documents yield the zero Meta (all fields empty; see `isZeroMeta`):
 * catalogd skips them, `loadFS` rejects them as upstream does. Throws {@link FbcLoadError}
 * (naming file and line) on the first undecodable document unless `onError` is given, and
 * plain errors for I/O failures.
 */
export async function* walkMetas(root: string, opts: WalkOptions = {}): AsyncGenerator<MetaEntry> {
  for await (const doc of walkDocuments(root, opts)) yield { meta: doc.meta, source: doc.source };
}

/** A decoded document with its source; `value` is the decoded JSON (undefined for the zero Meta). */
export interface WalkedDocument extends StreamDocument {
  source: MetaSource;
}

/** {@link walkMetas} plus each document's decoded value, for typed loading without re-parsing. */
export async function* walkDocuments(root: string, opts: WalkOptions = {}): AsyncGenerator<WalkedDocument> {
  const { files, patterns } = await listCatalogFiles(root);
  const matcher = new IgnoreMatcher(patterns);
  // One read chunk and one parse buffer serve every file: fresh ones per file would churn
  // hundreds of MB of short-lived buffers through a large catalog.
  const buffers = newReadBuffers(opts.chunkSize);
  for (const file of files) {
    opts.signal?.throwIfAborted();
    if (matcher.ignores(file)) continue;
    if (opts.stats !== undefined) opts.stats.files++;
    yield* readFileDocuments(root, file, opts, buffers);
  }
}

/** Buffers one walk reuses for every file it decodes. */
export interface ReadBuffers {
  chunk: Buffer;
  parse: Buffer | undefined;
}

/** Fresh reuse buffers for a walk (`chunkSize` is the read size per file system call). */
export function newReadBuffers(chunkSize = DEFAULT_CHUNK): ReadBuffers {
  return { chunk: Buffer.allocUnsafe(chunkSize), parse: undefined };
}

// A parse buffer that grew beyond this (a huge document) is not kept for the next file.
const MAX_REUSED_PARSE_BUFFER = 4 << 20;

async function* readFileDocuments(root: string, file: string, opts: WalkOptions, buffers: ReadBuffers): AsyncGenerator<WalkedDocument> {
  // Reads are synchronous: catalog files sit in the page cache after unpacking, and async
  // reads cost an event-loop round trip per call (four per file) for no benefit.
  let fd: number;
  try {
    fd = openSync(join(root, file), 'r');
  } catch (err) {
    throw new FbcLoadError(`open ${file}: ${(err as Error).message}`, { file }, { cause: err });
  }
  try {
    yield* decodeFileDocuments(file, readChunks(fd, buffers.chunk), opts, buffers);
  } finally {
    closeSync(fd);
  }
}

function* readChunks(fd: number, chunk: Buffer): Generator<Buffer> {
  for (;;) {
    const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
    if (bytesRead === 0) return;
    yield chunk.subarray(0, bytesRead);
  }
}

/**
 * Decodes the documents of one catalog file from its content in chunks (a file read or a tar
 * entry's body): the one decoder every walk uses, so a file yields the same documents and
 * errors whichever way its bytes arrive. Chunks may be reused once the next one is requested.
 */
export async function* decodeFileDocuments(
  file: string,
  chunks: Iterable<Buffer> | AsyncIterable<Buffer>,
  opts: WalkOptions,
  buffers: ReadBuffers,
): AsyncGenerator<WalkedDocument> {
  const ready: WalkedDocument[] = [];
  const parser = new MetaStreamParser(
    {
      onDocument: (doc) => ready.push({ ...doc, source: { file, line: doc.line } }),
      onError: (detail, line) => {
        const err = new FbcLoadError(detail, { file, line });
        if (opts.onError === undefined) throw err;
        opts.onError(err);
      },
    },
    buffers.parse,
  );
  try {
    for await (const chunk of chunks) {
      opts.signal?.throwIfAborted();
      parser.push(chunk);
      yield* drain(ready, opts.stats);
    }
    parser.end();
    yield* drain(ready, opts.stats);
    buffers.parse = parser.buffer.length <= MAX_REUSED_PARSE_BUFFER ? parser.buffer : undefined;
  } finally {
    if (opts.stats !== undefined) opts.stats.peakBufferBytes = Math.max(opts.stats.peakBufferBytes, parser.peakBufferBytes);
  }
}

function* drain(ready: WalkedDocument[], stats: WalkStats | undefined): Generator<WalkedDocument> {
  if (stats !== undefined) stats.documents += ready.length;
  for (const doc of ready) yield doc;
  ready.length = 0;
}

/**
 * Lists the files of the catalog ('/'-separated paths relative to root) in `fs.WalkDir` order
 * and collects the `.indexignore` patterns in the same order (later files take precedence).
 */
export async function listCatalogFiles(root: string): Promise<{ files: string[]; patterns: IgnorePattern[] }> {
  const files: string[] = [];
  const patterns: IgnorePattern[] = [];
  const visit = async (dir: string[]): Promise<void> => {
    const entries = await readdir(join(root, ...dir), { withFileTypes: true });
    entries.sort((a, b) => compareUtf8(a.name, b.name));
    for (const e of entries) {
      const rel = [...dir, e.name];
      if (e.isDirectory()) {
        await visit(rel);
        continue;
      }
      if (e.name === INDEX_IGNORE) {
        patterns.push(...parseIndexIgnore(await readFile(join(root, ...rel), 'utf8'), dir));
        continue;
      }
      files.push(rel.join('/'));
    }
  };
  await visit([]);
  return { files, patterns };
}
