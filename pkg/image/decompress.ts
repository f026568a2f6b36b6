/**
 * Layer decompression by content sniffing (as containers/image's AutoDecompress does): gzip
 * and zstd are inflated, anything else passes through as an uncompressed tar. bzip2 and xz
 * are recognised and rejected with a clear error.
 */
import { Readable, pipeline } from 'node:stream';
import { createGunzip, createZstdDecompress } from 'node:zlib';

/** Compression formats told apart by their magic bytes. */
export type Compression = 'gzip' | 'zstd' | 'bzip2' | 'xz' | 'none';

const MAGIC: ReadonlyArray<[Compression, readonly number[]]> = [
  ['gzip', [0x1f, 0x8b, 0x08]],
  ['zstd', [0x28, 0xb5, 0x2f, 0xfd]],
  ['bzip2', [0x42, 0x5a, 0x68]],
  ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
];
const SNIFF_BYTES = 6;

/** The compression `head` (the first bytes of a blob) starts with. */
export function detectCompression(head: Uint8Array): Compression {
  for (const [kind, magic] of MAGIC) {
    if (head.length >= magic.length && magic.every((b, i) => head[i] === b)) return kind;
  }
  return 'none';
}

async function* prepend(head: Buffer, it: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  if (head.length > 0) yield head;
  for (;;) {
    const next = await it.next();
    if (next.done === true) return;
    yield next.value;
  }
}

/**
 * Yields the decompressed bytes of `source`. Errors from `source` (network, digest checks)
 * and from the decompressor surface from the iteration. The whole of `source` is consumed
 * when iteration completes, so verifying wrappers see every byte.
 *
 * @throws Error `unsupported layer compression: bzip2|xz`, or the decompressor's error.
 */
export async function* decompress(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  while (head.length < SNIFF_BYTES) {
    const next = await it.next();
    if (next.done === true) break;
    head = Buffer.concat([head, next.value]);
  }
  const kind = detectCompression(head);
  if (kind === 'bzip2' || kind === 'xz') {
    await it.return?.();
    throw new Error(`unsupported layer compression: ${kind}`);
  }
  if (kind === 'none') {
    yield* prepend(head, it);
    return;
  }
  const inflater = kind === 'gzip' ? createGunzip() : createZstdDecompress();
  const input = Readable.from(prepend(head, it), { objectMode: false });
  let failure: unknown;
  // pipeline destroys both ends on error; the inflater then ends its iteration by throwing.
  pipeline(input, inflater, (err) => {
    if (err) failure = err;
  });
  try {
    for await (const chunk of inflater as AsyncIterable<Buffer>) yield chunk;
  } catch (err) {
    throw failure ?? err;
  }
  if (failure !== undefined) throw failure;
}
