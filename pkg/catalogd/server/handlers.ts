/**
 * The two content endpoints. Both stream from disk and never hold a catalog in memory:
 * - `/api/v1/all`: the whole catalog.jsonl, with Range support, conditional requests and the
 *   precompressed gzip/zstd copies when the client accepts them;
 * - `/api/v1/metas?schema=&package=&name=`: the blobs matching the filters, read by byte range
 *   through the stored index, compressed on the fly when large enough.
 */
import { createReadStream } from 'node:fs';
import { Readable, pipeline } from 'node:stream';
import { createGzip, createZstdCompress } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StoredVersion } from '../storage/index.ts';
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
import { STATUS_TEXT, httpError, notModified, preconditionFailed, storageErrorResponse } from './responses.ts';

const JSONL = 'application/jsonl';
const METAS_PARAMS = new Set(['schema', 'package', 'name']);

/** Serves `/catalogs/<name>/api/v1/all` for an existing version. */
export function serveAll(req: FastifyRequest, reply: FastifyReply, v: StoredVersion): FastifyReply {
  reply.header('content-type', JSONL).header('last-modified', formatHttpDate(v.modTime));
  const pre = evaluatePreconditions(req.headers, v.modTime);
  if (pre === 'not-modified') return notModified(reply);
  if (pre === 'precondition-failed') return preconditionFailed(reply);

  const size = v.sizes.jsonl;
  reply.header('accept-ranges', 'bytes');
  const ranges = ifRangeAllows(req.headers, v.modTime) ? parseRange(header(req.headers, 'range'), size) : undefined;
  if (ranges === 'invalid') return httpError(reply, 416, 'invalid range');
  if (ranges === 'unsatisfiable') {
    reply.header('content-range', `bytes */${size}`);
    return httpError(reply, 416, 'invalid range: failed to overlap');
  }
  if (ranges !== undefined && ranges.length === 1) {
    const [r] = ranges;
    if (r === undefined) return httpError(reply, 500, STATUS_TEXT.internal);
    reply.code(206).header('content-range', `bytes ${r.start}-${r.end - 1}/${size}`).header('content-length', r.end - r.start);
    return send(req, reply, () => createReadStream(v.path('jsonl'), { start: r.start, end: r.end - 1 }));
  }
  if (ranges !== undefined) return serveMultipart(req, reply, v, ranges, size);

  const coding: Coding = req.method === 'GET' && size >= MIN_COMPRESS_SIZE ? negotiateCoding(header(req.headers, 'accept-encoding')) : 'identity';
  if (coding === 'identity') {
    reply.header('content-length', size);
    return send(req, reply, () => createReadStream(v.path('jsonl')));
  }
  reply.removeHeader('accept-ranges');
  reply.header('content-encoding', coding).header('content-length', coding === 'gzip' ? v.sizes.gzip : v.sizes.zstd);
  return send(req, reply, () => createReadStream(v.path(coding)));
}

function serveMultipart(
  req: FastifyRequest,
  reply: FastifyReply,
  v: StoredVersion,
  ranges: Array<{ start: number; end: number }>,
  size: number,
): FastifyReply {
  const boundary = Buffer.from(crypto.getRandomValues(new Uint8Array(30))).toString('hex');
  const parts = ranges.map((r, i) => ({
    head: `${i === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Range: bytes ${r.start}-${r.end - 1}/${size}\r\nContent-Type: ${JSONL}\r\n\r\n`,
    range: r,
  }));
  const tail = `\r\n--${boundary}--\r\n`;
  const length = parts.reduce((n, p) => n + Buffer.byteLength(p.head) + (p.range.end - p.range.start), 0) + tail.length;
  reply.code(206).header('content-type', `multipart/byteranges; boundary=${boundary}`).header('content-length', length);
  return send(req, reply, () =>
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
export async function serveMetas(req: FastifyRequest, reply: FastifyReply, v: StoredVersion | undefined, rawQuery: string): Promise<FastifyReply> {
  const query = { schema: '', package: '', name: '' };
  const seen = new Set<string>();
  for (const [key, value] of new URLSearchParams(rawQuery)) {
    if (!METAS_PARAMS.has(key)) return httpError(reply, 400, STATUS_TEXT.badRequest);
    if (seen.has(key)) continue; // the first value wins, as in Go's Query().Get
    seen.add(key);
    query[key as keyof typeof query] = value;
  }
  if (v === undefined) return httpError(reply, 404, STATUS_TEXT.notFound);
  reply.header('last-modified', formatHttpDate(v.modTime));
  const pre = evaluatePreconditions(req.headers, v.modTime);
  if (pre === 'not-modified') return notModified(reply);
  if (pre === 'precondition-failed') return preconditionFailed(reply);

  const whole = query.schema === '' && query.package === '' && query.name === '';
  let ranges;
  try {
    ranges = whole ? [{ offset: 0, length: v.sizes.jsonl }] : (await v.index()).lookup(query);
  } catch (err) {
    return storageErrorResponse(reply, err);
  }
  reply.header('content-type', JSONL);
  if (req.method === 'HEAD') return reply.send();
  const total = ranges.reduce((n, r) => n + r.length, 0);
  const coding = total >= MIN_COMPRESS_SIZE ? negotiateCoding(header(req.headers, 'accept-encoding')) : 'identity';
  if (coding !== 'identity') reply.header('content-encoding', coding);
  if (whole && coding !== 'identity') return reply.send(createReadStream(v.path(coding)));
  const body = Readable.from(v.readRanges(ranges));
  if (coding === 'identity') return reply.send(body);
  const compressor = coding === 'gzip' ? createGzip({ level: 1 }) : createZstdCompress();
  // pipeline destroys the compressor when a read fails, which aborts the response.
  pipeline(body, compressor, () => undefined);
  return reply.send(compressor);
}

function send(req: FastifyRequest, reply: FastifyReply, body: () => Readable): FastifyReply {
  if (req.method === 'HEAD') return reply.send();
  return reply.send(body());
}
