/**
 * catalogd's catalog content HTTP server: one `node:http(s)` handler over a content source
 * (decision 0095). Routing is upstream's Go ServeMux: non-clean paths redirected (301), unknown
 * paths `404 page not found`, other methods 405 without `Allow`, `{catalog}` one percent-decoded
 * segment validated as a DNS-1123 subdomain (400) before storage is touched. Every response
 * carries `Vary: Accept-Encoding`. `/api/v1/metas` is on by default (upstream: a feature gate);
 * `POST /api/v1/graphql` is served when given an engine (graphql-handler.ts).
 *
 * Every answer about a catalog this replica has content for also names the image digest that
 * content is (CATALOG_DIGEST_HEADER), a header upstream does not send; the bodies are upstream's.
 * Each replica serves its own store, so during a catalog update two replicas behind one Service
 * can serve two digests: the header lets a client keep content only under the digest it is
 * (pkg/operator-controller/catalogclient, decision 0131).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import { Histogram, type Registry } from '../../shared/metrics/index.ts';
import { GZIP_FRAME_HEAD, GZIP_FRAME_TAIL, type StoredVersion } from '../storage/index.ts';
import { AnswerBuffers } from './answer-buffers.ts';
import { WHOLE_RESPONSE_MAX, serveAll, serveMetas } from './handlers.ts';
import { dns1123SubdomainErrors } from '../../shared/k8sname/index.ts';
import { cleanPath } from './http-semantics.ts';
import { type GraphqlQueries, serveGraphql } from './graphql-handler.ts';
import { type Response, STATUS_TEXT, answerClientError, httpError, send } from './responses.ts';

interface CatalogServerOptions {
  /** What content is read from (LocalDirStore satisfies it). */
  content: { get(catalog: string): StoredVersion | undefined };
  logger: Logger;
  registry: Registry;
  /** Serve `/api/v1/metas` (default true). */
  metas?: boolean;
  /** Serve `POST /api/v1/graphql` with this engine (the GraphQLCatalogQueries gate); absent: 404 as upstream. */
  graphql?: GraphqlQueries;
  /** Reusable read buffers for answers and streamed bodies; the default keeps up to 3 MiB (ANSWER_SLABS). */
  answerBuffers?: AnswerBuffers;
  /** Key and certificate for HTTPS, with the TLS profile's version, ciphers and curves; absent means plain HTTP. */
  https?: { key: Buffer | string; cert: Buffer | string } & Pick<SecureContextOptions, 'minVersion' | 'ciphers' | 'ecdhCurve'>;
}

/** The catalog server: built idle, serving between `listen` and `close`. */
export interface CatalogServer {
  /** The server that listens on the address given to `listen`. */
  readonly server: Server;
  /**
   * Listens on `host:port` (`localhost`: every address it resolves to) and resolves with the
   * origin clients use (`[HOST]` for IPv6; for `0.0.0.0` this host's first IPv4 address).
   */
  listen(address: { host: string; port: number }): Promise<string>;
  /** Replaces the TLS context of an HTTPS server (certificate reloads); does nothing on plain HTTP. */
  setSecureContext(options: SecureContextOptions): void;
  /** Stops accepting connections, closes idle ones, and resolves once the open ones have ended. */
  close(): Promise<void>;
}

/**
 * The response header naming the image digest (`sha256:<hex>`, the digest of
 * `status.resolvedSource.image.ref`) of the content this replica serves for the catalog asked
 * about. operator-controller's catalog client reads it under the same name.
 */
const CATALOG_DIGEST_HEADER = 'olmv1-catalog-digest';

const ROUTE = /^\/catalogs\/([^/]+)\/api\/v1\/(all|metas|graphql)$/;
// A request must arrive whole within 5 s; a connection times out after 5 minutes without
// activity. Idle keep-alive connections are kept 72 s, longer than load balancers' usual 60 s,
// so the balancer closes an idle one, never the server just as a request arrives on it.
const READ_TIMEOUT_MS = 5_000;
const CHECK_INTERVAL_MS = 1_000;
const IDLE_TIMEOUT_MS = 5 * 60_000;
const KEEP_ALIVE_TIMEOUT_MS = 72_000;
// Reused read buffers (answer-buffers.ts): most package answers and gzip members fit the small
// class; the large one holds every answer sent whole (with gzip framing) and every full read of
// a streamed body. At most 16 x 64 KiB + 32 x 256 KiB kept: fewer sends concurrent large
// answers into fresh buffers, whose pages fault in anew each time (decision 0099).
const FRAMING = GZIP_FRAME_HEAD + GZIP_FRAME_TAIL;
const ANSWER_SLABS = [
  { size: (64 << 10) + FRAMING, keep: 16 },
  { size: WHOLE_RESPONSE_MAX + FRAMING, keep: 32 },
];
const DURATION_BUCKETS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.2, 1.6, 2, 2.4, 2.8, 3.2, 3.6, 4, 10];

