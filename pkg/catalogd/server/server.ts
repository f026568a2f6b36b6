/**
 * catalogd's catalog content HTTP server: a fastify app built from a content source.
 *
 * Routing reproduces upstream's Go ServeMux (reference catalogd-and-fbc.md §3.3): non-clean
 * paths are redirected (301), unknown paths get `404 page not found`, known routes with other
 * methods get 405 without an `Allow` header, `{catalog}` is one percent-decoded path segment and
 * is validated as a DNS-1123 subdomain (400) before storage is touched. Every response carries
 * `Vary: Accept-Encoding`. `/api/v1/metas` is on by default (reference README, difference 4).
 *
 * The caller owns listening (`app.listen`) and TLS (certificate reloads: pkg/shared/controller certificates.ts).
 */
import type { Server as HttpsServer } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { Histogram, type Registry } from 'prom-client';
import { GZIP_FRAME_HEAD, GZIP_FRAME_TAIL, type StoredVersion } from '../storage/index.ts';
import { AnswerBuffers } from './answer-buffers.ts';
import { WHOLE_RESPONSE_MAX, serveAll, serveMetas } from './handlers.ts';
import { dns1123SubdomainErrors } from '../../shared/k8sname/index.ts';
import { cleanPath } from './http-semantics.ts';
import { EVERY_RESPONSE_HEADERS, STATUS_TEXT, httpError } from './responses.ts';

/** What the server reads content from (LocalDirStore satisfies it). */
export interface CatalogContent {
  get(catalog: string): StoredVersion | undefined;
}

export interface CatalogServerOptions {
  content: CatalogContent;
  logger: Logger;
  registry: Registry;
  /** Serve `/api/v1/metas` (default true). */
  metas?: boolean;
  /** Reusable read buffers for answers and streamed bodies; the default keeps up to 3 MiB (ANSWER_SLABS). */
  answerBuffers?: AnswerBuffers;
  /** Key and certificate for HTTPS, with the TLS profile's version, ciphers and curves; absent means plain HTTP. */
  https?: { key: Buffer | string; cert: Buffer | string } & Pick<SecureContextOptions, 'minVersion' | 'ciphers' | 'ecdhCurve'>;
}

const ROUTE = /^\/catalogs\/([^/]+)\/api\/v1\/(all|metas)$/;
const READ_TIMEOUT_MS = 5_000;
// No write timeout while bytes flow: the socket times out only after 5 minutes of inactivity.
const IDLE_TIMEOUT_MS = 5 * 60_000;
// Reused read buffers (answer-buffers.ts): most package answers, gzip members and every read of
// a streamed body (stream-body.ts) fit the small class; the large one holds every answer sent
// whole, with room for gzip framing. Kept at most: 16 x 64 KiB + 8 x 256 KiB, 3 MiB, touched only as far as answers go.
const FRAMING = GZIP_FRAME_HEAD + GZIP_FRAME_TAIL;
const ANSWER_SLABS = [
  { size: (64 << 10) + FRAMING, keep: 16 },
  { size: WHOLE_RESPONSE_MAX + FRAMING, keep: 8 },
];
const DURATION_BUCKETS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.2, 1.6, 2, 2.4, 2.8, 3.2, 3.6, 4, 10];

/** Builds (but does not start) the catalog server. */
export function buildCatalogServer(opts: CatalogServerOptions): FastifyInstance {
  const log = opts.logger.child({ component: 'catalog-server' });
  const app = Fastify({
    exposeHeadRoutes: false,
    requestTimeout: READ_TIMEOUT_MS,
    connectionTimeout: IDLE_TIMEOUT_MS,
    routerOptions: { maxParamLength: 4096 },
    return503OnClosing: false,
    ...(opts.https === undefined ? {} : { https: { ...opts.https, ALPNProtocols: ['http/1.1'] } }),
  }) as unknown as FastifyInstance<HttpsServer>;
  const duration = new Histogram({
    name: 'catalogd_http_request_duration_seconds',
    help: 'Histogram of request duration in seconds',
    labelNames: ['code'],
    buckets: DURATION_BUCKETS,
    registers: [opts.registry],
  });

  // Accept any request body without parsing: no route reads one, and fastify must not answer
  // 415 before our routing decides between 404 and 405.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));

  // Callback-style hooks: on a path taken by every request, an async hook's promise costs
  // measurable CPU at tens of thousands of requests per second.
  app.addHook('onSend', (_req, reply, payload, done) => {
    reply.headers(EVERY_RESPONSE_HEADERS);
    done(null, payload);
  });
  const debug = log.isLevelEnabled('debug');
  app.addHook('onResponse', (req, reply, done) => {
    duration.observe({ code: String(reply.statusCode) }, reply.elapsedTime / 1000);
    if (debug) log.debug({ method: req.method, uri: req.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'handled request');
    done();
  });
  app.setErrorHandler((err, _req, reply) => {
    log.error({ err }, 'catalog request failed');
    if (reply.sent) return;
    void httpError(reply, 500, STATUS_TEXT.internal);
  });
  const buffers = opts.answerBuffers ?? new AnswerBuffers(ANSWER_SLABS);
  app.setNotFoundHandler((req, reply) => route(req, reply, opts, buffers));
  app.all('/*', (req, reply) => route(req, reply, opts, buffers));
  return app as unknown as FastifyInstance;
}

async function route(req: FastifyRequest, reply: FastifyReply, opts: CatalogServerOptions, buffers: AnswerBuffers): Promise<FastifyReply> {
  const url = req.raw.url ?? '/';
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return httpError(reply, 400, STATUS_TEXT.badRequest);
  }
  const cleaned = cleanPath(path);
  if (cleaned !== path) {
    const location = encodeURI(cleaned) + (q < 0 ? '' : `?${rawQuery}`);
    return reply
      .code(301)
      .header('location', location)
      .header('content-type', 'text/html; charset=utf-8')
      .send(`<a href="${location}">Moved Permanently</a>.\n\n`);
  }
  const m = ROUTE.exec(rawPath);
  if (m === null || (m[2] === 'metas' && opts.metas === false)) return httpError(reply, 404, STATUS_TEXT.notFoundPage);
  if (req.method !== 'GET' && req.method !== 'HEAD') return httpError(reply, 405, STATUS_TEXT.methodNotAllowed);

  let name: string;
  try {
    name = decodeURIComponent(m[1] ?? '');
  } catch {
    return httpError(reply, 400, STATUS_TEXT.badRequest);
  }
  const nameErrors = dns1123SubdomainErrors(name);
  if (nameErrors.length > 0) return httpError(reply, 400, `invalid catalog name: ${nameErrors.join('; ')}`);

  const version = opts.content.get(name);
  if (m[2] === 'metas') return serveMetas(req, reply, version, rawQuery, buffers);
  if (version === undefined) return httpError(reply, 404, STATUS_TEXT.notFound);
  return serveAll(req, reply, version, buffers);
}
