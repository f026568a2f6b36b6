/**
 * Decoding a single FBC stream that is not a directory: an HTTP body (catalogd's JSON-lines
 * `/api/v1/all`), a Buffer or a string, with the decoder, limits and streaming memory bound of
 * a catalog file (walk.ts).
 */
import type { FbcLoadError } from './errors.ts';
import type { DecodeLimits } from './limits.ts';
import { countCatalogBytes, decodeFileDocuments, fileParser, newWalkState, type MetaEntry, type WalkedDocument } from './walk.ts';

interface ParseStreamOptions {
  /** Name used in error messages and `MetaSource.file` (default ''). */
  file?: string;
  signal?: AbortSignal;
  /** Receives errors and lets decoding go on (see `WalkOptions.onError`); else the first is thrown. */
  onError?: (err: FbcLoadError) => void;
  /** Size limits (default DEFAULT_DECODE_LIMITS); `maxCatalogBytes` bounds the whole stream. */
  limits?: Partial<DecodeLimits>;
}

/**
 * Yields the documents of one stream as they are decoded. Accepts an async or sync iterable
 * of chunks (e.g. a Node Readable or a fetch body), a Buffer or a string.
 */
export async function* parseMetaStream(
  input: AsyncIterable<Uint8Array> | Iterable<Uint8Array> | Uint8Array | string,
  opts: ParseStreamOptions = {},
): AsyncGenerator<MetaEntry> {
  const chunks = typeof input === 'string' || input instanceof Uint8Array ? [bytesOf(input)] : bytesOfEach(input);
  for await (const doc of decodeFileDocuments(opts.file ?? '', chunks, opts, newWalkState(opts))) yield { meta: doc.meta, source: doc.source };
}

async function* bytesOfEach(chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) yield bytesOf(chunk);
}

function bytesOf(input: Uint8Array | string): Uint8Array {
  return typeof input === 'string' ? Buffer.from(input) : input;
}

/** Synchronous {@link parseMetaStream} over in-memory data. */
export function parseMetas(input: Uint8Array | string, opts: Omit<ParseStreamOptions, 'signal'> = {}): MetaEntry[] {
  const file = opts.file ?? '';
  const ready: WalkedDocument[] = [];
  const state = newWalkState(opts);
  const parser = fileParser(file, ready, opts, state);
  const bytes = bytesOf(input);
  countCatalogBytes(file, state, bytes.length);
  parser.push(bytes);
  parser.end();
  return ready.map((doc) => ({ meta: doc.meta, source: doc.source }));
}
