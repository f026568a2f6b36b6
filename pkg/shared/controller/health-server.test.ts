import { EventEmitter } from 'node:events';
import * as http from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { settlesWithin } from '../kube/index.ts';
import { HealthServer, informersSynced } from './health-server.ts';
import { wireShutdownSignals } from './shutdown.ts';

const log = pino({ level: 'silent' });
let server: HealthServer | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function get(path: string): Promise<{ status: number; body: string; type: string | null }> {
  const res = await fetch(`http://127.0.0.1:${server?.port}${path}`);
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
}

/** What a probe from another thread got, and when (process.hrtime, ns). */
interface ProbeResult {
  status: number;
  body: string;
  sentAt: bigint;
  answeredAt: bigint;
}

// A client on its own thread: once told to go, it asks `url` (every 50 ms until it gets `want`,
// when given) and posts the last answer with the times it asked and was answered.
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const ask = async () => {
  const sentAt = process.hrtime.bigint();
  const res = await fetch(workerData.url);
  return { status: res.status, body: await res.text(), sentAt, answeredAt: process.hrtime.bigint() };
};
ask().then(() => parentPort.postMessage('ready'));
parentPort.once('message', async () => {
  let r = await ask();
  while (workerData.want !== undefined && r.status !== workerData.want) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    r = await ask();
  }
  parentPort.postMessage(r);
});
`;

/**
 * Blocks this thread for `blockMs` with synchronous work while another thread probes `path`;
 * returns the probe's answer and when the block ended.
 */
async function probeWhileBlocked(path: string, blockMs: number, want?: number): Promise<{ probe: ProbeResult; blockEnd: bigint }> {
  const worker = new Worker(PROBE, { eval: true, workerData: { url: `http://127.0.0.1:${server?.port}${path}`, want } });
  try {
    const messages: unknown[] = [];
    worker.on('message', (m: unknown) => messages.push(m));
    await vi.waitFor(() => expect(messages).toContain('ready'), { timeout: 5_000 });
    worker.postMessage('go');
    const end = performance.now() + blockMs;
    while (performance.now() < end) {
      // The main thread is busy: no timer, I/O or message is handled here.
    }
    const blockEnd = process.hrtime.bigint();
    await vi.waitFor(() => expect(messages).toHaveLength(2), { timeout: 10_000 });
    return { probe: messages[1] as ProbeResult, blockEnd };
  } finally {
    await worker.terminate();
  }
}

const ms = (ns: bigint): number => Number(ns / 1_000_000n);

