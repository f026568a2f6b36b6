/**
 * The two content endpoints, streaming from disk: `/api/v1/all` (catalog.jsonl with Range
 * support, conditional requests and the precompressed gzip copy) and `/api/v1/metas` (the blobs
 * matching `schema`/`package`/`name`, read by range through the index; gzip from the package's
 * precompressed segments for `?package=` alone, else made per request).
 */
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { createGzip, gzip } from 'node:zlib';
import type { IncomingMessage } from 'node:http';
import {
  type ByteRange,
  GZIP_FRAME_HEAD,
  GZIP_FRAME_TAIL,
  type PackageGzip,
  type RangeFile,
  type StoredVersion,
  frameDeflateInPlace,
} from '../storage/index.ts';
import { feedRanges, streamRanges } from './stream-body.ts';
import type { AnswerBuffers, BufferLease } from './answer-buffers.ts';
import {
  type Coding,
  MIN_COMPRESS_SIZE,
  evaluatePreconditions,
  formatHttpDate,
  header,
  ifRangeAllows,
  negotiateCoding,
  parseRange,
} from './http-semantics.ts';
import { type Response, STATUS_TEXT, httpError, notModified, preconditionFailed, send, sendStream, storageErrorResponse } from './responses.ts';

const JSONL = 'application/jsonl';
const METAS_PARAMS = new Set(['schema', 'package', 'name']);
// /metas answers up to this size are read whole and sent with a Content-Length; larger ones
// stream. It also caps a burst's memory: 100 answers at the bound are 25 MB.
export const WHOLE_RESPONSE_MAX = 256 << 10;
const gzipAsync = promisify(gzip);

/** Serves `/catalogs/<name>/api/v1/all` for an existing version. */
export function serveAll(req: IncomingMessage, res: Response, v: StoredVersion, buffers: AnswerBuffers): void | Promise<void> {
  res.setHeader('content-type', JSONL);
  res.setHeader('last-modified', formatHttpDate(v.modTime));
  const pre = evaluatePreconditions(req.headers, v.modTime);
  if (pre === 'not-modified') return notModified(res);
  if (pre === 'precondition-failed') return preconditionFailed(res);

  const size = v.sizes.jsonl;
  res.setHeader('accept-ranges', 'bytes');
  const ranges = ifRangeAllows(req.headers, v.modTime) ? parseRange(header(req.headers, 'range'), size) : undefined;
  if (ranges === 'invalid') return httpError(res, 416, 'invalid range');
  if (ranges === 'unsatisfiable') {
    res.setHeader('content-range', `bytes */${size}`);
    return httpError(res, 416, 'invalid range: failed to overlap');
  }
  if (ranges !== undefined && ranges.length === 1) {
    const [r] = ranges;
    if (r === undefined) return httpError(res, 500, STATUS_TEXT.internal);
    res.statusCode = 206;
    res.setHeader('content-range', `bytes ${r.start}-${r.end - 1}/${size}`);
    res.setHeader('content-length', r.end - r.start);
    return stream(req, res, v, 'jsonl', [{ offset: r.start, length: r.end - r.start }], buffers);
  }
  if (ranges !== undefined) return serveMultipart(req, res, v, ranges, size);

  const coding: Coding = req.method === 'GET' && size >= MIN_COMPRESS_SIZE ? negotiateCoding(header(req.headers, 'accept-encoding')) : 'identity';
  if (coding === 'identity') {
    res.setHeader('content-length', size);
    return stream(req, res, v, 'jsonl', [{ offset: 0, length: size }], buffers);
  }
  res.removeHeader('accept-ranges');
  res.setHeader('content-encoding', coding);
  res.setHeader('content-length', v.sizes.gzip);
  return stream(req, res, v, 'gzip', [{ offset: 0, length: v.sizes.gzip }], buffers);
}

function serveMultipart(
  req: IncomingMessage,
  res: Response,
  v: StoredVersion,
  ranges: Array<{ start: number; end: number }>,
  size: number,
): void | Promise<void> {
  const boundary = Buffer.from(crypto.getRandomValues(new Uint8Array(30))).toString('hex');
  const parts = ranges.map((r, i) => ({
    head: `${i === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Range: bytes ${r.start}-${r.end - 1}/${size}\r\nContent-Type: ${JSONL}\r\n\r\n`,
    range: r,
  }));
  const tail = `\r\n--${boundary}--\r\n`;
  const length = parts.reduce((n, p) => n + Buffer.byteLength(p.head) + (p.range.end - p.range.start), 0) + tail.length;
  res.statusCode = 206;
  res.setHeader('content-type', `multipart/byteranges; boundary=${boundary}`);
  res.setHeader('content-length', length);
  if (req.method === 'HEAD') return send(res);
  return sendStream(
    res,
    Readable.from(
      (async function* () {
        for (const p of parts) {
          yield Buffer.from(p.head);
          yield* createReadStream(v.path('jsonl'), { start: p.range.start, end: p.range.end - 1 });
        }
        yield Buffer.from(tail);
      })(),
    ),
  );
}

