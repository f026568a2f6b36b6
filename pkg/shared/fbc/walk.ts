/**
 * Walking a catalog directory like upstream's `WalkMetasFS` with concurrency 1: every file in
 * byte-wise walk order except directories, `.indexignore` files and what their patterns ignore
 * (hidden files and READMEs are parsed too), each decoded as a stream within the decode limits.
 * Only regular files are read (pkg/shared/localfs): anything else, or a link leading outside the
 * root, fails the walk with its path when reached (ignored ones are skipped, as upstream); a link
 * to a directory is not descended, and reading it fails as upstream's read does.
 */
import { closeSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { LocalFileError, type LocalTree, listDir, openRegularFileSync, openTree, readFailure, readRegularFile } from '../localfs/index.ts';
import { FbcLoadError } from './errors.ts';
import { compareUtf8 } from '../../gocompat/gotext/index.ts';
import { IgnoreMatcher, type IgnorePattern, parseIndexIgnore } from './indexignore.ts';
import { type DecodeLimits, decodeLimits, limitMessage } from './limits.ts';
import { MetaStreamParser } from './stream-parser.ts';
import type { StreamDocument } from './stream-window.ts';
import type { Meta, MetaSource } from './types.ts';
import { errorMessage } from '../errors/index.ts';

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
  /**
   * Size limits (default DEFAULT_DECODE_LIMITS). A document or string over its limit is a
   * decode error of its file; the catalog over its limit ends the walk with an FbcLoadError
   * naming the file where it was crossed, even with `onError`.
   */
  limits?: Partial<DecodeLimits>;
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
  const { files, patterns, refused } = await listCatalogFiles(root);
  const matcher = new IgnoreMatcher(patterns);
  const state = newWalkState(opts);
  const chunk = Buffer.allocUnsafe(opts.chunkSize ?? DEFAULT_CHUNK);
  for (const file of files) {
    opts.signal?.throwIfAborted();
    if (matcher.ignores(file)) continue;
    const refusal = refused.get(file);
    if (refusal !== undefined) throw new FbcLoadError(refusal, { file });
    if (opts.stats !== undefined) opts.stats.files++;
    yield* readFileDocuments(root, file, opts, state, chunk);
  }
}

/**
 * What one walk carries from file to file: one parse buffer serves every file (fresh ones
 * would churn hundreds of MB of short-lived buffers through a large catalog), and the bytes
 * decoded so far count against the catalog limit.
 */
interface WalkState {
  parse: Buffer | undefined;
  limits: DecodeLimits;
  /** Bytes of the files decoded so far. */
  bytes: number;
}

/** A fresh state for a walk (or a single stream) within `opts.limits`. */
export function newWalkState(opts: Pick<WalkOptions, 'limits'> = {}): WalkState {
  return { parse: undefined, limits: decodeLimits(opts.limits), bytes: 0 };
}

// A parse buffer that grew beyond this (a huge document) is not kept for the next file.
const MAX_REUSED_PARSE_BUFFER = 4 << 20;

async function* readFileDocuments(root: string, file: string, opts: WalkOptions, state: WalkState, chunk: Buffer): AsyncGenerator<WalkedDocument> {
  // Reads are synchronous: catalog files sit in the page cache after unpacking, and async
  // reads cost an event-loop round trip per call (four per file) for no benefit.
  const path = join(root, file);
  let fd: number;
  try {
    fd = openRegularFileSync(path);
  } catch (err) {
    throw new FbcLoadError(errorMessage(err), { file }, { cause: err });
  }
  try {
    yield* decodeFileDocuments(file, readChunks(fd, path, file, chunk), opts, state);
  } finally {
    closeSync(fd);
  }
}

function* readChunks(fd: number, path: string, file: string, chunk: Buffer): Generator<Buffer> {
  for (;;) {
    let bytesRead: number;
    try {
      bytesRead = readSync(fd, chunk, 0, chunk.length, null);
    } catch (err) {
      throw new FbcLoadError(readFailure(path, err).message, { file }, { cause: err });
    }
    if (bytesRead === 0) return;
    yield chunk.subarray(0, bytesRead);
  }
}

/**
 * Decodes the documents of one catalog file from its content in chunks (a file read or a tar
 * entry's body): the one decoder every walk uses, so a file yields the same documents and
 * errors whichever way its bytes arrive. Chunks may be reused once the next one is requested.
 *
 * @throws FbcLoadError `catalog exceeds the limit of N bytes` (at the file's first line) as soon
 *   as the walk's bytes cross `state.limits.maxCatalogBytes`; decode errors unless `opts.onError`.
 */
