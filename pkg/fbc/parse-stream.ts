/**
 * Decoding a single FBC stream that is not a directory: an HTTP body (catalogd's JSON-lines
 * `/api/v1/all`), a Buffer or a string. Same decoding rules as files (JSON value stream with
 * YAML fallback, or YAML documents), same streaming memory bound.
 */
import { FbcLoadError } from './errors.ts';
import { MetaStreamParser, type StreamDocument } from './stream-parser.ts';
import type { MetaEntry } from './walk.ts';

/** Options of {@link parseMetaStream} / {@link parseMetas}. */
export interface ParseStreamOptions {
  /** Name used in error messages and `MetaSource.file` (default ''). */
  file?: string;
  signal?: AbortSignal;
  /** Receives errors and lets decoding go on (see `WalkOptions.onError`); else the first is thrown. */
  onError?: (err: FbcLoadError) => void;
}

type StreamInput = AsyncIterable<Uint8Array> | Iterable<Uint8Array> | Uint8Array | string;

function newParser(file: string, ready: StreamDocument[], opts: ParseStreamOptions): MetaStreamParser {
  return new MetaStreamParser({
    onDocument: (doc) => ready.push(doc),
    onError: (detail, line) => {
      const err = new FbcLoadError(detail, { file, line });
      if (opts.onError === undefined) throw err;
      opts.onError(err);
    },
  });
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
  const parser = newParser(file, ready, opts);
  const chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array> =
    typeof input === 'string' ? [Buffer.from(input)] : input instanceof Uint8Array ? [input] : input;
  for await (const chunk of chunks) {
    opts.signal?.throwIfAborted();
    parser.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    for (const doc of ready) yield entry(doc, file);
    ready.length = 0;
  }
  parser.end();
  for (const doc of ready) yield entry(doc, file);
}

/** Synchronous {@link parseMetaStream} over in-memory data. */
export function parseMetas(input: Uint8Array | string, opts: Omit<ParseStreamOptions, 'signal'> = {}): MetaEntry[] {
  const file = opts.file ?? '';
  const ready: StreamDocument[] = [];
  const parser = newParser(file, ready, opts);
  parser.push(typeof input === 'string' ? Buffer.from(input) : input);
  parser.end();
  return ready.map((doc) => entry(doc, file));
}
