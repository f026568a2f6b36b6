/**
 * Writes one catalog version into a directory: `catalog.jsonl` (every blob, in order), its
 * precompressed copies `catalog.jsonl.gz` and `catalog.jsonl.zst` (so `/api/v1/all` costs no
 * CPU per request), and `index.json` (byte offsets for `/api/v1/metas`).
 *
 * Blobs stream through: memory use does not grow with catalog size. Compression runs on libuv's
 * thread pool in parallel with the caller producing blobs.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TransformOptions, Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { type ZlibOptions, type ZstdOptions, constants as zlibConstants, createGzip, createZstdCompress } from 'node:zlib';
import type { Meta } from '../../fbc/types.ts';
import { MetaIndexBuilder } from './meta-index.ts';

/** File names inside a stored catalog version directory. */
export const CONTENT_FILES = {
  jsonl: 'catalog.jsonl',
  gzip: 'catalog.jsonl.gz',
  zstd: 'catalog.jsonl.zst',
  index: 'index.json',
} as const;

/** What was written. */
export interface ContentSummary {
  blobs: number;
  bytes: number;
}

// gzip and zstd at level 1 keep ingest of a 30 MB catalog well inside its time budget;
// higher levels buy a few percent on catalogs whose bulk (icons) barely compresses.
const GZIP_LEVEL = 1;
const ZSTD_LEVEL = 1;
const HIGH_WATER = 256 << 10;
const COMPRESS_BUFFER = 1 << 20;
// Longest stretch of synchronous work between event-loop turns: an ingest on the main thread
// must not delay HTTP requests or reconciles by more than a few milliseconds.
const SLICE_MS = 4;

/**
 * Streams `metas` into `dir` (which must exist and be empty). Blobs with an empty `blob`
 * (blank YAML documents) are skipped, as upstream catalogd does; blobs without a schema are
 * kept in catalog.jsonl but not indexed. Rejects on the first read or write error; the caller
 * removes the directory.
 */
export async function writeCatalogContent(dir: string, metas: AsyncIterable<Meta> | Iterable<Meta>): Promise<ContentSummary> {
  const jsonl = createWriteStream(join(dir, CONTENT_FILES.jsonl), { highWaterMark: HIGH_WATER });
  // Room for a few batches on the compressors' input side, so they compress on the thread pool
  // while the caller produces the next batches instead of each write waiting for a drain.
  // (zlib streams take Transform options; Node's typings only list the zlib ones.)
  const buffered: Pick<TransformOptions, 'writableHighWaterMark'> = { writableHighWaterMark: COMPRESS_BUFFER };
  const gzipOptions: ZlibOptions = { level: GZIP_LEVEL, chunkSize: 64 * 1024, ...buffered };
  const zstdOptions: ZstdOptions = { params: { [zlibConstants.ZSTD_c_compressionLevel]: ZSTD_LEVEL }, ...buffered };
  const gzip = createGzip(gzipOptions);
  const zstd = createZstdCompress(zstdOptions);
  const gzipDone = pipeline(gzip, createWriteStream(join(dir, CONTENT_FILES.gzip)));
  const zstdDone = pipeline(zstd, createWriteStream(join(dir, CONTENT_FILES.zstd)));
  const sinks: Writable[] = [jsonl, gzip, zstd];
  const index = new MetaIndexBuilder();
  let offset = 0;
  try {
    // Batch blobs as strings and encode one buffer per batch: a buffer per blob would leave
    // tens of MB of small dead buffers waiting for an old-generation collection.
    let batch: string[] = [];
    let batchBytes = 0;
    let sliceStart = performance.now();
    for await (const meta of metas) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await yieldToEventLoop();
        sliceStart = performance.now();
      }
      if (meta.blob === '') continue;
      const length = Buffer.byteLength(meta.blob, 'utf8');
      index.add(meta, offset, length);
      offset += length;
      batch.push(meta.blob);
      batchBytes += length;
      if (batchBytes >= HIGH_WATER) {
        await writeAll(sinks, Buffer.from(batch.join(''), 'utf8'));
        batch = [];
        batchBytes = 0;
      }
    }
    if (batchBytes > 0) await writeAll(sinks, Buffer.from(batch.join(''), 'utf8'));
    for (const s of sinks) s.end();
    await Promise.all([finished(jsonl), gzipDone, zstdDone]);
  } catch (err) {
    for (const s of sinks) s.destroy();
    await Promise.allSettled([gzipDone, zstdDone]);
    throw err;
  }
  await writeFile(join(dir, CONTENT_FILES.index), index.serialize());
  return { blobs: index.size, bytes: offset };
}

/** Writes `chunk` to every sink, waiting for drain where a sink is backed up. */
async function writeAll(sinks: Writable[], chunk: Buffer): Promise<void> {
  const waits: Promise<void>[] = [];
  for (const sink of sinks) {
    if (!sink.write(chunk)) waits.push(drained(sink));
  }
  if (waits.length > 0) await Promise.all(waits);
}

function drained(stream: Writable | WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = (): void => {
      stream.off('error', onError);
      resolve();
    };
    const onError = (err: Error): void => {
      stream.off('drain', onDrain);
      reject(err);
    };
    stream.once('drain', onDrain);
    stream.once('error', onError);
  });
}
