/** Layer decompression by sniffing (containers/image's AutoDecompress): gzip, zstd, else plain tar; bzip2/xz refused. */
import { Readable, pipeline } from 'node:stream';
import { createGunzip, createZstdDecompress } from 'node:zlib';

/** Compression formats told apart by their magic bytes. */
type Compression = 'gzip' | 'zstd' | 'bzip2' | 'xz' | 'none';

const MAGIC: ReadonlyArray<[Compression, readonly number[]]> = [
  ['gzip', [0x1f, 0x8b, 0x08]],
  ['zstd', [0x28, 0xb5, 0x2f, 0xfd]],
  ['bzip2', [0x42, 0x5a, 0x68]],
  ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
];
const SNIFF_BYTES = 6;
// Chunks (zlib's are 16 KiB by default) buffered ahead of the consumer before the source pauses.
const MAX_QUEUED = 8;

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

interface DecompressOptions {
  /** zlib's output chunk size (default 16 KiB). */
  chunkSize?: number;
  /** Called with the size of each output chunk before it is yielded; throwing stops decompression (a size cap). */
  onBytes?: (n: number) => void;
}

/**
 * Yields the decompressed bytes of `source`. Errors from `source` (network, digest checks)
 * and from the decompressor surface from the iteration. The whole of `source` is consumed
 * when iteration completes, so verifying wrappers see every byte.
 *
 * @throws Error `unsupported layer compression: bzip2|xz`, the decompressor's error, or
 *   `options.onBytes`'s.
 */
export async function* decompress(source: AsyncIterable<Buffer>, options: DecompressOptions = {}): AsyncGenerator<Buffer> {
  const count = options.onBytes;
  if (count === undefined) return yield* decompressed(source, options.chunkSize);
  for await (const chunk of decompressed(source, options.chunkSize)) {
    count(chunk.length);
    yield chunk;
  }
}

async function* decompressed(source: AsyncIterable<Buffer>, chunkSize: number | undefined): AsyncGenerator<Buffer> {
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
  const zlibOptions = chunkSize === undefined ? {} : { chunkSize };
  const inflater = kind === 'gzip' ? createGunzip(zlibOptions) : createZstdDecompress(zlibOptions);
  const input = Readable.from(prepend(head, it), { objectMode: false });
  let failure: unknown;
  // pipeline destroys both ends on error; the inflater then ends its iteration by throwing.
  pipeline(input, inflater, (err) => {
    if (err) failure = err;
  });
  try {
    yield* chunksOf(inflater);
  } catch (err) {
    throw failure ?? err;
  }
  if (failure !== undefined) throw failure;
}

/**
 * Yields a readable's chunks as it pushed them: its own async iterator joins everything buffered
 * into one new buffer per step, which under catalogd's allocator settings (decision 0082) is an
 * mmap faulted in page by page; zlib's chunks are views needing no copy. At most MAX_QUEUED wait
 * before it is paused; ending early destroys it. `what` names it for a close before its end.
 */
export async function* chunksOf(readable: Readable, what = 'decompressor'): AsyncGenerator<Buffer> {
  const queue: Buffer[] = [];
  let done = false;
  let failed: { err: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    wake?.();
    wake = undefined;
  };
  const onData = (chunk: Buffer): void => {
    queue.push(chunk);
    if (queue.length >= MAX_QUEUED) readable.pause();
    notify();
  };
  const onEnd = (): void => {
    done = true;
    notify();
  };
  const onClose = (): void => {
    if (!readable.readableEnded) failed ??= { err: new Error(`${what} closed before the end of its output`) };
    onEnd();
  };
  const onError = (err: unknown): void => {
    failed = { err };
    notify();
  };
  readable.on('data', onData);
  readable.once('end', onEnd);
  readable.once('error', onError);
  readable.once('close', onClose);
  try {
    for (;;) {
      const chunk = queue.shift();
      if (chunk !== undefined) {
        if (queue.length < MAX_QUEUED && readable.isPaused()) readable.resume();
        yield chunk;
        continue;
      }
      if (failed !== undefined) throw failed.err;
      if (done) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    readable.off('data', onData);
    readable.off('end', onEnd);
    readable.off('error', onError);
    readable.off('close', onClose);
    // A consumer that stops early ends the pipeline (as a Readable's own iterator does).
    if (!readable.readableEnded) readable.destroy();
  }
}
