/**
 * Writes catalog.jsonl.gz as one gzip file of independently compressed segments
 * (gzip-framing.ts), each tagged with the package whose `/api/v1/metas?package=` answer it
 * belongs to ("" for none), compressed on libuv's thread pool while the caller produces the
 * next. A package whose segments are one contiguous run gets a `PackageGzip`: framed anew, they
 * are its gzip answer, so `/all` and package queries share one compression done at ingest.
 * Packages spread over several runs, or larger than MAX_PACKAGE_GZIP, are compressed per
 * request. Resetting the compressor per segment costs little: a catalog's bulk is per package.
 */
import { type WriteStream, createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw } from 'node:zlib';
import { drained } from './drained.ts';
import { FINAL_BLOCK, GZIP_HEADER, crc32Combine, writeGzipTrailer } from './gzip-framing.ts';

const deflateRawAsync = promisify(deflateRaw);

/** Largest package answer (uncompressed) served from the stored segments: it is read whole. */
export const MAX_PACKAGE_GZIP = 4 << 20;
// Compressions handed to the thread pool and not yet written: beyond this, add() waits. Each
// holds zlib's deflate state (~300 KiB) and its input, so this bounds memory.
const MAX_JOBS = 2;
// Output buffer of each compression. zlib's default (16 KiB) costs a thread-pool round trip
// per 16 KiB of output; 128 KiB makes fewer of them (decision 0086) and stays below the ingest
// process's 256 KiB mmap threshold.
const DEFLATE_CHUNK = 128 << 10;
// zlib's largest hash table (memLevel 9, a little more state than the default): at level 1 it
// compresses faster, for slightly more bytes (bench/results/catalog-ingest.md).
const DEFLATE_MEM_LEVEL = 9;

/** Where a package's compressed answer lies in catalog.jsonl.gz. */
export interface PackageGzip {
  /** Byte range of its deflate segments in catalog.jsonl.gz. */
  offset: number;
  length: number;
  /** CRC-32 and length of the uncompressed answer (for the gzip trailer). */
  crc: number;
  size: number;
}

/** Writes the segmented gzip file; `add` segments in catalog.jsonl order, then `finish`. */
export class GzipSegmentWriter {
  readonly #out: WriteStream;
  readonly #level: number;
  #offset = GZIP_HEADER.length;
  #crc = 0;
  #size = 0;
  #run: ({ pkg: string } & PackageGzip) | undefined;
  readonly #seen = new Set<string>();
  readonly #excluded = new Set<string>();
  readonly #packages = new Map<string, PackageGzip>();
  #tail: Promise<void> = Promise.resolve();
  #jobs = 0;
  #failed: unknown;

  constructor(path: string, level: number) {
    this.#out = createWriteStream(path);
    this.#out.on('error', (err) => (this.#failed ??= err));
    this.#out.write(GZIP_HEADER);
    this.#level = level;
  }

  /**
   * Compresses `segment` (consecutive bytes of catalog.jsonl, all in `pkg`'s answer, or "") and
   * appends it. Returns a promise when the caller should wait for compression to catch up.
   */
  add(pkg: string, segment: Buffer): Promise<void> | undefined {
    const crc = crc32(segment);
    const size = segment.length;
    const compressed = deflateRawAsync(segment, {
      level: this.#level,
      memLevel: DEFLATE_MEM_LEVEL,
      finishFlush: constants.Z_SYNC_FLUSH,
      chunkSize: DEFLATE_CHUNK,
    });
    this.#jobs++;
    this.#tail = this.#tail.then(async () => {
      const deflated = await compressed;
      this.#jobs--;
      this.#record(pkg, deflated.length, crc, size);
      if (!this.#out.write(deflated)) await drained(this.#out);
    });
    // Keep the chain from reporting an unhandled rejection before finish() awaits it.
    this.#tail.catch((err: unknown) => (this.#failed ??= err));
    return this.#jobs >= MAX_JOBS ? this.#tail : undefined;
  }

  /** Ends the deflate stream, writes the trailer and closes the file; resolves to the packages' runs. */
  async finish(): Promise<Map<string, PackageGzip>> {
    await this.#tail.catch(() => undefined);
    if (this.#failed !== undefined) throw this.#failed;
    this.#endRun();
    const end = Buffer.alloc(FINAL_BLOCK.length + 8);
    FINAL_BLOCK.copy(end);
    writeGzipTrailer(end, FINAL_BLOCK.length, this.#crc, this.#size);
    this.#out.end(end);
    await finished(this.#out);
    for (const pkg of this.#excluded) this.#packages.delete(pkg);
    return this.#packages;
  }

  /** Stops writing after a failure elsewhere. */
  destroy(): void {
    this.#out.destroy();
  }

  #record(pkg: string, length: number, crc: number, size: number): void {
    this.#crc = crc32Combine(this.#crc, crc, size);
    this.#size += size;
    const run = this.#run;
    if (pkg !== '' && run?.pkg === pkg) {
      run.length += length;
      run.crc = crc32Combine(run.crc, crc, size);
      run.size += size;
    } else {
      this.#endRun();
      if (pkg !== '') {
        if (this.#seen.has(pkg)) this.#excluded.add(pkg);
        this.#run = { pkg, offset: this.#offset, length, crc, size };
      }
    }
    this.#offset += length;
  }

  #endRun(): void {
    const run = this.#run;
    this.#run = undefined;
    if (run === undefined) return;
    this.#seen.add(run.pkg);
    if (run.size > MAX_PACKAGE_GZIP) this.#excluded.add(run.pkg);
    else this.#packages.set(run.pkg, { offset: run.offset, length: run.length, crc: run.crc, size: run.size });
  }
}
