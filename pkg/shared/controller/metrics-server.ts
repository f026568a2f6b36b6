/**
 * The secure metrics endpoint of a component, as controller-runtime's metrics server with
 * `SecureServing` and the authentication/authorization filter: HTTPS only (HTTP/1.1 by ALPN,
 * as upstream turns HTTP/2 off), `/metrics` answered only to callers MetricsAuth lets through,
 * every other path `404 page not found` (Go's ServeMux text). The TLS options (a profile's
 * minimum version, ciphers and curves) are kept across certificate reloads.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { SecureContextTarget } from './certificates.ts';
import type { MetricsAccess } from './metrics-auth.ts';
import { boundPort, close, guardedListener, listen } from './listening.ts';

/** The TLS profile's part of a secure context. */
export type ProfileOptions = Pick<SecureContextOptions, 'minVersion' | 'ciphers' | 'ecdhCurve'>;

/** Construction options of a MetricsServer. */
interface MetricsServerOptions {
  /** TCP port; 0 picks a free one (see `port` after `start`). */
  port: number;
  /** Bind address (default `0.0.0.0`). */
  host?: string;
  registry: Registry;
  log: Logger;
  /** The serving certificate and key (PEM) and the TLS profile's options. */
  tls: { cert: Buffer | string; key: Buffer | string } & ProfileOptions;
  /** Decides each request (MetricsAuth). */
  auth: { check(authorization: string | undefined, method: string, path: string): Promise<MetricsAccess> };
}

// Slow clients get no more than this to send their headers, and a request no more than the
// second bound: the port is reachable by anything in the cluster network.
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 60_000;

/** See the module comment. A SecureContextTarget: hand it to `watchCertificate`. */
export class MetricsServer implements SecureContextTarget {
  readonly #o: MetricsServerOptions;
  #server: https.Server | undefined;

  constructor(options: MetricsServerOptions) {
    this.#o = options;
  }

  /** The bound port (after `start`). */
  get port(): number {
    return boundPort(this.#server, 'metrics server');
  }

  /** Starts listening; rejects when the port cannot be bound or the TLS options do not load. */
  async start(): Promise<void> {
    if (this.#server !== undefined) throw new Error('the metrics server is already started');
    const listener = guardedListener((req, res) => this.#handle(req, res), this.#o.log, 'metrics endpoint failed');
    const server = https.createServer(
      { ...this.#o.tls, ALPNProtocols: ['http/1.1'], headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
      listener,
    );
    this.#server = server;
    await listen(server, this.#o.port, this.#o.host ?? '0.0.0.0');
  }

  /** Installs a new certificate and key, keeping the TLS profile. */
  setSecureContext(pair: { cert: Buffer; key: Buffer }): void {
    const { cert: _cert, key: _key, ...profile } = this.#o.tls;
    this.#server?.setSecureContext({ ...profile, ...pair });
  }

  /** Stops listening and closes idle connections. */
  async stop(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    this.#server = undefined;
    await close(server);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    if (path !== '/metrics') {
      plain(res, 404, '404 page not found');
      return;
    }
    const access = await this.#o.auth.check(req.headers.authorization, req.method ?? 'GET', path);
    if (access.status !== 200) {
      plain(res, access.status, access.message);
      return;
    }
    const body = await this.#o.registry.metrics();
    res.writeHead(200, { 'Content-Type': this.#o.registry.contentType });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}

// Go's http.Error: the message and a newline, as plain text the browser must not sniff.
function plain(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(`${message}\n`);
}