describe('HealthServer', () => {
  it('serves healthz, readyz with registered checks, and the injected registry on /metrics', async () => {
    const registry = new Registry();
    new Counter({ name: 'demo_total', help: 'demo', registers: [registry] }).inc(3);
    server = new HealthServer({ port: 0, host: '127.0.0.1', registry, log });
    let synced = false;
    server.addReadinessCheck('informers', () => (synced ? true : 'caches not synced'));
    server.addReadinessCheck('async', async () => true);
    await server.start();

    expect(await get('/healthz')).toMatchObject({ status: 200, body: 'ok' });
    const notReady = await get('/readyz');
    expect(notReady.status).toBe(500);
    expect(notReady.body).toBe('[+]ping ok\n[-]informers failed: caches not synced\n[+]async ok\nreadyz check failed\n');
    synced = true;
    expect(await get('/readyz')).toMatchObject({ status: 200, body: 'ok' });
    expect((await get('/readyz?verbose')).body).toContain('[+]informers ok');

    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('demo_total 3');
    expect(metrics.type).toBe(registry.contentType);
    expect((await get('/nope')).status).toBe(404);
  });

  it('serves no /metrics without a registry (metrics then go to the secure MetricsServer)', async () => {
    server = new HealthServer({ port: 0, host: '127.0.0.1', log });
    await server.start();
    expect(await get('/healthz')).toMatchObject({ status: 200, body: 'ok' });
    expect((await get('/metrics')).status).toBe(404);
  });

  it('fails a check that throws and reports the message', async () => {
    server = new HealthServer({ port: 0, host: '127.0.0.1', registry: new Registry(), log });
    server.addReadinessCheck('leader', () => {
      throw new Error('lease lost');
    });
    await server.start();
    const res = await get('/readyz');
    expect(res.status).toBe(500);
    expect(res.body).toContain('[-]leader failed: lease lost');
  });

  it('informersSynced names the informers that have not synced', () => {
    const a = { name: 'catalogs', hasSynced: true };
    const b = { name: 'extensions', hasSynced: false };
    const check = informersSynced([a, b]);
    expect(check()).toBe('informers not synced: extensions');
    b.hasSynced = true;
    expect(check()).toBe(true);
  });

  it('answers /healthz from its own thread while the main thread is busy', async () => {
    server = new HealthServer({ port: 0, host: '127.0.0.1', log });
    await server.start();
    await server.workerListening;
    const { probe, blockEnd } = await probeWhileBlocked('/healthz', 3_000);
    expect(probe).toMatchObject({ status: 200, body: 'ok' });
    // Answered at once, while the main thread was still blocked.
    expect(ms(probe.answeredAt - probe.sentAt)).toBeLessThan(500);
    expect(probe.answeredAt < blockEnd).toBe(true);
  });

  it('fails /healthz once the main thread has not beaten for the stall limit, and recovers', async () => {
    server = new HealthServer({ port: 0, host: '127.0.0.1', log, stallLimitMs: 1_000 });
    await server.start();
    await server.workerListening;
    expect(await get('/healthz?verbose')).toMatchObject({ status: 200, body: '[+]ping ok\n[+]event-loop ok\nhealthz check passed\n' });
    const { probe, blockEnd } = await probeWhileBlocked('/healthz', 2_500, 500);
    expect(probe.status).toBe(500);
    expect(probe.body).toMatch(
      /^\[\+\]ping ok\n\[-\]event-loop failed: no heartbeat from the event loop for \d+(\.\d)?s \(limit 1s\)\nhealthz check failed\n$/,
    );
    expect(probe.answeredAt < blockEnd).toBe(true);
    await expect.poll(() => get('/healthz')).toMatchObject({ status: 200, body: 'ok' });
  });

  it('forwards /readyz to the main thread and fails it when the main thread does not answer in time', async () => {
    server = new HealthServer({ port: 0, host: '127.0.0.1', registry: new Registry(), log, forwardTimeoutMs: 300 });
    server.addReadinessCheck('informers', () => true);
    await server.start();
    await server.workerListening;
    expect(await get('/readyz?verbose')).toMatchObject({ status: 200, body: '[+]ping ok\n[+]informers ok\nreadyz check passed\n' });
    const ready = await probeWhileBlocked('/readyz', 2_000);
    expect(ready.probe).toEqual(
      expect.objectContaining({ status: 500, body: '[-]event-loop failed: the main thread did not answer within 0.3s\nreadyz check failed\n' }),
    );
    expect(ms(ready.probe.answeredAt - ready.probe.sentAt)).toBeLessThan(1_000);
    expect(ready.probe.answeredAt < ready.blockEnd).toBe(true);
    const metrics = await probeWhileBlocked('/metrics', 2_000);
    expect(metrics.probe).toMatchObject({ status: 500, body: '[-]event-loop failed: the main thread did not answer within 0.3s\n' });
    expect(await get('/readyz')).toMatchObject({ status: 200, body: 'ok' });
  });

  it('answers other methods 405 and other paths 404 without the main thread', async () => {
    server = new HealthServer({ port: 0, host: '127.0.0.1', log });
    await server.start();
    const post = await fetch(`http://127.0.0.1:${server.port}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`http://127.0.0.1:${server.port}/readyz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect((await get('/metrics')).status).toBe(404);
  });

  it('frees its port on stop', async () => {
    server = new HealthServer({ port: 0, host: '127.0.0.1', log });
    await server.start();
    const port = server.port;
    await server.stop();
    server = new HealthServer({ port, host: '127.0.0.1', log });
    await server.start();
    expect(server.port).toBe(port);
    expect((await get('/healthz')).status).toBe(200);
  });

  it('rejects start when the port is taken', async () => {
    // Held by a socket without SO_REUSEPORT (another program): taken whatever the platform.
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const port = (holder.address() as AddressInfo).port;
      const second = new HealthServer({ port, host: '127.0.0.1', registry: new Registry(), log });
      await expect(second.start()).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('starts its worker only once workerAfter settles, answering on this thread until then', async () => {
    server = new HealthServer({ port: 0, host: '127.0.0.1', log });
    const gate = Promise.withResolvers<void>();
    await server.start({ workerAfter: gate.promise });
    const workerUp = vi.fn();
    void server.workerListening.then(workerUp);
    for (let i = 0; i < 3; i++) expect(await get('/healthz')).toMatchObject({ status: 200, body: 'ok' });
    expect(workerUp).not.toHaveBeenCalled();
    gate.resolve();
    await expect.poll(() => workerUp.mock.calls.length).toBe(1);
    expect(await get('/healthz')).toMatchObject({ status: 200, body: 'ok' });
  });

  it('keeps no connection alive on this thread, so the handover resets no request sent on one', async () => {
    server = new HealthServer({ port: 0, host: '127.0.0.1', log });
    const gate = Promise.withResolvers<void>();
    await server.start({ workerAfter: gate.promise });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const ask = () =>
      new Promise<{ status: number; connection: string | undefined; reused: boolean }>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port: server?.port, path: '/healthz', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, reused: req.reusedSocket }));
        });
        req.on('error', reject);
      });
    try {
      expect(await ask()).toMatchObject({ status: 200, connection: 'close' });
      expect(await ask()).toMatchObject({ status: 200, reused: false });
      const workerUp = vi.fn();
      void server.workerListening.then(workerUp);
      gate.resolve();
      await expect.poll(() => workerUp.mock.calls.length).toBe(1);
      // The worker keeps connections alive: its sockets live as long as the port is its.
      await ask();
      expect(await ask()).toMatchObject({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  });

  it('answers on this thread as soon as it starts, before its worker listens, then from the worker', async () => {
    server = new HealthServer({ port: 0, host: '127.0.0.1', log });
    server.addReadinessCheck('informers', () => true);
    await server.start();
    const workerUp = vi.fn();
    void server.workerListening.then(workerUp);
    // start() did not wait for the worker: no message from it can have come in this turn.
    await Promise.resolve();
    expect(workerUp).not.toHaveBeenCalled();
    expect(await get('/readyz?verbose')).toMatchObject({ status: 200, body: '[+]ping ok\n[+]informers ok\nreadyz check passed\n' });
    expect(await get('/healthz')).toMatchObject({ status: 200, body: 'ok' });
    await expect.poll(() => workerUp.mock.calls.length).toBe(1);
    // The worker holds the port alone now: it answers while this thread is blocked.
    const { probe, blockEnd } = await probeWhileBlocked('/healthz', 1_500);
    expect(probe).toMatchObject({ status: 200, body: 'ok' });
    expect(probe.answeredAt < blockEnd).toBe(true);
  });
});

describe('wireShutdownSignals', () => {
  it('aborts on the first signal, exits on the second, and can be unwired', () => {
    const proc = Object.assign(new EventEmitter(), {
      exits: [] as number[],
      exit(code: number) {
        this.exits.push(code);
      },
    });
    const ctl = new AbortController();
    const unwire = wireShutdownSignals(proc, ctl, { log });
    proc.emit('SIGTERM');
    expect(ctl.signal.aborted).toBe(true);
    expect((ctl.signal.reason as Error).message).toBe('received SIGTERM');
    expect(proc.exits).toEqual([]);
    proc.emit('SIGINT');
    expect(proc.exits).toEqual([1]);
    unwire();
    expect(proc.listenerCount('SIGTERM')).toBe(0);
  });

  it('settlesWithin tells whether a promise settled in time', async () => {
    expect(await settlesWithin(Promise.reject(new Error('x')), 50)).toBe(true);
    expect(await settlesWithin(new Promise(() => undefined), 10)).toBe(false);
  });
});
