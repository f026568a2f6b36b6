/**
 * Streams a response body from a stored content file through reused buffers (streamRanges), or
 * feeds such a file into a compressor whose output is the body (feedRanges). With catalogd's
 * 32 KiB mmap threshold (decision 0082) a file stream's 64 KiB buffer per read is a fresh mapping
 * torn down at the next collection, delaying the next request (bench/results/catalogd-memory.md);
 * here reads go into slabs lent by AnswerBuffers, returned by each write's callback.
 *
 * Contract: the response has its status and headers set and is not sent yet. A file that cannot
 * be opened gets the storage error response; a read failing midway destroys the response (a
 * truncated body, as with a piped stream); a client that goes away stops the reads.
 */
import type { FileHandle } from 'node:fs/promises';
import type { ByteRange, RangeFile, StoredVersion } from '../storage/index.ts';
import type { AnswerBuffers } from './answer-buffers.ts';
import { type Response, setEveryResponseHeaders, storageErrorResponse } from './responses.ts';

// Bytes per read: one slab of the large class. Fewer, larger reads (thread-pool trips) and
// writes cost less CPU per byte; much larger ones no longer fit the CPU caches (decision 0099).
const STREAM_READ = 256 * 1024;

// Bytes queued on the response before the reads wait for it to drain: a few reads' worth, so
// that the socket has the next bytes while a read is in flight (decision 0099).
const WRITE_WINDOW = 1024 * 1024;

/**
 * Sends `ranges` of `file` of `v` as the body of `res`; resolves when the body is written or
 * abandoned.
 */
export async function streamRanges(
  res: Response,
  v: StoredVersion,
  file: RangeFile,
  ranges: readonly ByteRange[],
  buffers: AnswerBuffers,
): Promise<void> {
  let started = false;
  try {
    await v.withFile(file, async (fh) => {
      // The file is open: from here on the response has its status and headers.
      started = true;
      setEveryResponseHeaders(res);
      res.writeHead(res.statusCode);
      await writeRanges(res, fh, ranges, buffers, v.catalog);
    });
    if (!res.destroyed) res.end();
  } catch (err) {
    // A file that cannot be opened is answered like every storage error; one that fails
    // midway can only cut the response short.
    if (!started) storageErrorResponse(res, err);
    else res.destroy(err as Error);
  }
}

/**
 * Feeds `ranges` of `file` of `v` into `sink` (a compressor whose output is the response body)
 * through reused buffers, each released by its write's callback, when the sink has consumed
 * it; ends the sink, or destroys it when a read fails. Resolves when done or abandoned.
 */
export async function feedRanges(sink: Sink, v: StoredVersion, file: RangeFile, ranges: readonly ByteRange[], buffers: AnswerBuffers): Promise<void> {
  try {
    await v.withFile(file, (fh) => writeRanges(sink, fh, ranges, buffers, v.catalog));
    if (!sink.destroyed) sink.end();
  } catch (err) {
    sink.destroy(err as Error);
  }
}

/** What the reads are written to: a response or a stream in front of one. */
type Sink = Pick<NodeJS.WritableStream, 'on' | 'off' | 'end'> & {
  readonly destroyed: boolean;
  readonly writableLength: number;
  write(chunk: Buffer, cb: (err?: Error | null) => void): boolean;
  destroy(err?: Error): unknown;
};

/** One read of a range: `want` bytes at `at`. */
interface Piece {
  at: number;
  want: number;
}

function* piecesOf(ranges: readonly ByteRange[]): Generator<Piece, void, undefined> {
  for (const range of ranges) {
    for (let done = 0; done < range.length; done += STREAM_READ) yield { at: range.offset + done, want: Math.min(STREAM_READ, range.length - done) };
  }
}

/**
 * Writes the ranges' bytes to `res` piece by piece, reading one piece ahead of the writes in
 * flight: waiting for a read only after the socket drained left it idle (decision 0099).
 */
async function writeRanges(res: Sink, fh: FileHandle, ranges: readonly ByteRange[], buffers: AnswerBuffers, catalog: string): Promise<void> {
  const pieces = piecesOf(ranges);
  const start = (): Promise<Read> | undefined => {
    const next = pieces.next();
    if (next.done === true) return undefined;
    const read = readPiece(fh, next.value, buffers, catalog);
    // Settled by the loop below, or let go of when the response ends first.
    read.catch(() => undefined);
    return read;
  };
  let pending = start();
  try {
    while (pending !== undefined) {
      const { lease, length } = await pending;
      pending = undefined;
      if (res.destroyed) {
        lease.release();
        return;
      }
      pending = start();
      // Released once the socket has the bytes; a write that fails (the client went away) keeps
      // its slab, which is then collected rather than reused.
      const more = res.write(lease.buf.subarray(0, length), (err) => {
        if (err == null) lease.release();
      });
      if (!more && res.writableLength >= WRITE_WINDOW) await drainedOrClosed(res);
    }
  } finally {
    // A read still in flight when the response ended or failed gives its slab back, before the
    // file handle is let go of.
    await pending?.then(
      ({ lease }) => lease.release(),
      () => undefined,
    );
  }
}

/** A piece read into a lent slab. */
interface Read {
  lease: ReturnType<AnswerBuffers['lease']>;
  length: number;
}

async function readPiece(fh: FileHandle, piece: Piece, buffers: AnswerBuffers, catalog: string): Promise<Read> {
  const lease = buffers.lease(piece.want);
  try {
    let got = 0;
    while (got < piece.want) {
      const { bytesRead } = await fh.read(lease.buf, got, piece.want - got, piece.at + got);
      if (bytesRead === 0) throw new Error(`catalog ${catalog}: content ended before byte ${piece.at + got}`);
      got += bytesRead;
    }
    return { lease, length: got };
  } catch (err) {
    lease.release();
    throw err;
  }
}

function drainedOrClosed(res: Sink): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
