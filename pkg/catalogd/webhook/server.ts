/**
 * catalogd's admission webhook server: HTTPS, upstream's one path, AdmissionReview v1 answered
 * by label-defaulter.ts. The API server fails the write closed after `timeoutSeconds` (10 s), so
 * a request must arrive whole within 10 s and its body is at most MAX_REVIEW_BYTES. Answers: 404
 * other paths, 405 other methods, 415 non-JSON Content-Type, 413 past the bound, 400 not an
 * AdmissionReview v1, else 200 with the review.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Server, createServer } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import { CLUSTER_CATALOG_MUTATE_PATH, reviewClusterCatalog } from './label-defaulter.ts';

/**
 * The largest request body read: an update's review holds the object and the old object, each
 * at most the API server's 3 MiB request limit, plus the review's own fields.
 */
const MAX_REVIEW_BYTES = 7 << 20;
const REQUEST_TIMEOUT_MS = 10_000;
const KEEP_ALIVE_TIMEOUT_MS = 30_000;

interface WebhookServerOptions {
  /** Certificate, key and the TLS profile's options (minimum version, ciphers, curves). */
  tls: { cert: Buffer | string; key: Buffer | string } & SecureContextOptions;
  log: Logger;
  /** Test hook: a smaller body bound. */
  maxBodyBytes?: number;
}

/** The webhook server: built idle, serving between `listen` and `close`. */
interface WebhookServer {
  readonly server: Server;
  /** Listens on `host:port`; resolves with the bound port. Rejects when the address cannot be bound. */
  listen(address: { host: string; port: number }): Promise<number>;
  /** Replaces the TLS context (certificate reloads). */
  setSecureContext(options: SecureContextOptions): void;
  /** Stops accepting connections and resolves once the open ones have ended. */
  close(): Promise<void>;
}

function reply(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** Reads the body up to `limit` bytes; undefined when it is larger (the rest is not read). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > limit) return resolve(undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

/** Builds the server; `listen` starts it. */
export function buildWebhookServer(o: WebhookServerOptions): WebhookServer {
  const limit = o.maxBodyBytes ?? MAX_REVIEW_BYTES;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== CLUSTER_CATALOG_MUTATE_PATH) return reply(res, 404, '404 page not found\n');
    if (req.method !== 'POST') return reply(res, 405, 'method not allowed\n');
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') return reply(res, 415, `contentType=${type ?? ''}, expected application/json\n`);
    const body = await readBody(req, limit);
    if (body === undefined) {
      res.setHeader('Connection', 'close');
      return reply(res, 413, `request body exceeds ${limit} bytes\n`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return reply(res, 400, 'the request body is not JSON\n');
    }
    const answer = reviewClusterCatalog(parsed);
    if (answer.kind === 'bad-request') return reply(res, 400, `${answer.message}\n`);
    if (answer.patched) o.log.debug({ uid: answer.review.response.uid }, 'set the ClusterCatalog name label');
    reply(res, 200, JSON.stringify(answer.review), 'application/json');
  };
  const server = createServer(
    { ...o.tls, requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        o.log.warn({ err }, 'webhook request failed');
        if (!res.headersSent) reply(res, 500, 'internal error\n');
        else res.destroy();
      });
    },
  );
  return {
    server,
    listen: (address) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(address.port, address.host, () => {
          server.off('error', reject);
          const bound = server.address();
          resolve(typeof bound === 'object' && bound !== null ? bound.port : address.port);
        });
      }),
    setSecureContext: (options) => server.setSecureContext(options),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