/** Serves `/catalogs/<name>/api/v1/metas`; `v` is undefined when the catalog has no content. */
export async function serveMetas(
  req: IncomingMessage,
  res: Response,
  v: StoredVersion | undefined,
  rawQuery: string,
  buffers: AnswerBuffers,
): Promise<void> {
  const query = { schema: '', package: '', name: '' };
  const seen = new Set<string>();
  for (const [key, value] of new URLSearchParams(rawQuery)) {
    if (!METAS_PARAMS.has(key)) return httpError(res, 400, STATUS_TEXT.badRequest);
    if (seen.has(key)) continue; // the first value wins, as in Go's Query().Get
    seen.add(key);
    query[key as keyof typeof query] = value;
  }
  if (v === undefined) return httpError(res, 404, STATUS_TEXT.notFound);
  res.setHeader('last-modified', formatHttpDate(v.modTime));
  const pre = evaluatePreconditions(req.headers, v.modTime);
  if (pre === 'not-modified') return notModified(res);
  if (pre === 'precondition-failed') return preconditionFailed(res);

  const whole = query.schema === '' && query.package === '' && query.name === '';
  let ranges: ByteRange[];
  let packageGzip: PackageGzip | undefined;
  try {
    const index = whole ? undefined : await v.index();
    ranges = index === undefined ? [{ offset: 0, length: v.sizes.jsonl }] : index.lookup(query);
    if (query.schema === '' && query.name === '') packageGzip = index?.packageGzip(query.package);
  } catch (err) {
    return storageErrorResponse(res, err);
  }
  res.setHeader('content-type', JSONL);
  if (req.method === 'HEAD') return send(res);
  const total = ranges.reduce((n, r) => n + r.length, 0);
  const coding = total >= MIN_COMPRESS_SIZE ? negotiateCoding(header(req.headers, 'accept-encoding')) : 'identity';
  if (coding === 'gzip') res.setHeader('content-encoding', 'gzip');
  if (whole && coding === 'gzip') return streamRanges(res, v, 'gzip', [{ offset: 0, length: v.sizes.gzip }], buffers);
  if (packageGzip !== undefined && packageGzip.size === total && coding === 'gzip') {
    // The package's answer compressed at ingest (storage/gzip-segments.ts), framed as a gzip
    // file; should that read fail, the answer is compressed per request.
    const { offset, length, crc, size } = packageGzip;
    const lease = buffers.lease(GZIP_FRAME_HEAD + length + GZIP_FRAME_TAIL);
    const segments = await v.readRangesInto('gzip', [{ offset, length }], lease.buf, GZIP_FRAME_HEAD).catch(() => undefined);
    if (segments !== undefined && segments.length === length) {
      return sendLeased(res, lease, frameDeflateInPlace(lease.buf, length, crc, size));
    }
    lease.release();
  }
  if (total <= WHOLE_RESPONSE_MAX) {
    // Package- and name-scoped answers are small: one read, one write with a Content-Length,
    // and for compression one call on the thread pool instead of a stream pipeline.
    const lease = buffers.lease(total);
    let body: Buffer;
    try {
      body = await v.readRangesInto('jsonl', ranges, lease.buf, 0);
      if (coding === 'gzip') {
        const compressed = await gzipAsync(body, { level: 1 });
        lease.release();
        res.setHeader('content-length', compressed.length);
        return send(res, compressed);
      }
    } catch (err) {
      lease.release();
      return storageErrorResponse(res, err);
    }
    return sendLeased(res, lease, body);
  }
  if (coding === 'identity') return streamRanges(res, v, 'jsonl', ranges, buffers);
  const compressor = createGzip({ level: 1 });
  // A failed read destroys the compressor, which aborts the response.
  void feedRanges(compressor, v, 'jsonl', ranges, buffers);
  return sendStream(res, compressor);
}

/** Sends `body`, a view of `lease.buf`, returning the buffer once the response has been written out. */
function sendLeased(res: Response, lease: BufferLease, body: Buffer): void {
  // Only 'finish' proves the socket no longer needs the bytes; a response closed before that
  // keeps its lease, which is then collected rather than reused.
  res.once('finish', lease.release);
  res.setHeader('content-length', body.length);
  send(res, body);
}

/** HEAD: headers only; GET: the ranges of `file`, streamed through reused buffers. */
function stream(
  req: IncomingMessage,
  res: Response,
  v: StoredVersion,
  file: RangeFile,
  ranges: ByteRange[],
  buffers: AnswerBuffers,
): void | Promise<void> {
  if (req.method === 'HEAD') return send(res);
  return streamRanges(res, v, file, ranges, buffers);
}
