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
 *
 * On Linux the port is first served by this thread, with SO_REUSEPORT, while the worker (a
 * second Node environment, 40-70 ms of start) boots, and closed here once the worker listens on
 * it too: `start()` resolves when the port answers, and readiness is not held back by the
 * worker's start (decision 0153). Elsewhere `start()` waits for the worker.
 */
import type * as NodeHttp from 'node:http';
import type * as NodeHttps from 'node:https';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Answer, FromWorker, HealthWorkerData } from './health-protocol.ts';
import { probeListener } from './health-answer.ts';
import { type CheckOutcome, probeAnswer, seconds } from './health-report.ts';
import { boundPort, close, listen } from './listening.ts';
import { errorMessage } from '../errors/index.ts';

// Same extension as this module: `.ts` when run from source, `.js` in the built image.
const WORKER = new URL(`./health-worker${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url);

/** `/healthz` fails once the main thread has not beaten for this long (ms): its event loop is wedged. */
const STALL_LIMIT_MS = 60_000;
/** A forwarded `/readyz` or `/metrics` not answered by the main thread in this long is answered 500 (ms). */
const FORWARD_TIMEOUT_MS = 5_000;
/** Where this thread serves the port first: the longest the worker's start waits for `workerAfter` (ms). */
const WORKER_AT_THE_LATEST_MS = 2_000;
/**
 * How often the main thread beats (ms), at most: a quarter of the default stall limit, so a
 * turning loop's beat is never older than 15 s against the limit's 60 s. Each beat wakes an idle
 * process, which is charged per wake-up (bench/results/runtimes.md, 2026-11-29 15:10).
 */
const HEARTBEAT_MS = 15_000;

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
  /** The port served by this thread until the worker listens (Linux). */
  #early: NodeHttp.Server | undefined;
  #workerListening: Promise<void> = Promise.resolve();
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

  /** Resolves once the worker serves the port (at once where this thread never served it). */
  get workerListening(): Promise<void> {
    return this.#workerListening;
  }

  /**
   * Starts listening; rejects when the port cannot be bound. Where this thread serves the port
   * first (Linux), the worker starts once `workerAfter` settles (operator-controller: its
   * informers' sync), at the latest `WORKER_AT_THE_LATEST_MS` after this call, so that its start
   * does not take CPU from what readiness waits for; elsewhere at once.
   */
  async start(options: { workerAfter?: Promise<unknown> } = {}): Promise<void> {
    if (this.#worker !== undefined || this.#early !== undefined) throw new Error('the health server is already started');
    const stallLimitMs = this.#o.stallLimitMs ?? STALL_LIMIT_MS;
    const tls = this.#o.tls;
    const host = this.#o.host ?? '0.0.0.0';
    this.#beat();
    const early = process.platform === 'linux' ? await this.#listenHere(host, stallLimitMs) : undefined;
    const data: HealthWorkerData = {
      port: early?.port ?? this.#o.port,
      host,
      tls: tls === undefined ? undefined : { cert: tls.cert.toString(), key: tls.key.toString() },
      metrics: this.#o.registry !== undefined,
      heartbeat: this.#heartbeat.buffer as SharedArrayBuffer,
      stallLimitMs,
      forwardTimeoutMs: this.#o.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS,
      reusePort: early !== undefined,
    };
    this.#beating = setInterval(() => this.#beat(), Math.min(HEARTBEAT_MS, stallLimitMs / 4));
    this.#beating.unref();
    if (early === undefined) {
      const worker = this.#startWorker(data);
      try {
        this.#port = await listening(worker);
      } catch (err) {
        this.#worker = undefined;
        clearInterval(this.#beating);
        await worker.terminate();
        throw err;
      }
      return;
    }
    this.#port = early.port;
    let latest: ReturnType<typeof setTimeout> | undefined;
    const due = Promise.race([
      (options.workerAfter ?? Promise.resolve()).catch(() => undefined),
      new Promise<void>((resolve) => {
        latest = setTimeout(resolve, WORKER_AT_THE_LATEST_MS);
        latest.unref();
      }),
    ]);
    // This thread goes on serving the port when the worker cannot (logged): the probes still answer.
    this.#workerListening = due.then(async () => {
      clearTimeout(latest);
      if (this.#early === undefined) return; // stopped meanwhile
      const worker = this.#startWorker(data);
      try {
        await listening(worker);
      } catch (err) {
        if (this.#early === undefined) return; // stopped while it started
        this.#o.log.error({ err }, 'health server worker failed');
        this.#worker = undefined;
        await worker.terminate();
        return;
      }
      await this.#closeEarly();
    });
  }

  // A small heap: the worker holds a server and, for a moment, a forwarded answer.
  #startWorker(data: HealthWorkerData): Worker {
    const worker = new Worker(WORKER, {
      name: 'health-server',
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 },
    });
    this.#worker = worker;
    worker.on('message', (msg: FromWorker) => this.#received(worker, msg));
    worker.on('error', (err) => this.#o.log.error({ err }, 'health server worker failed'));
    worker.on('exit', (code) => {
      if (this.#worker === worker) this.#o.log.error({ code }, 'health server worker exited');
    });
    return worker;
  }

  /** Stops listening: ends the worker, which closes the port and its connections. */
  async stop(): Promise<void> {
    const worker = this.#worker;
    if (worker === undefined && this.#early === undefined) return;
    this.#worker = undefined;
    this.#port = undefined;
    clearInterval(this.#beating);
    await Promise.all([worker?.terminate(), this.#closeEarly()]);
  }

  // Serves the port on this thread with SO_REUSEPORT, which the worker binds too; rejects with Node's listen error.
  async #listenHere(host: string, stallLimitMs: number): Promise<{ port: number }> {
    const handle = probeListener({
      eventLoop: () => {
        const ageMs = Number(process.hrtime.bigint() - Atomics.load(this.#heartbeat, 0)) / 1e6;
        return ageMs <= stallLimitMs ? true : `no heartbeat from the event loop for ${seconds(ageMs)} (limit ${seconds(stallLimitMs, 3)})`;
      },
      metrics: this.#o.registry !== undefined,
      answer: (path, verbose) => this.#answer(path, verbose),
      failed: (message, url) => this.#o.log.error({ err: message, url }, 'health endpoint failed'),
    });
    // No connection outlives its answer here: one kept alive would be closed at the handover
    // while its client may be sending on it, and that request would be reset.
    const once: typeof handle = (req, res) => {
      res.setHeader('Connection', 'close');
      handle(req, res);
    };
    const tls = this.#o.tls;
    const server =
      tls === undefined
        ? (process.getBuiltinModule('node:http') as typeof NodeHttp).createServer(once)
        : (process.getBuiltinModule('node:https') as typeof NodeHttps).createServer({ cert: tls.cert, key: tls.key }, once);
    // A port held by a socket without SO_REUSEPORT still fails with EADDRINUSE. (Bound alone
    // first and released, it would also refuse another SO_REUSEPORT server of this user, but a
    // client connecting in that instant is reset, or its SYN dropped and retried a second later.)
    await listen(server, this.#o.port, host, { reusePort: true });
    this.#early = server;
    return { port: boundPort(server, 'health server') };
  }

  async #closeEarly(): Promise<void> {
    const server = this.#early;
    this.#early = undefined;
    if (server !== undefined) await close(server);
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
