/**
 * catalogd's admission webhook server: HTTPS, upstream's one path, AdmissionReview v1 answered
 * by label-defaulter.ts. The API server fails the write closed after `timeoutSeconds` (10 s), so
 * a request must arrive whole within 10 s and its body is at most MAX_REVIEW_BYTES. The body is
 * scanned as it arrives (pkg/shared/jsonbounds) and refused at the first byte past REVIEW_BOUNDS,
 * before JSON.parse could spend seconds on it (issue 60 item 4, decision 0113). Answers: 404 other
 * paths, 405 other methods, 415 non-JSON Content-Type, 413 past the size bound, 400 past the
 * shape bounds, not JSON or not an AdmissionReview v1, else 200 with the review.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Server, createServer } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import { type JsonBoundFailure, type JsonBounds, JsonBoundsScanner } from '../../shared/jsonbounds/index.ts';
import { CLUSTER_CATALOG_MUTATE_PATH, reviewClusterCatalog } from './label-defaulter.ts';

/**
 * The largest request body read: an update's review holds the object and the old object, each
 * at most the API server's 3 MiB request limit, plus the review's own fields.
 */
const MAX_REVIEW_BYTES = 7 << 20;
/**
 * The shape of any AdmissionReview of a ClusterCatalog fits with a wide margin: it nests about 13
 * deep (managedFields' fieldsV1, under request.object.metadata.managedFields[], mirrors the
 * object), and its containers are the object's few maps and lists plus one per managed field (a
 * few hundred for a catalog with many labels; unknown fields are pruned before admission).
 * Kubernetes' decoder allows depth 10000; with that, 7 MiB of `[` took 9.4 s of catalogd's event
 * loop, and at any depth 7 MiB of `[],` takes 0.6-1.2 s and 130-240 MB (decision 0113).
 */
const REVIEW_BOUNDS = { maxDepth: 64, maxContainers: 100_000 } as const satisfies JsonBounds;
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

/** What reading a body gave: the bytes, or the bound it passed. */
type BodyRead = { kind: 'body'; bytes: Buffer } | { kind: 'too-large' } | { kind: 'out-of-bounds'; failure: JsonBoundFailure };

/**
 * Reads the body up to `limit` bytes, scanning its JSON shape as it arrives. Past `limit` it stops
 * reading (the caller closes the connection). Past a shape bound it resolves at once, so the answer
 * goes out while the client may still be sending, and discards the rest as it arrives (closing the
 * connection only past `limit`): closing with unread bytes would reset the connection, and the
 * client could lose the answer.
 */
function readBody(req: IncomingMessage, limit: number, bounds: JsonBounds): Promise<BodyRead> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > limit) return resolve({ kind: 'too-large' });
    const scanner = new JsonBoundsScanner(bounds);
    let chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        if (refused) {
          req.destroy();
          return;
        }
        req.removeAllListeners('data');
        req.pause();
        resolve({ kind: 'too-large' });
        return;
      }
      if (refused) return;
      if (!scanner.push(chunk)) {
        refused = true;
        chunks = [];
        resolve({ kind: 'out-of-bounds', failure: scanner.failure ?? 'too-deep' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve({ kind: 'body', bytes: Buffer.concat(chunks, size) }));
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
    const body = await readBody(req, limit, REVIEW_BOUNDS);
    if (body.kind === 'too-large') {
      res.setHeader('Connection', 'close');
      return reply(res, 413, `request body exceeds ${limit} bytes\n`);
    }
    if (body.kind === 'out-of-bounds') {
      const what =
        body.failure === 'too-deep'
          ? `nests deeper than ${REVIEW_BOUNDS.maxDepth} levels`
          : `holds more than ${REVIEW_BOUNDS.maxContainers} arrays and objects`;
      return reply(res, 400, `the request body ${what}\n`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.bytes.toString('utf8'));
    } catch {
      return reply(res, 400, 'the request body is not JSON\n');
    }
    const answer = reviewClusterCatalog(parsed);
    if (answer.kind === 'bad-request') return reply(res, 400, `${answer.message}\n`);
    if (answer.patched) o.log.debug({ uid: answer.review.response.uid }, 'patched the ClusterCatalog name label');
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
