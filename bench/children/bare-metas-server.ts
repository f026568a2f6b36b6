/**
 * Benchmark child, for comparison only: package queries (`/api/v1/metas?package=P`, nothing
 * else) answered by a bare `node:http` handler over the same store, index, answer buffers and
 * precompressed package answers as catalogd's server, with a duration histogram. It skips what
 * the real server also does per request (path cleaning, name validation, query parsing,
 * conditional requests, the debug log), sends the few answers above WHOLE_RESPONSE_MAX whole
 * instead of streaming them, and answers everything else 404, so its figures bound what that
 * request handling costs per answer (decisions 0087, 0095). Not a server to ship.
 *
 * Usage: node bare-metas-server.ts NAME=DIR [NAME=DIR ...] --listen 127.0.0.1:0
 * Ingests each directory like `olmv1 catalog serve`, then prints
 * `serving http://HOST:PORT/catalogs/NAME/` on stderr per catalog.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Histogram, Registry } from 'prom-client';
import { http } from '../../pkg/shared/nodehttp/index.ts';
import { AnswerBuffers } from '../../pkg/catalogd/server/answer-buffers.ts';
import { WHOLE_RESPONSE_MAX } from '../../pkg/catalogd/server/handlers.ts';
import { GZIP_FRAME_HEAD, GZIP_FRAME_TAIL, frameDeflateInPlace } from '../../pkg/catalogd/storage/index.ts';
import { listenAndAnnounce, runServer, serveArgs, storeCatalogs } from '../lib/bare-server.ts';

const QUERY = /^\/catalogs\/([^/]+)\/api\/v1\/metas\?package=([^&]*)$/;
const FRAMING = GZIP_FRAME_HEAD + GZIP_FRAME_TAIL;

runServer(async () => {
  const args = serveArgs(process.argv.slice(2));
  const { store, remove } = await storeCatalogs(args.catalogs);
  const duration = new Histogram({
    name: 'bare_request_duration_seconds',
    help: 'request duration',
    labelNames: ['code'],
    registers: [new Registry()],
  });
  const buffers = new AnswerBuffers([
    { size: (64 << 10) + FRAMING, keep: 16 },
    { size: WHOLE_RESPONSE_MAX + FRAMING, keep: 8 },
  ]);

  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<number> => {
    const m = QUERY.exec(req.url ?? '');
    const version = m === null ? undefined : store.get(m[1] ?? '');
    if (m === null || version === undefined || req.method !== 'GET') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
      return 404;
    }
    const pkg = decodeURIComponent(m[2] ?? '');
    const index = await version.index();
    const ranges = index.lookup({ schema: '', package: pkg, name: '' });
    const total = ranges.reduce((n, r) => n + r.length, 0);
    const gzip = String(req.headers['accept-encoding'] ?? '').includes('gzip') ? index.packageGzip(pkg) : undefined;
    const headers: Record<string, string | number> = {
      'content-type': 'application/jsonl',
      'last-modified': version.modTime.toUTCString(),
      vary: 'Accept-Encoding',
    };
    let lease;
    let body: Buffer;
    if (gzip !== undefined && gzip.size === total) {
      lease = buffers.lease(GZIP_FRAME_HEAD + gzip.length + GZIP_FRAME_TAIL);
      await version.readRangesInto('gzip', [{ offset: gzip.offset, length: gzip.length }], lease.buf, GZIP_FRAME_HEAD);
      body = frameDeflateInPlace(lease.buf, gzip.length, gzip.crc, gzip.size);
      headers['content-encoding'] = 'gzip';
    } else {
      lease = buffers.lease(total);
      body = await version.readRangesInto('jsonl', ranges, lease.buf, 0);
    }
    headers['content-length'] = body.length;
    res.writeHead(200, headers);
    res.once('finish', lease.release);
    res.end(body);
    return 200;
  };

  const server = http.createServer((req, res) => {
    const start = performance.now();
    answer(req, res).then(
      (code) => duration.observe({ code: String(code) }, (performance.now() - start) / 1000),
      (err: unknown) => res.destroy(err as Error),
    );
  });
  await listenAndAnnounce(server, args, remove);
});
