/**
 * The probe endpoint of a component, on its own port: `/healthz` (liveness), `/readyz`
 * (readiness: checks components register) and, only when given a registry, `/metrics` without
 * authentication (the components' `--insecure-metrics`, for local stacks and tests; on a cluster
 * metrics are served by MetricsServer, over HTTPS to authorized callers only).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { http } from '../nodehttp/index.ts';
import { boundPort, close, guardedListener, listen } from './listening.ts';
import { errorMessage } from '../errors/index.ts';

/** A fast check run per probe: true passes; false, a reason string or a throw fails it. */
type HealthCheck = () => boolean | string | Promise<boolean | string>;

/** A readiness check passing once every informer synced, else `informers not synced: a, b`. */
export function informersSynced(informers: ReadonlyArray<{ readonly name: string; readonly hasSynced: boolean }>): HealthCheck {
  return () => {
    const pending = informers.filter((i) => !i.hasSynced).map((i) => i.name);
    return pending.length === 0 ? true : `informers not synced: ${pending.join(', ')}`;
  };
}

/** Construction options of a HealthServer. */
interface HealthServerOptions {
  /** TCP port; 0 picks a free one (see `port` after `start`). */
  port: number;
  /** Bind address (default `0.0.0.0`). */
  host?: string;
  /** Serve `/metrics` from this registry, unauthenticated; absent, `/metrics` is not found. */
  registry?: Registry | undefined;
  log: Logger;
  /** Serve HTTPS with this certificate and key (PEM) instead of plain HTTP. */
  tls?: { cert: string | Buffer; key: string | Buffer };
}

/** See the module comment. Register checks before or after `start`. */
export class HealthServer {
  readonly #o: HealthServerOptions;
  readonly #health = new Map<string, HealthCheck>();
  readonly #ready = new Map<string, HealthCheck>();
  #server: Server | https.Server | undefined;

  constructor(options: HealthServerOptions) {
    this.#o = options;
    this.#health.set('ping', () => true);
    this.#ready.set('ping', () => true);
  }

  /** Adds (or replaces) a readiness check shown on `/readyz`. */
  addReadinessCheck(name: string, check: HealthCheck): void {
    this.#ready.set(name, check);
  }

  /** The bound port (after `start`). */
  get port(): number {
    return boundPort(this.#server, 'health server');
  }

  /** Starts listening; rejects when the port cannot be bound. */
  async start(): Promise<void> {
    if (this.#server !== undefined) throw new Error('the health server is already started');
    const listener = guardedListener((req, res) => this.#handle(req, res), this.#o.log, 'health endpoint failed');
    const tls = this.#o.tls;
    const server = tls === undefined ? http.createServer(listener) : https.createServer({ cert: tls.cert, key: tls.key }, listener);
    this.#server = server;
    await listen(server, this.#o.port, this.#o.host ?? '0.0.0.0');
  }

  /** Stops listening and closes idle connections. */
  async stop(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    this.#server = undefined;
    await close(server);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('method not allowed\n');
      return;
    }
    const registry = this.#o.registry;
    if (url.pathname === '/metrics' && registry !== undefined) {
      const body = await registry.metrics();
      res.writeHead(200, { 'Content-Type': registry.contentType });
      res.end(body);
      return;
    }
    const checks = url.pathname === '/healthz' ? this.#health : url.pathname === '/readyz' ? this.#ready : undefined;
    if (checks === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('not found\n');
      return;
    }
    const { ok, report } = await runChecks(checks);
    const verbose = url.searchParams.has('verbose');
    res.writeHead(ok ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    const name = url.pathname.slice(1);
    if (ok && !verbose) res.end('ok');
    else res.end(`${report}${name} check ${ok ? 'passed' : 'failed'}\n`);
  }
}

// One line per check, `[+]name ok` or `[-]name failed: reason`, as Kubernetes' healthz does.
async function runChecks(checks: Map<string, HealthCheck>): Promise<{ ok: boolean; report: string }> {
  let ok = true;
  let report = '';
  for (const [name, check] of checks) {
    let outcome: boolean | string;
    try {
      outcome = await check();
    } catch (err) {
      outcome = errorMessage(err) ?? String(err);
    }
    if (outcome === true) {
      report += `[+]${name} ok\n`;
      continue;
    }
    ok = false;
    report += `[-]${name} failed: ${outcome === false ? 'reason withheld' : outcome}\n`;
  }
  return { ok, report };
}
