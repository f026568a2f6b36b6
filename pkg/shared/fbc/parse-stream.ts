/**
 * Decoding a single FBC stream that is not a directory: an HTTP body (catalogd's JSON-lines
 * `/api/v1/all`), a Buffer or a string. Same decoding rules as files (JSON value stream with
 * YAML fallback, or YAML documents), same streaming memory bound.
 */
import { FbcLoadError } from './errors.ts';
import { type DecodeLimits, decodeLimits, limitMessage } from './limits.ts';
import { MetaStreamParser } from './stream-parser.ts';
import type { StreamDocument } from './stream-window.ts';
import type { MetaEntry } from './walk.ts';

/** Options of {@link parseMetaStream} / {@link parseMetas}. */
interface ParseStreamOptions {
  /** Name used in error messages and `MetaSource.file` (default ''). */
  file?: string;
  signal?: AbortSignal;
  /** Receives errors and lets decoding go on (see `WalkOptions.onError`); else the first is thrown. */
  onError?: (err: FbcLoadError) => void;
  /** Size limits (default DEFAULT_DECODE_LIMITS); `maxCatalogBytes` bounds the whole stream. */
  limits?: Partial<DecodeLimits>;
}

type StreamInput = AsyncIterable<Uint8Array> | Iterable<Uint8Array> | Uint8Array | string;

function newParser(file: string, ready: StreamDocument[], opts: ParseStreamOptions, limits: DecodeLimits): MetaStreamParser {
  return new MetaStreamParser(
    {
      onDocument: (doc) => ready.push(doc),
      onError: (detail, line, located) => {
        const err = new FbcLoadError(detail, { file, line, ...(located === undefined ? {} : { located }) });
        if (opts.onError === undefined) throw err;
        opts.onError(err);
      },
    },
    undefined,
    limits,
  );
}

// Counts the stream's bytes against the catalog limit.
function counter(file: string, limits: DecodeLimits): (chunk: Uint8Array) => void {
  let bytes = 0;
  return (chunk) => {
    bytes += chunk.length;
    if (bytes > limits.maxCatalogBytes) throw new FbcLoadError(limitMessage('catalog', limits.maxCatalogBytes), { file });
  };
}

function entry(doc: StreamDocument, file: string): MetaEntry {
  return { meta: doc.meta, source: { file, line: doc.line } };
}

/**
 * Yields the documents of one stream as they are decoded. Accepts an async or sync iterable
 * of chunks (e.g. a Node Readable or a fetch body), a Buffer or a string.
 */
export async function* parseMetaStream(input: StreamInput, opts: ParseStreamOptions = {}): AsyncGenerator<MetaEntry> {
  const file = opts.file ?? '';
  const ready: StreamDocument[] = [];
  const limits = decodeLimits(opts.limits);
  const parser = newParser(file, ready, opts, limits);
  const count = counter(file, limits);
  const chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array> =
    typeof input === 'string' ? [Buffer.from(input)] : input instanceof Uint8Array ? [input] : input;
  for await (const chunk of chunks) {
    opts.signal?.throwIfAborted();
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    count(bytes);
    parser.push(bytes);
    for (const doc of ready) yield entry(doc, file);
    ready.length = 0;
    // An error ended the stream: the rest is not read.
    if (parser.finished) break;
  }
  parser.end();
  for (const doc of ready) yield entry(doc, file);
}

/** Synchronous {@link parseMetaStream} over in-memory data. */
export function parseMetas(input: Uint8Array | string, opts: Omit<ParseStreamOptions, 'signal'> = {}): MetaEntry[] {
  const file = opts.file ?? '';
  const ready: StreamDocument[] = [];
  const limits = decodeLimits(opts.limits);
  const parser = newParser(file, ready, opts, limits);
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  counter(file, limits)(bytes);
  parser.push(bytes);
  parser.end();
  return ready.map((doc) => entry(doc, file));
}
