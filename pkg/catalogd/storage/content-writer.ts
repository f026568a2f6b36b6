/**
 * Writes one catalog version into a directory: `catalog.jsonl` (every blob, in order), its
 * precompressed copy `catalog.jsonl.gz` (so `/api/v1/all` costs no CPU per request), the
 * per-package gzip members of `packages.jsonl.gz` (package-members.ts) and `index.json` (byte
 * offsets for `/api/v1/metas`).
 *
 * Blobs stream through: memory use does not grow with catalog size. Compression runs on libuv's
 * thread pool in parallel with the caller producing blobs.
 */
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TransformOptions, Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { type ZlibOptions, createGzip } from 'node:zlib';
import type { Meta } from '../../fbc/types.ts';
import { drained } from './drained.ts';
import { MetaIndexBuilder } from './meta-index.ts';
import { PackageMemberWriter } from './package-members.ts';

/** File names inside a stored catalog version directory. */
export const CONTENT_FILES = {
  jsonl: 'catalog.jsonl',
  gzip: 'catalog.jsonl.gz',
  packages: 'packages.jsonl.gz',
  index: 'index.json',
} as const;

/**
 * The files a stored version cannot be served without. Versions written before
 * `packages.jsonl.gz` existed are served too; their package answers are compressed per request.
 */
export const REQUIRED_CONTENT_FILES = [CONTENT_FILES.jsonl, CONTENT_FILES.gzip, CONTENT_FILES.index] as const;

/** What was written. */
export interface ContentSummary {
  blobs: number;
  bytes: number;
}

// gzip at level 1 keeps ingest of a 30 MB catalog inside its time budget; higher levels buy a
// few percent on catalogs whose bulk (icons) barely compresses. No zstd copy: upstream offers
// gzip only, and a second whole-catalog compression competes with the ingest for the CPU.
const GZIP_LEVEL = 1;
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
  // 256 KiB output chunks (zlib's default is 16 KiB): fewer output callbacks on the main thread.
  const gzipOptions: ZlibOptions = { level: GZIP_LEVEL, chunkSize: 256 * 1024, ...buffered };
  const gzip = createGzip(gzipOptions);
  const gzipDone = pipeline(gzip, createWriteStream(join(dir, CONTENT_FILES.gzip)));
  const sinks: Writable[] = [jsonl, gzip];
  const packages = new PackageMemberWriter(join(dir, CONTENT_FILES.packages), GZIP_LEVEL);
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
      const behind = packages.add(meta.schema === '' ? '' : meta.package, meta.blob, length);
      if (behind !== undefined) await behind;
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
    const [members] = await Promise.all([packages.finish(), finished(jsonl), gzipDone]);
    await writeFile(join(dir, CONTENT_FILES.index), index.serialize(members));
  } catch (err) {
    for (const s of sinks) s.destroy();
    packages.destroy();
    await Promise.allSettled([gzipDone]);
    throw err;
  }
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
