/**
 * Writes one catalog version into a directory: `catalog.jsonl`, its precompressed copy
 * `catalog.jsonl.gz` in per-package segments that double as `/api/v1/metas?package=` answers
 * (gzip-segments.ts), and `index.json` (byte offsets for `/metas`). Blobs stream through, memory
 * does not grow with the catalog, and compression runs on the thread pool meanwhile.
 */
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Meta } from '../../shared/fbc/types.ts';
import { drained } from './drained.ts';
import { GzipSegmentWriter } from './gzip-segments.ts';
import { MetaIndexBuilder } from './meta-index.ts';

/** File names inside a stored catalog version directory. */
export const CONTENT_FILES = {
  jsonl: 'catalog.jsonl',
  gzip: 'catalog.jsonl.gz',
  index: 'index.json',
} as const;

/** The files a stored version cannot be served without (older versions' package answers are compressed per request). */
export const REQUIRED_CONTENT_FILES = [CONTENT_FILES.jsonl, CONTENT_FILES.gzip, CONTENT_FILES.index] as const;

export interface ContentSummary {
  blobs: number;
  bytes: number;
}

// gzip level 1 keeps a 30 MB catalog's ingest in its time budget (higher levels gain a few
// percent); no zstd copy: upstream offers gzip only.
const GZIP_LEVEL = 1;
const HIGH_WATER = 256 << 10;
// Largest segment handed to the compressor and to catalog.jsonl at once (a single larger blob
// makes a larger one). Small enough to bound memory, large enough for few write calls.
const SEGMENT_MAX = 1 << 20;
// Longest stretch of synchronous work between event-loop turns: an ingest on the main thread
// must not delay HTTP requests or reconciles by more than a few milliseconds.
const SLICE_MS = 4;

interface Segment {
  /** The package answer the blobs belong to; "" for none (no schema, or no package). */
  pkg: string;
  blobs: string[];
  bytes: number;
}

/**
 * Streams `metas` into `dir` (which must exist and be empty). Blobs with an empty `blob`
 * (blank YAML documents) are skipped, as upstream catalogd does; blobs without a schema are
 * kept in catalog.jsonl but not indexed. Rejects on the first read or write error; the caller
 * removes the directory.
 */
export async function writeCatalogContent(dir: string, metas: AsyncIterable<Meta> | Iterable<Meta>): Promise<ContentSummary> {
  const jsonl = createWriteStream(join(dir, CONTENT_FILES.jsonl), { highWaterMark: HIGH_WATER });
  const gzip = new GzipSegmentWriter(join(dir, CONTENT_FILES.gzip), GZIP_LEVEL);
  const index = new MetaIndexBuilder();
  let offset = 0;
  let writeError: unknown;
  jsonl.on('error', (err) => (writeError ??= err));
  // One UTF-8 encoding per segment, shared by catalog.jsonl and the compressor: a buffer per
  // blob would leave tens of MB of small dead buffers waiting for an old-generation collection.
  const flush = async (segment: Segment): Promise<void> => {
    if (writeError !== undefined) throw writeError;
    const bytes = Buffer.from(segment.blobs.join(''), 'utf8');
    const behind = gzip.add(segment.pkg, bytes);
    if (!jsonl.write(bytes)) await drained(jsonl);
    if (behind !== undefined) await behind;
  };
  try {
    let segment: Segment | undefined;
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
      const pkg = meta.schema === '' ? '' : meta.package;
      if (segment !== undefined && (segment.pkg !== pkg || segment.bytes + length > SEGMENT_MAX)) {
        await flush(segment);
        segment = undefined;
      }
      segment ??= { pkg, blobs: [], bytes: 0 };
      segment.blobs.push(meta.blob);
      segment.bytes += length;
    }
    if (segment !== undefined) await flush(segment);
    jsonl.end();
    const [packages] = await Promise.all([gzip.finish(), finished(jsonl)]);
    await writeFile(join(dir, CONTENT_FILES.index), index.serialize(packages));
  } catch (err) {
    jsonl.destroy();
    gzip.destroy();
    throw err;
  }
  return { blobs: index.size, bytes: offset };
}
