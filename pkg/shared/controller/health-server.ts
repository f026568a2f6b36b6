/**
 * The probe endpoint of a component, on its own port: `/healthz` (liveness), `/readyz`
 * (readiness: checks components register) and, only when given a registry, `/metrics` without
 * authentication (the components' `--insecure-metrics`, for local stacks and tests; on a cluster
 * metrics are served by MetricsServer, over HTTPS to authorized callers only).
 *
 * The port is served by a worker thread (health-worker.ts, decision 0136), so that a main thread
 * busy with a long slice of work does not look dead: `/healthz` is answered there and fails only
 * when this thread's heartbeat (a timestamp it stores every second) is older than the stall
 * limit. `/readyz` and `/metrics` are forwarded here and fail when not answered in time.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Answer, FromWorker, HealthWorkerData } from './health-protocol.ts';
import { type CheckOutcome, probeAnswer } from './health-report.ts';
import { errorMessage } from '../errors/index.ts';

// Same extension as this module: `.ts` when run from source, `.js` in the built image.
const WORKER = new URL(`./health-worker${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url);

/** `/healthz` fails once the main thread has not beaten for this long (ms): its event loop is wedged. */
const STALL_LIMIT_MS = 60_000;
/** A forwarded `/readyz` or `/metrics` not answered by the main thread in this long is answered 500 (ms). */
const FORWARD_TIMEOUT_MS = 5_000;
/** How often the main thread beats (ms), at most. */
const HEARTBEAT_MS = 1_000;

const TEXT = 'text/plain; charset=utf-8';

/** A fast check run per probe: true passes; false, a reason string or a throw fails it. */
type HealthCheck = () => CheckOutcome | Promise<CheckOutcome>;

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
  /** `/healthz` fails once the main thread's event loop has not turned for this long (ms; default 60 s). */
  stallLimitMs?: number;
  /** `/readyz` and `/metrics` fail when the main thread does not answer them in this long (ms; default 5 s). */
  forwardTimeoutMs?: number;
}

/** See the module comment. Register checks before or after `start`. */
export class HealthServer {
  readonly #o: HealthServerOptions;
  readonly #ready = new Map<string, HealthCheck>();
  readonly #heartbeat = new BigInt64Array(new SharedArrayBuffer(8));
  #worker: Worker | undefined;
  #port: number | undefined;
  #beating: ReturnType<typeof setInterval> | undefined;

  constructor(options: HealthServerOptions) {
    this.#o = options;
    this.#ready.set('ping', () => true);
  }

  /** Adds (or replaces) a readiness check shown on `/readyz`. */
  addReadinessCheck(name: string, check: HealthCheck): void {
    this.#ready.set(name, check);
  }

  /** The bound port (after `start`). */
  get port(): number {
    if (this.#port === undefined) throw new Error('the health server is not listening');
    return this.#port;
  }

  /** Starts listening; rejects when the port cannot be bound. */
  async start(): Promise<void> {
    if (this.#worker !== undefined) throw new Error('the health server is already started');
    const stallLimitMs = this.#o.stallLimitMs ?? STALL_LIMIT_MS;
    const tls = this.#o.tls;
    const data: HealthWorkerData = {
      port: this.#o.port,
      host: this.#o.host ?? '0.0.0.0',
      tls: tls === undefined ? undefined : { cert: tls.cert.toString(), key: tls.key.toString() },
      metrics: this.#o.registry !== undefined,
      heartbeat: this.#heartbeat.buffer as SharedArrayBuffer,
      stallLimitMs,
      forwardTimeoutMs: this.#o.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS,
    };
    this.#beat();
    // A small heap: the worker holds a server and, for a moment, a forwarded answer.
    const worker = new Worker(WORKER, {
      name: 'health-server',
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 },
    });
    this.#worker = worker;
    try {
      this.#port = await listening(worker);
    } catch (err) {
      this.#worker = undefined;
      await worker.terminate();
      throw err;
    }
    worker.on('message', (msg: FromWorker) => this.#received(worker, msg));
    worker.on('error', (err) => this.#o.log.error({ err }, 'health server worker failed'));
    worker.on('exit', (code) => {
      if (this.#worker === worker) this.#o.log.error({ code }, 'health server worker exited');
    });
    this.#beating = setInterval(() => this.#beat(), Math.min(HEARTBEAT_MS, stallLimitMs / 4));
    this.#beating.unref();
  }

  /** Stops listening: ends the worker, which closes the port and its connections. */
  async stop(): Promise<void> {
    const worker = this.#worker;
    if (worker === undefined) return;
    this.#worker = undefined;
    this.#port = undefined;
    clearInterval(this.#beating);
    await worker.terminate();
  }

  #beat(): void {
    Atomics.store(this.#heartbeat, 0, process.hrtime.bigint());
  }

  #received(worker: Worker, msg: FromWorker): void {
    if (msg.kind === 'failed') this.#o.log.error({ err: msg.message, url: msg.url }, 'health endpoint failed');
    else if (msg.kind === 'forward')
      void this.#answer(msg.path, msg.verbose).then((a) => worker.postMessage({ kind: 'answer', id: msg.id, ...a } satisfies Answer));
  }

  async #answer(path: '/readyz' | '/metrics', verbose: boolean): Promise<Omit<Answer, 'kind' | 'id'>> {
    try {
      const registry = this.#o.registry;
      if (path === '/metrics' && registry !== undefined) return { status: 200, contentType: registry.contentType, body: await registry.metrics() };
      return { ...probeAnswer('readyz', await runChecks(this.#ready), verbose), contentType: TEXT };
    } catch (err) {
      this.#o.log.error({ err, url: path }, 'health endpoint failed');
      return { status: 500, contentType: TEXT, body: 'internal error\n' };
    }
  }
}

// The worker's first word: its port, or why it could not listen (Node's listen error, rebuilt).
function listening(worker: Worker): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const done = (): void => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (msg: FromWorker): void => {
      if (msg.kind === 'listening') resolve(msg.port);
      else if (msg.kind === 'listen-failed') reject(Object.assign(new Error(msg.message), msg.code === undefined ? {} : { code: msg.code }));
      else return;
      done();
    };
    const onError = (err: Error): void => {
      done();
      reject(new Error('the health server worker failed to start', { cause: err }));
    };
    const onExit = (code: number): void => {
      done();
      reject(new Error(`the health server worker exited with code ${code} before listening`));
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}

// Every check's outcome, in order; a throw fails the check with its message.
async function runChecks(checks: Map<string, HealthCheck>): Promise<Array<[string, CheckOutcome]>> {
  const outcomes: Array<[string, CheckOutcome]> = [];
  for (const [name, check] of checks) {
    try {
      outcomes.push([name, await check()]);
    } catch (err) {
      outcomes.push([name, errorMessage(err)]);
    }
  }
  return outcomes;
}