/** Builds (but does not start) the catalog server. */
export function buildCatalogServer(opts: CatalogServerOptions): CatalogServer {
  const log = opts.logger.child({ component: 'catalog-server' });
  const duration = new Histogram({
    name: 'catalogd_http_request_duration_seconds',
    help: 'Histogram of request duration in seconds',
    labelNames: ['code'],
    buckets: DURATION_BUCKETS,
    registers: [opts.registry],
  });
  const buffers = opts.answerBuffers ?? new AnswerBuffers(ANSWER_SLABS);
  const debug = log.isLevelEnabled('debug');

  const handle = (req: IncomingMessage, res: Response): void => {
    const start = performance.now();
    const done = (): void => {
      res.off('finish', done);
      res.off('error', done);
      const ms = performance.now() - start;
      duration.observe({ code: String(res.statusCode) }, ms / 1000);
      if (debug) log.debug({ method: req.method, uri: req.url, status: res.statusCode, ms: Math.round(ms) }, 'handled request');
    };
    res.on('finish', done);
    res.on('error', done);
    let routed: void | Promise<void>;
    try {
      routed = route(req, res, opts, buffers);
    } catch (err) {
      routed = Promise.reject(err);
    }
    if (routed !== undefined) routed.catch((err: unknown) => failed(res, err));
  };
  const failed = (res: Response, err: unknown): void => {
    if (res.writableEnded) return;
    log.error({ err }, 'catalog request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    httpError(res, 500, STATUS_TEXT.internal);
  };

  // Each listening address has a server of its own (more than one only for `localhost`).
  const servers: Array<Server | HttpsServer> = [];
  const createServer = (): Server | HttpsServer => {
    // Not ES imports of node:http(s): see pkg/shared/nodehttp/http.ts. The request timeout is
    // enforced on a sweep, every 30 s by default: a slow client could hold a connection 35 s.
    const timeouts = { requestTimeout: READ_TIMEOUT_MS, headersTimeout: READ_TIMEOUT_MS, connectionsCheckingInterval: CHECK_INTERVAL_MS };
    const server =
      opts.https === undefined
        ? process.getBuiltinModule('node:http').createServer(timeouts, handle)
        : process.getBuiltinModule('node:https').createServer({ ...opts.https, ...timeouts, ALPNProtocols: ['http/1.1'] }, handle);
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    server.setTimeout(IDLE_TIMEOUT_MS);
    server.on('clientError', answerClientError);
    servers.push(server);
    return server;
  };
  const main = createServer();
  const scheme = opts.https === undefined ? 'http' : 'https';

  return {
    server: main,
    async listen({ host, port }) {
      const bound = await listenOn(main, host, port);
      if (host === 'localhost') {
        // The other addresses localhost resolves to (127.0.0.1 and ::1), on the same port;
        // one that cannot be bound is left out.
        const addresses = await process
          .getBuiltinModule('node:dns')
          .promises.lookup(host, { all: true })
          .catch(() => []);
        for (const { address } of addresses) {
          if (address !== bound.address) await listenOn(createServer(), address, bound.port).catch(() => undefined);
        }
      }
      return `${scheme}://${originHost(bound.address)}:${bound.port}`;
    },
    setSecureContext(options) {
      for (const server of servers) if ('setSecureContext' in server) server.setSecureContext(options);
    },
    async close() {
      await Promise.all(
        servers.map((server) => {
          if (!server.listening) return undefined;
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          server.closeIdleConnections();
          return closed;
        }),
      );
    },
  };
}

function listenOn(server: Server | HttpsServer, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ host, port });
  });
}

/** The host part of the origin for a bound address (see CatalogServer.listen). */
function originHost(address: string): string {
  if (address.includes(':')) return `[${address}]`;
  if (address !== '0.0.0.0') return address;
  const ipv4 = Object.values(process.getBuiltinModule('node:os').networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((i) => i.family === 'IPv4');
  return (ipv4.find((i) => i.internal) ?? ipv4[0])?.address ?? address;
}

function route(req: IncomingMessage, res: Response, opts: CatalogServerOptions, buffers: AnswerBuffers): void | Promise<void> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return httpError(res, 400, STATUS_TEXT.badRequest);
  }
  const cleaned = cleanPath(path);
  if (cleaned !== path) {
    const location = encodeURI(cleaned) + (q < 0 ? '' : `?${rawQuery}`);
    res.statusCode = 301;
    res.setHeader('location', location);
    res.setHeader('content-type', 'text/html; charset=utf-8');
    return send(res, `<a href="${location}">Moved Permanently</a>.\n\n`);
  }
  const m = ROUTE.exec(rawPath);
  if (m === null || (m[2] === 'metas' && opts.metas === false) || (m[2] === 'graphql' && opts.graphql === undefined)) {
    return httpError(res, 404, STATUS_TEXT.notFoundPage);
  }
  const allowed = m[2] === 'graphql' ? req.method === 'POST' : req.method === 'GET' || req.method === 'HEAD';
  if (!allowed) return httpError(res, 405, STATUS_TEXT.methodNotAllowed);

  let name: string;
  try {
    name = decodeURIComponent(m[1] ?? '');
  } catch {
    return httpError(res, 400, STATUS_TEXT.badRequest);
  }
  const nameErrors = dns1123SubdomainErrors(name);
  if (nameErrors.length > 0) return httpError(res, 400, `invalid catalog name: ${nameErrors.join('; ')}`);

  const version = opts.content.get(name);
  if (version !== undefined) res.setHeader(CATALOG_DIGEST_HEADER, version.info.digest);
  if (m[2] === 'graphql' && opts.graphql !== undefined) return serveGraphql(req, res, version, opts.graphql);
  if (m[2] === 'metas') return serveMetas(req, res, version, rawQuery, buffers);
  if (version === undefined) return httpError(res, 404, STATUS_TEXT.notFound);
  return serveAll(req, res, version, buffers);
}
