import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RequestTimeoutError, createAgentPool, sendRequest, type AgentPool } from './index.ts';

// A raw TCP server: `onSocket` decides what each connection gets.
let onSocket: (socket: net.Socket) => void;
let server: net.Server;
let port: number;
let pool: AgentPool;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onSocket(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
});
afterEach(() => pool?.close());

async function rejection(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err as Error,
  );
}

describe('sendRequest time bounds', () => {
  it('bounds connecting, TLS handshake included, with a RequestTimeoutError cause', async () => {
    // Accepts TCP and never speaks TLS: the handshake never ends.
    onSocket = () => undefined;
    pool = createAgentPool({ maxSockets: 4 });
    const url = new URL(`https://127.0.0.1:${port}/v2/`);
    const err = await rejection(sendRequest({ method: 'GET', url, agent: pool.agentFor(url), connectTimeoutMs: 50, idleTimeoutMs: 10_000 }));
    expect(err.message).toBe(`Get "${url.href}": connection not established within 50 ms`);
    expect(err.cause).toBeInstanceOf(RequestTimeoutError);
    expect(err.cause).toMatchObject({ phase: 'connect', ms: 50, url });
  });

  it('does not limit a connected socket by the connect bound', async () => {
    // Answers after 150 ms: longer than the connect bound, shorter than the inactivity one.
    onSocket = (socket) =>
      void socket.once('data', () => setTimeout(() => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok'), 150));
    pool = createAgentPool({ maxSockets: 4 });
    const url = new URL(`http://127.0.0.1:${port}/v2/`);
    const res = await sendRequest({ method: 'GET', url, agent: pool.agentFor(url), connectTimeoutMs: 50, idleTimeoutMs: 5_000 });
    expect(res.statusCode).toBe(200);
    res.resume();
  });

  it('fails a body that stops arriving with the inactivity error, not "aborted"', async () => {
    onSocket = (socket) => void socket.once('data', () => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nfirst bytes'));
    pool = createAgentPool({ maxSockets: 4 });
    const url = new URL(`http://127.0.0.1:${port}/v2/x/blobs/sha256:abc`);
    const res = await sendRequest({ method: 'GET', url, agent: pool.agentFor(url), idleTimeoutMs: 80 });
    const read = (async (): Promise<void> => {
      for await (const _ of res) {
        // discarded
      }
    })();
    const err = await rejection(read);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(err).toMatchObject({ message: 'no data received for 80 ms', phase: 'idle', ms: 80 });
  });
});
