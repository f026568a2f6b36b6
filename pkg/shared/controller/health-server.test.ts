import { EventEmitter } from 'node:events';
import pino from 'pino';
import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
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

  it('rejects start when the port is taken', async () => {
    server = new HealthServer({ port: 0, host: '127.0.0.1', registry: new Registry(), log });
    await server.start();
    const second = new HealthServer({ port: server.port, host: '127.0.0.1', registry: new Registry(), log });
    await expect(second.start()).rejects.toThrow(/EADDRINUSE/);
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
