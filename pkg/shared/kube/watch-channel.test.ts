import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createWatchChannel } from './watch-channel.ts';

// A prior-knowledge HTTP/2 (h2c) server allowing 3 streams per session: /watch answers and
// stays open, /status/<n> answers n, /hang never answers.
let server: http2.Http2Server;
let base: URL;
const seenAuth: string[] = [];

beforeAll(async () => {
  server = http2.createServer({ settings: { maxConcurrentStreams: 3 } });
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    const path = String(headers[':path']);
    seenAuth.push(String(headers.authorization));
    if (path.startsWith('/watch')) {
      stream.respond({ ':status': 200, 'content-type': 'application/json' });
      stream.write('{"type":"BOOKMARK"}\n');
    } else if (path === '/flood') {
      stream.respond({ ':status': 200 });
      const chunk = Buffer.alloc(64 * 1024, 97);
      const write = (): void => {
        while (!stream.destroyed && stream.write(chunk));
      };
      write();
      stream.on('drain', write);
    } else if (path === '/big') {
      stream.respond({ ':status': 200 });
      stream.end(Buffer.alloc(1024 * 1024, 98));
    } else if (path.startsWith('/status/')) {
      stream.respond({ ':status': Number(path.slice('/status/'.length)), warning: '299 - "w"' });
      stream.end('body');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

const req = (path: string, extra: { signal?: AbortSignal; timeoutMs?: number } = {}) => ({
  method: 'GET',
  url: new URL(path, base),
  headers: { Authorization: 'Bearer sa', 'User-Agent': 'olmv1', Connection: 'keep-alive' },
  timeoutMs: extra.timeoutMs ?? 5000,
  signal: extra.signal,
});

describe('HTTP/2 watch channel', () => {
  it('multiplexes streams, opening a session only when the open ones are full', async () => {
    const ch = createWatchChannel(base, {}, { protocol: 'h2' });
    const first = await ch.send(req('/watch'));
    expect(ch.stats()).toEqual({ protocol: 'h2', connections: 1, streams: 1 });
    const more = await Promise.all(Array.from({ length: 6 }, () => ch.send(req('/watch'))));
    // 7 streams at 3 per session: 3 sessions (the first one's settings arrived before).
    expect(ch.stats()).toEqual({ protocol: 'h2', connections: 3, streams: 7 });
    for await (const chunk of first.stream) {
      expect(String(chunk)).toBe('{"type":"BOOKMARK"}\n');
      break;
    }
    for (const r of more) r.stream.destroy();
    await vi.waitFor(() => expect(ch.stats().streams).toBe(0));
    expect(seenAuth.at(-1)).toBe('Bearer sa');
    ch.close();
    expect(ch.stats().connections).toBe(0);
  });

  it('passes status and headers through, and names the request in errors', async () => {
    const ch = createWatchChannel(base, {}, { protocol: 'h2' });
    const res = await ch.send(req('/status/403'));
    expect(res.status).toBe(403);
    expect(res.headers.warning).toBe('299 - "w"');
    let text = '';
    for await (const c of res.stream) text += String(c);
    expect(text).toBe('body');

    await expect(ch.send(req('/hang', { timeoutMs: 50 }))).rejects.toThrow(`GET ${base.href}hang: request timed out after 50 ms`);
    const ctl = new AbortController();
    const hung = ch.send(req('/hang', { signal: ctl.signal, timeoutMs: 0 }));
    ctl.abort(new Error('stop now'));
    await expect(hung).rejects.toThrow('stop now');
    ch.close();

    const refused = createWatchChannel(new URL('http://127.0.0.1:1/'), {}, { protocol: 'h2' });
    await expect(refused.send(req('http://127.0.0.1:1/watch'))).rejects.toThrow(/^GET http:\/\/127\.0\.0\.1:1\/watch: connect ECONNREFUSED/);
    refused.close();
  });

  it('keeps delivering on a session where one watch is not being read (flow control is per stream)', async () => {
    const ch = createWatchChannel(base, {}, { protocol: 'h2' });
    const stalled = await ch.send(req('/flood'));
    stalled.stream.pause();
    const big = await ch.send(req('/big'));
    expect(ch.stats()).toMatchObject({ connections: 1, streams: 2 });
    let size = 0;
    for await (const c of big.stream) size += (c as Buffer).length;
    expect(size).toBe(1024 * 1024);
    stalled.stream.destroy();
    ch.close();
  });

  it("ends an answered stream when the caller's signal aborts", async () => {
    const ch = createWatchChannel(base, {}, { protocol: 'h2' });
    const ctl = new AbortController();
    const res = await ch.send(req('/watch', { signal: ctl.signal }));
    const read = (async () => {
      for await (const _ of res.stream) ctl.abort(new Error('done'));
    })();
    await expect(read).rejects.toThrow('done');
    ch.close();
  });
});
