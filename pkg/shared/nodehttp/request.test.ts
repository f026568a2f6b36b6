import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgentPool, describeRequest, sendRequest, type AgentPool } from './index.ts';

// A raw HTTP/1.1 server, so each test decides exactly what happens on each socket: `script`
// gets the socket, the request count on that socket and the connection's ordinal.
type Script = (socket: net.Socket, requestOnSocket: number, connection: number) => void;
let script: Script;
let connections = 0;
let server: net.Server;
let base: URL;
let pool: AgentPool;

const ok = (socket: net.Socket, body = 'ok'): void => {
  socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body}`);
};

beforeAll(async () => {
  server = net.createServer((socket) => {
    const connection = ++connections;
    let requests = 0;
    let buffered = '';
    socket.on('error', () => undefined);
    socket.on('data', (d) => {
      buffered += d.toString('latin1');
      while (buffered.includes('\r\n\r\n')) {
        const head = buffered.slice(0, buffered.indexOf('\r\n\r\n'));
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        buffered = buffered.slice(head.length + 4 + length);
        script(socket, ++requests, connection);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = new URL(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/v2/x`);
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});
afterEach(() => pool?.close());

async function text(res: AsyncIterable<unknown>): Promise<string> {
  let out = '';
  for await (const c of res) out += String(c);
  return out;
}

describe('sendRequest', () => {
  it('sends an idempotent request once more when its reused socket was reset, and a POST never', async () => {
    pool = createAgentPool({ maxSockets: 4 });
    const agent = pool.agentFor(base);
    // The second request on any socket finds it reset (the server closed it while idle).
    script = (socket, n) => (n === 1 ? ok(socket) : socket.resetAndDestroy());
    const first = connections;
    expect(await text(await sendRequest({ method: 'GET', url: base, agent }))).toBe('ok');
    expect(await text(await sendRequest({ method: 'PUT', url: base, agent, body: Buffer.from('{}') }))).toBe('ok');
    expect(connections - first).toBe(2);

    const err = await sendRequest({ method: 'POST', url: base, agent, body: Buffer.from('{}') }).catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe(`Post "${base.href}": read ECONNRESET`);
    expect(((err as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNRESET');
  });

  it('sends a POST the caller calls idempotent once more, and a GET it calls not idempotent never', async () => {
    pool = createAgentPool({ maxSockets: 4 });
    const agent = pool.agentFor(base);
    script = (socket, n) => (n === 1 ? ok(socket) : socket.resetAndDestroy());
    const first = connections;
    // An access review: a POST that only asks, sent again on a fresh socket.
    expect(await text(await sendRequest({ method: 'POST', url: base, agent, body: Buffer.from('{}'), idempotent: true }))).toBe('ok');
    expect(await text(await sendRequest({ method: 'POST', url: base, agent, body: Buffer.from('{}'), idempotent: true }))).toBe('ok');
    expect(connections - first).toBe(2);
    await expect(sendRequest({ method: 'GET', url: base, agent, idempotent: false })).rejects.toThrow(`Get "${base.href}": read ECONNRESET`);
  });

  it('does not retry a failure on a fresh socket', async () => {
    pool = createAgentPool({ maxSockets: 4 });
    script = (socket) => socket.resetAndDestroy();
    const first = connections;
    await expect(sendRequest({ method: 'GET', url: base, agent: pool.agentFor(base) })).rejects.toThrow(`Get "${base.href}": read ECONNRESET`);
    expect(connections - first).toBe(1);
  });

  it("names the request Go's way, or as the caller says", async () => {
    pool = createAgentPool({ maxSockets: 4 });
    const refused = new URL('http://127.0.0.1:1/api/v1/all');
    const agent = pool.agentFor(refused);
    await expect(sendRequest({ method: 'GET', url: refused, agent })).rejects.toThrow(
      /^Get "http:\/\/127\.0\.0\.1:1\/api\/v1\/all": connect ECONNREFUSED 127\.0\.0\.1:1$/,
    );
    await expect(sendRequest({ method: 'GET', url: refused, agent, describe: (m, u) => `${m} ${u.href}` })).rejects.toThrow(
      /^GET http:\/\/127\.0\.0\.1:1\/api\/v1\/all: connect ECONNREFUSED/,
    );
    expect(describeRequest('HEAD', new URL('https://r.test/v2/a b'))).toBe('Head "https://r.test/v2/a%20b"');
  });

  it("bounds the wait for headers, the socket's inactivity, and surfaces aborts as asked", async () => {
    pool = createAgentPool({ maxSockets: 4 });
    const agent = pool.agentFor(base);
    script = () => undefined; // never answers
    await expect(sendRequest({ method: 'GET', url: base, agent, headersTimeoutMs: 30 })).rejects.toThrow(
      `Get "${base.href}": request timed out after 30 ms`,
    );
    await expect(sendRequest({ method: 'GET', url: base, agent, idleTimeoutMs: 30 })).rejects.toThrow(
      `Get "${base.href}": no data received for 30 ms`,
    );

    const reason = new Error('stop now');
    const ctl = new AbortController();
    script = () => ctl.abort(reason); // once the request arrived; never answers
    const asReason = sendRequest({ method: 'GET', url: base, agent, signal: ctl.signal, abort: 'reason' });
    await expect(asReason).rejects.toBe(reason);

    script = () => undefined;
    await expect(sendRequest({ method: 'GET', url: base, agent, signal: AbortSignal.timeout(20), abort: 'go' })).rejects.toThrow(
      `Get "${base.href}": context deadline exceeded`,
    );
    const ctl2 = new AbortController();
    script = () => ctl2.abort();
    const native = sendRequest({ method: 'GET', url: base, agent, signal: ctl2.signal });
    await expect(native).rejects.toThrow(`Get "${base.href}": The operation was aborted`);
  });
});
