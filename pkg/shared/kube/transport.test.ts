import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, createTransport, isConflict, isNotFound } from './index.ts';
import { createWatchChannel } from './watch-channel.ts';
import { isGone } from './api-error.ts';
import { parseWarnings, retryAfterMs } from './transport.ts';
import { type Connection } from './connection.ts';

// An in-process HTTP server whose answers each test scripts; it records what arrived.
interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Handler = (req: Seen, res: http.ServerResponse) => void;

let server: http.Server;
let base: URL;
let handler: Handler;
let seen: Seen[];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(s);
      handler(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix/`);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen = [];
});

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function connection(extra: Partial<Connection> = {}): Connection {
  const agent = new http.Agent({ keepAlive: true });
  const watches = createWatchChannel(base, {});
  return {
    server: base,
    agent,
    watches,
    serverTls: {},
    identity: 'test',
    authHeaders: async () => ({ Authorization: 'Bearer t0' }),
    close: () => {
      agent.destroy();
      watches.close();
    },
    ...extra,
  };
}

describe('transport', () => {
  it('sends the body byte-for-byte with query, headers and user agent, and parses JSON', async () => {
    handler = (_req, res) => json(res, 200, { ok: true });
    const t = createTransport(connection(), { userAgent: 'olmv1-test/1' });
    const raw = '{"spec":{"$ref":"#/x","default":{"a":1},"x-kubernetes-int-or-string":true}}';
    const out = await t.request('PATCH', '/apis/g/v1/things/a', {
      body: raw,
      contentType: 'application/apply-patch+yaml',
      query: { fieldManager: 'me', force: 'true', skip: undefined, multi: ['x', 'y'] },
    });
    expect(out).toEqual({ ok: true });
    const req = seen[0] as Seen;
    expect(req.method).toBe('PATCH');
    expect(req.url).toBe('/prefix/apis/g/v1/things/a?fieldManager=me&force=true&multi=x&multi=y');
    expect(req.body).toBe(raw);
    expect(req.headers['content-type']).toBe('application/apply-patch+yaml');
    expect(req.headers['user-agent']).toBe('olmv1-test/1');
    expect(req.headers.authorization).toBe('Bearer t0');
  });

  it('sends a review POST once more when its reused keep-alive socket was reset, another POST never', async () => {
    // Every second request on a socket finds it reset, as a socket the server closed while idle.
    const requests = new WeakMap<object, number>();
    handler = (_req, res) => {
      const n = (requests.get(res.socket as object) ?? 0) + 1;
      requests.set(res.socket as object, n);
      if (n === 1) json(res, 201, { status: { allowed: true } });
      else res.socket?.resetAndDestroy();
    };
    const conn = connection();
    const t = createTransport(conn);
    const review = { body: { kind: 'SelfSubjectAccessReview' }, idempotent: true };
    const path = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
    expect(await t.request('POST', path, review)).toEqual({ status: { allowed: true } });
    expect(await t.request('POST', path, review)).toEqual({ status: { allowed: true } });
    expect(seen).toHaveLength(3);
    await expect(t.request('POST', '/api/v1/namespaces/ns/configmaps', { body: {} })).rejects.toThrow(/ECONNRESET|socket hang up/);
    conn.close();
  });

  it('turns Status bodies into ApiErrors carrying status, reason, message and details', async () => {
    handler = (_req, res) =>
      json(res, 404, {
        kind: 'Status',
        status: 'Failure',
        reason: 'NotFound',
        message: 'configmaps "x" not found',
        details: { name: 'x', kind: 'configmaps' },
        code: 404,
      });
    const t = createTransport(connection());
    const err = await t.request('GET', '/api/v1/namespaces/d/configmaps/x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, reason: 'NotFound', message: 'configmaps "x" not found', details: { name: 'x' } });
    expect(isNotFound(err)).toBe(true);
    expect(isConflict(err)).toBe(false);
  });

  it('describes non-Status error bodies', async () => {
    handler = (_req, res) => {
      res.writeHead(410, { 'Content-Type': 'text/plain' });
      res.end('gone away');
    };
    const err = await createTransport(connection())
      .request('GET', '/x')
      .catch((e: unknown) => e);
    expect(isGone(err)).toBe(true);
    expect((err as Error).message).toBe('GET /x: gone away');
  });

  it('retries a 401 once after invalidating credentials', async () => {
    let invalidated = 0;
    let token = 'old';
    handler = (req, res) =>
      req.headers.authorization === 'Bearer new'
        ? json(res, 200, { ok: 1 })
        : json(res, 401, { kind: 'Status', reason: 'Unauthorized', message: 'Unauthorized', code: 401 });
    const t = createTransport(
      connection({
        authHeaders: async () => ({ Authorization: `Bearer ${token}` }),
        invalidateAuth: () => {
          invalidated++;
          token = 'new';
        },
      }),
    );
    await expect(t.request('GET', '/a')).resolves.toEqual({ ok: 1 });
    expect(invalidated).toBe(1);
    token = 'stale';
    handler = (_req, res) => json(res, 401, { kind: 'Status', reason: 'Unauthorized', message: 'Unauthorized', code: 401 });
    await expect(t.request('GET', '/a')).rejects.toMatchObject({ status: 401 });
    expect(invalidated).toBe(2); // one retry per request, not a loop
    expect(seen).toHaveLength(4);
  });

  it('honours 429 Retry-After a bounded number of times', async () => {
    let calls = 0;
    handler = (_req, res) =>
      ++calls < 3
        ? json(res, 429, { kind: 'Status', reason: 'TooManyRequests', message: 'slow down', code: 429 }, { 'Retry-After': '0' })
        : json(res, 200, { n: calls });
    const t = createTransport(connection(), { maxThrottleRetries: 3 });
    await expect(t.request('GET', '/t')).resolves.toEqual({ n: 3 });
    calls = -100;
    const t1 = createTransport(connection(), { maxThrottleRetries: 1 });
    await expect(t1.request('GET', '/t')).rejects.toMatchObject({ status: 429, message: 'slow down' });
  });

  it('reports Warning headers and times out slow requests', async () => {
    const warnings: string[] = [];
    handler = (_req, res) => json(res, 200, {}, { Warning: '299 - "v1beta1 is deprecated, use v1"' });
    await createTransport(connection(), { onWarning: (w) => warnings.push(w) }).request('GET', '/w');
    expect(warnings).toEqual(['v1beta1 is deprecated, use v1']);
    handler = () => undefined; // never answers
    await expect(createTransport(connection()).request('GET', '/slow', { timeoutMs: 50 })).rejects.toThrow(/timed out after 50 ms/);
  });

  it('rejects with the abort reason when the signal aborts', async () => {
    const ctl = new AbortController();
    handler = () => ctl.abort(new Error('stop now')); // once the request arrived; never answers
    const p = createTransport(connection()).request('GET', '/hang', { signal: ctl.signal, timeoutMs: 0 });
    await expect(p).rejects.toThrow('stop now');
  });

  it('streams 2xx bodies and throws ApiError for failed stream requests', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"type":"ADDED"}\n');
      res.end();
    };
    const body = await createTransport(connection()).stream('GET', '/watch');
    let text = '';
    for await (const c of body) text += String(c);
    expect(text).toBe('{"type":"ADDED"}\n');
    handler = (_req, res) => json(res, 403, { kind: 'Status', reason: 'Forbidden', message: 'no', code: 403 });
    await expect(createTransport(connection()).stream('GET', '/watch')).rejects.toMatchObject({ status: 403, reason: 'Forbidden' });
  });
});

describe('watch budget', () => {
  it('opens streams on the watch channel, so open watches never hold a request socket', async () => {
    handler = (req, res) => {
      if (req.url.includes('/watch')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"type":"BOOKMARK"}\n');
        return;
      }
      json(res, 200, { ok: true });
    };
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const conn = connection({ agent });
    const t = createTransport(conn);
    const streams = await Promise.all(Array.from({ length: 5 }, () => t.stream('GET', '/watch', { timeoutMs: 0 })));
    expect(conn.watches.stats()).toMatchObject({ protocol: 'http/1.1', streams: 5 });
    await expect(t.request('GET', '/get', { timeoutMs: 2000 })).resolves.toEqual({ ok: true });
    for (const s of streams) s.destroy();
    server.closeAllConnections();
    conn.close();
  });
});

describe('header helpers', () => {
  it('parses warnings and Retry-After', () => {
    expect(parseWarnings('299 - "a \\"quoted\\" text", 299 - "second"')).toEqual(['a "quoted" text', 'second']);
    expect(retryAfterMs('3', 10_000)).toBe(3000);
    expect(retryAfterMs('300', 10_000)).toBe(10_000);
    expect(retryAfterMs(undefined, 10_000)).toBe(1000);
    expect(retryAfterMs('soon', 10_000)).toBe(1000);
  });
});
