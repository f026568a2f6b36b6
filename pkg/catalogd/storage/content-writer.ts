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
import { Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { constants as zlibConstants, createGzip, createZstdCompress } from 'node:zlib';
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
const HIGH_WATER = 1 << 20;
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
  const gzip = createGzip({ level: GZIP_LEVEL, chunkSize: 64 * 1024 });
  const zstd = createZstdCompress({ params: { [zlibConstants.ZSTD_c_compressionLevel]: ZSTD_LEVEL } });
  const gzipDone = pipeline(gzip, createWriteStream(join(dir, CONTENT_FILES.gzip)));
  const zstdDone = pipeline(zstd, createWriteStream(join(dir, CONTENT_FILES.zstd)));
  const sinks: Writable[] = [jsonl, gzip, zstd];
  const index = new MetaIndexBuilder();
  let offset = 0;
  try {
    // Batch small blobs into ~1 MB writes: one write per blob costs more than the copy.
    let batch: Buffer[] = [];
    let batchBytes = 0;
    let sliceStart = performance.now();
    for await (const meta of metas) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await yieldToEventLoop();
        sliceStart = performance.now();
      }
      if (meta.blob === '') continue;
      const bytes = Buffer.from(meta.blob, 'utf8');
      index.add(meta, offset, bytes.length);
      offset += bytes.length;
      batch.push(bytes);
      batchBytes += bytes.length;
      if (batchBytes >= HIGH_WATER) {
        await writeAll(sinks, Buffer.concat(batch, batchBytes));
        batch = [];
        batchBytes = 0;
      }
    }
    if (batchBytes > 0) await writeAll(sinks, Buffer.concat(batch, batchBytes));
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
