// Requests of an insecure registries.conf source: HTTPS first, plain HTTP when HTTPS gets no
// answer, and the scheme that answered remembered per host. (Unverified TLS against a server
// with an untrusted certificate is covered by test/e2e/registries-mirrors.test.ts.)
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpTransport } from './http-transport.ts';

let server: Server;
let host: string;
let connections: number;
let transport: HttpTransport;

beforeEach(async () => {
  connections = 0;
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`plain ${req.url ?? ''}`);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  transport = new HttpTransport({});
});

afterEach(async () => {
  transport.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function get(url: string, insecure: boolean): Promise<{ status: number; url: string; body: string }> {
  const res = await transport.request({ method: 'GET', url: new URL(url), skipTlsVerify: insecure, plainHttpFallback: insecure });
  let body = '';
  for await (const chunk of res.body) body += String(chunk);
  return { status: res.status, url: res.url.toString(), body };
}

describe('insecure requests', () => {
  it('fall back to plain HTTP when HTTPS gets no answer, and go there first for that host afterwards', async () => {
    expect(await get(`https://${host}/v2/`, true)).toEqual({ status: 200, url: `http://${host}/v2/`, body: 'plain /v2/' });
    // One connection for the refused TLS handshake, one for plain HTTP.
    expect(connections).toBe(2);
    expect(await get(`https://${host}/v2/x`, true)).toEqual({ status: 200, url: `http://${host}/v2/x`, body: 'plain /v2/x' });
    // The kept-alive plain HTTP connection again: no second TLS attempt.
    expect(connections).toBe(2);
  });

  it('start from HTTPS even on a host configured for plain HTTP', () => {
    const t = new HttpTransport({ insecureRegistries: ['127.0.0.1'] });
    expect(t.apiBase('127.0.0.1:5000', true).toString()).toBe('https://127.0.0.1:5000/v2/');
    expect(t.apiBase('127.0.0.1:5000').toString()).toBe('http://127.0.0.1:5000/v2/');
    t.close();
  });

  it('are not sent over plain HTTP when not insecure', async () => {
    await expect(get(`https://${host}/v2/`, false)).rejects.toThrow(new RegExp(`^Get "https://${host}/v2/": .*wrong version number`));
  });

  it('skip verification alone never moves to plain HTTP (token endpoints: credentials would travel in clear)', async () => {
    const res = transport.request({ method: 'GET', url: new URL(`https://${host}/token`), skipTlsVerify: true });
    await expect(res).rejects.toThrow(new RegExp(`^Get "https://${host}/token": .*wrong version number`));
  });

  it('fail with the plain HTTP attempt when neither scheme answers', async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await expect(get(`https://${host}/v2/`, true)).rejects.toThrow(`Get "http://${host}/v2/": connect ECONNREFUSED ${host}`);
    server = createServer();
  });
});