export async function* decodeFileDocuments(
  file: string,
  chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  opts: Pick<WalkOptions, 'signal' | 'onError' | 'stats'>,
  state: WalkState,
): AsyncGenerator<WalkedDocument> {
  const ready: WalkedDocument[] = [];
  const parser = fileParser(file, ready, opts, state);
  try {
    for await (const chunk of chunks) {
      opts.signal?.throwIfAborted();
      countCatalogBytes(file, state, chunk.length);
      parser.push(chunk);
      yield* drain(ready, opts.stats);
      // An error ended the file: the rest is not read.
      if (parser.finished) break;
    }
    parser.end();
    yield* drain(ready, opts.stats);
    state.parse = parser.buffer.length <= MAX_REUSED_PARSE_BUFFER ? parser.buffer : undefined;
  } finally {
    if (opts.stats !== undefined) opts.stats.peakBufferBytes = Math.max(opts.stats.peakBufferBytes, parser.peakBufferBytes);
  }
}

/** The decoder of one file, pushing its documents onto `ready`; errors go to `opts.onError`, else are thrown. */
export function fileParser(file: string, ready: WalkedDocument[], opts: Pick<WalkOptions, 'onError'>, state: WalkState): MetaStreamParser {
  return new MetaStreamParser(
    {
      onDocument: (doc) => ready.push({ ...doc, source: { file, line: doc.line } }),
      onError: (detail, line, located) => {
        const err = new FbcLoadError(detail, { file, line, ...(located === undefined ? {} : { located }) });
        if (opts.onError === undefined) throw err;
        opts.onError(err);
      },
    },
    state.parse,
    state.limits,
  );
}

/** Counts `n` more bytes of `file` against the catalog limit. */
export function countCatalogBytes(file: string, state: WalkState, n: number): void {
  state.bytes += n;
  if (state.bytes > state.limits.maxCatalogBytes) throw new FbcLoadError(limitMessage('catalog', state.limits.maxCatalogBytes), { file });
}

function* drain(ready: WalkedDocument[], stats: WalkStats | undefined): Generator<WalkedDocument> {
  if (stats !== undefined) stats.documents += ready.length;
  for (const doc of ready) yield doc;
  ready.length = 0;
}

/** The files of a catalog directory, its ignore patterns, and the files that must not be read. */
interface CatalogFiles {
  files: string[];
  patterns: IgnorePattern[];
  /** File -> the refusal to report should the walk reach it (not a regular file, or leaving the root). */
  refused: Map<string, string>;
}

/** Largest `.indexignore` read: no ignore file legitimately comes close to this. */
export const MAX_INDEX_IGNORE_BYTES = 1 << 20;

/**
 * Lists the files of the catalog ('/'-separated paths relative to root) in `fs.WalkDir` order
 * and collects the `.indexignore` patterns in the same order (later files take precedence).
 *
 * @throws LocalFileError naming the path when a directory or an `.indexignore` cannot or must
 *   not be read.
 */
export async function listCatalogFiles(root: string): Promise<CatalogFiles> {
  const out: CatalogFiles = { files: [], patterns: [], refused: new Map() };
  await visitCatalogDir(await openTree(root), [], out);
  return out;
}

async function visitCatalogDir(tree: LocalTree, dir: string[], out: CatalogFiles): Promise<void> {
  const entries = await listDir(tree, dir);
  entries.sort((a, b) => compareUtf8(a.name, b.name));
  for (const e of entries) {
    const rel = [...dir, e.name];
    if (e.kind === 'dir' && !e.link) {
      await visitCatalogDir(tree, rel, out);
      continue;
    }
    if (e.name === INDEX_IGNORE) {
      if (e.kind === 'refused') throw new LocalFileError(e.path, e.refusal);
      // A link to a directory is read too, and fails with the path as upstream's read does.
      const text = (await readRegularFile(e.path, { maxBytes: MAX_INDEX_IGNORE_BYTES })).toString('utf8');
      out.patterns.push(...parseIndexIgnore(text, dir));
      continue;
    }
    const file = rel.join('/');
    out.files.push(file);
    if (e.kind === 'refused') out.refused.set(file, e.refusal);
    else if (e.kind === 'dir') out.refused.set(file, `read ${JSON.stringify(e.path)}: is a directory`);
  }
}
