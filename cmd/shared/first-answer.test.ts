import { EventEmitter } from 'node:events';
import { createServer, get, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HealthServer } from '../../pkg/shared/controller/index.ts';
import { firstPass, firstResponseEnd, waitAtMost } from './first-answer.ts';
import pino from 'pino';

/** Whether `p` has settled once pending callbacks have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
  return done;
}

const never = new Promise<void>(() => undefined);

afterEach(() => {
  vi.useRealTimers();
});

describe('waitAtMost', () => {
  it('ends when the awaited promise settles, resolved or rejected, and clears its timer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let release!: () => void;
    const waiting = waitAtMost(new Promise<void>((r) => (release = r)), 60_000, new AbortController().signal);
    expect(await settled(waiting)).toBe(false);
    release();
    expect(await settled(waiting)).toBe(true);
    await expect(waitAtMost(Promise.reject(new Error('boom')), 60_000, new AbortController().signal)).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ends after maxWaitMs when nothing comes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const waiting = waitAtMost(never, 100, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(99);
    expect(await settled(waiting)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(waiting)).toBe(true);
  });

  it('ends when the signal aborts, at once when it already has', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const stop = new AbortController();
    const waiting = waitAtMost(never, 60_000, stop.signal);
    expect(await settled(waiting)).toBe(false);
    stop.abort();
    expect(await settled(waiting)).toBe(true);
    expect(await settled(waitAtMost(never, 60_000, stop.signal))).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('firstResponseEnd', () => {
  it('waits for the first response to end, not for the request to arrive', async () => {
    const server = new EventEmitter();
    const first = firstResponseEnd(server);
    const res = new EventEmitter();
    server.emit('request', {}, res);
    expect(server.listenerCount('request')).toBe(0);
    expect(await settled(first.ended)).toBe(false);
    res.emit('close');
    expect(await settled(first.ended)).toBe(true);
  });

  it('follows the first request only: a second one ending first does not end it', async () => {
    const server = new EventEmitter();
    const first = firstResponseEnd(server);
    const a = new EventEmitter();
    const b = new EventEmitter();
    server.emit('request', {}, a);
    server.emit('request', {}, b);
    b.emit('close');
    expect(await settled(first.ended)).toBe(false);
    a.emit('close');
    expect(await settled(first.ended)).toBe(true);
  });

  it('cancel removes its listener when no request came', () => {
    const server = new EventEmitter();
    const first = firstResponseEnd(server);
    expect(server.listenerCount('request')).toBe(1);
    first.cancel();
    first.cancel();
    expect(server.listenerCount('request')).toBe(0);
  });

  it("ends with a node:http server's first response that its client abandons half way", async () => {
    let held: ServerResponse | undefined;
    const server = createServer((_req, res) => {
      held = res;
      res.writeHead(200);
      res.write('partial');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const first = firstResponseEnd(server);
      const { port } = server.address() as AddressInfo;
      await new Promise<void>((resolve, reject) => {
        get({ host: '127.0.0.1', port, path: '/catalogs/x/api/v1/all', agent: false }, (res) => {
          res.destroy();
          resolve();
        }).on('error', reject);
      });
      await first.ended;
      expect(held?.writableEnded).toBe(false);
      expect(server.listenerCount('request')).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('firstPass', () => {
  it('keeps the outcomes and resolves once after the first pass, sync or async', async () => {
    const outcomes: Array<boolean | string> = ['informers not synced: catalogs', false, true, true];
    const sync = firstPass(() => outcomes.shift() ?? true);
    expect(sync.check()).toBe('informers not synced: catalogs');
    expect(sync.check()).toBe(false);
    expect(await settled(sync.passed)).toBe(false);
    expect(sync.check()).toBe(true);
    expect(await settled(sync.passed)).toBe(true);
    expect(sync.check()).toBe(true);

    let ok = false;
    const async = firstPass(() => Promise.resolve(ok || 'not yet'));
    await expect(async.check()).resolves.toBe('not yet');
    expect(await settled(async.passed)).toBe(false);
    ok = true;
    await expect(async.check()).resolves.toBe(true);
    expect(await settled(async.passed)).toBe(true);
  });

  it('a failing or throwing check never resolves it', async () => {
    const failing = firstPass(() => Promise.reject(new Error('down')));
    await expect(failing.check()).rejects.toThrow('down');
    expect(await settled(failing.passed)).toBe(false);
  });

  it('resolves after a HealthServer has written the passing /readyz answer', async () => {
    const health = new HealthServer({ port: 0, host: '127.0.0.1', log: pino({ level: 'silent' }) });
    let synced = false;
    const ready = firstPass(() => synced || 'informers not synced: x');
    health.addReadinessCheck('informers', ready.check);
    await health.start();
    try {
      const url = `http://127.0.0.1:${health.port}/readyz`;
      expect((await fetch(url)).status).toBe(500);
      expect(await settled(ready.passed)).toBe(false);
      synced = true;
      const answer = fetch(url);
      await ready.passed;
      expect((await answer).status).toBe(200);
    } finally {
      await health.stop();
    }
  });
});
