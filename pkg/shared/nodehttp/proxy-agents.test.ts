import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForwardProxy, type ForwardProxy } from '../../../test/support/forward-proxy.ts';
import { createAgentPool, createProxySelector, http, RequestTimeoutError, sendRequest } from './index.ts';
import { type AgentPoolOptions } from './agents.ts';

const fixture = (name: string): string => readFileSync(new URL(`../../../test/fixtures/tls/${name}`, import.meta.url), 'utf8');
const CA = fixture('ca.crt');
const material = { id: 'test-ca', ca: CA };

let plain: ReturnType<typeof http.createServer>;
let secure: https.Server;
let mutual: https.Server;
let proxy: ForwardProxy;
let authProxy: ForwardProxy;
const seen: Array<{ url: string; host: string | undefined; peer?: string }> = [];

function handler(req: IncomingMessage, res: ServerResponse): void {
  const cert = (req.socket as TLSSocket).getPeerCertificate?.();
  seen.push({ url: req.url ?? '', host: req.headers.host, ...(cert?.subject === undefined ? {} : { peer: cert.subject.CN as string }) });
  setTimeout(() => res.end('hello'), req.url === '/slow' ? 300 : 0);
}

async function listen(server: { listen: (port: number, host: string, cb: () => void) => unknown; address: () => unknown }): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
}

let plainPort = 0;
let securePort = 0;
let mutualPort = 0;

beforeAll(async () => {
  plain = http.createServer(handler);
  secure = https.createServer({ cert: fixture('server.crt'), key: fixture('server.key') }, handler);
  mutual = https.createServer(
    { cert: fixture('server.crt'), key: fixture('server.key'), ca: CA, requestCert: true, rejectUnauthorized: true },
    handler,
  );
  [plainPort, securePort, mutualPort] = [await listen(plain), await listen(secure), await listen(mutual)];
  proxy = await startForwardProxy({ hosts: { '*.proxy.test': '127.0.0.1', 'server.test': '127.0.0.1' } });
  authProxy = await startForwardProxy({ hosts: { 'server.test': '127.0.0.1' }, credentials: 'u:p@ss' });
});

afterAll(async () => {
  await proxy.close();
  await authProxy.close();
  for (const s of [plain, secure, mutual]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

function pool(proxyUrl: string, extra: Partial<AgentPoolOptions> = {}): ReturnType<typeof createAgentPool> {
  const select = createProxySelector({ httpProxy: proxyUrl, httpsProxy: proxyUrl, noProxy: '.direct.test' });
  return createAgentPool({ maxSockets: 4, proxy: select, tlsFor: () => material, ...extra });
}

async function get(p: ReturnType<typeof createAgentPool>, target: string, o: { connectTimeoutMs?: number } = {}): Promise<string> {
  const url = new URL(target);
  const res = await sendRequest({ method: 'GET', url, agent: p.agentFor(url), ...o });
  let body = '';
  for await (const chunk of res) body += String(chunk);
  return `${res.statusCode} ${body}`;
}

describe('proxy agents', () => {
  it('sends plain HTTP to the proxy in absolute form, with the proxy credentials, over one kept-alive connection', async () => {
    const authed = createAgentPool({ maxSockets: 4, proxy: createProxySelector({ httpProxy: authProxy.url, httpsProxy: '', noProxy: '' }) });
    const target = `http://server.test:${plainPort}/v2/x?y=1`;
    expect(await get(authed, target)).toBe('200 hello');
    expect(await get(authed, target)).toBe('200 hello');
    const mine = authProxy.requests.filter((r) => r.target === target);
    expect(mine).toHaveLength(2);
    expect(mine[0]).toMatchObject({ method: 'GET', proxyAuthorization: `Basic ${Buffer.from('u:p@ss').toString('base64')}`, status: 200 });
    expect(seen.at(-1)).toMatchObject({ url: '/v2/x?y=1', host: `server.test:${plainPort}` });
    authed.close();
  });

  it('tunnels HTTPS through CONNECT and checks the server against the extra CA', async () => {
    const p = pool(proxy.url);
    expect(await get(p, `https://server.test:${securePort}/v2/`)).toBe('200 hello');
    expect(proxy.requestsFor('server.test').map((r) => `${r.method} ${r.target}`)).toContain(`CONNECT server.test:${securePort}`);
    // Without the CA the server's certificate is not trusted, through the tunnel as directly.
    const untrusting = pool(proxy.url, { tlsFor: undefined });
    await expect(get(untrusting, `https://server.test:${securePort}/v2/`)).rejects.toThrow(/unable to (get local issuer certificate|verify)/);
    p.close();
    untrusting.close();
  });

  it('presents the client certificate of the TLS material through the tunnel', async () => {
    const withCert = pool(proxy.url, { tlsFor: () => ({ id: 'client', ca: CA, cert: fixture('client.crt'), key: fixture('client.key') }) });
    expect(await get(withCert, `https://server.test:${mutualPort}/`)).toBe('200 hello');
    expect(seen.at(-1)?.peer).toBe('olmv1-client');
    const without = pool(proxy.url);
    await expect(get(without, `https://server.test:${mutualPort}/`)).rejects.toThrow();
    withCert.close();
    without.close();
  });

  it("reports a refused CONNECT with the proxy's status text, as Go does", async () => {
    const anonymous = createAgentPool({
      maxSockets: 1,
      proxy: createProxySelector({ httpProxy: '', httpsProxy: `http://127.0.0.1:${authProxy.port}`, noProxy: '' }),
    });
    await expect(get(anonymous, `https://server.test:${securePort}/`)).rejects.toThrow(
      `Get "https://server.test:${securePort}/": Proxy Authentication Required`,
    );
    anonymous.close();
  });

  it('names an unreachable proxy with proxyconnect, and leaves loopback and NO_PROXY hosts direct', async () => {
    const gone = createServer();
    const closed = await listen(gone);
    await new Promise((r) => gone.close(r));
    const p = pool(`http://127.0.0.1:${closed}`);
    await expect(get(p, `https://server.test:${securePort}/`)).rejects.toThrow(
      `Get "https://server.test:${securePort}/": proxyconnect tcp: connect ECONNREFUSED 127.0.0.1:${closed}`,
    );
    const before = proxy.requests.length;
    const q = pool(proxy.url);
    expect(await get(q, `http://127.0.0.1:${plainPort}/direct`)).toBe('200 hello');
    await expect(get(q, `http://app.direct.test:${plainPort}/`)).rejects.toThrow(/ENOTFOUND app\.direct\.test/);
    expect(proxy.requests.length).toBe(before);
    p.close();
    q.close();
  });

  it('bounds setting up the tunnel with its own connect timeout, and does not time out a tunnel that is up', async () => {
    const stalled: Socket[] = [];
    const silent: NetServer = createServer((s) => stalled.push(s));
    const port = await listen(silent);
    const p = pool(`http://127.0.0.1:${port}`, { proxyConnectTimeoutMs: 200 });
    const err = await get(p, `https://server.test:${securePort}/`).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(`Get "https://server.test:${securePort}/": connection not established within 200 ms`);
    expect((err as Error).cause).toBeInstanceOf(RequestTimeoutError);
    expect(((err as Error).cause as RequestTimeoutError).phase).toBe('connect');
    // A tunnel is handed over established: the request's own connect bound does not apply to it.
    const q = pool(proxy.url);
    expect(await get(q, `https://server.test:${securePort}/slow`, { connectTimeoutMs: 100 })).toBe('200 hello');
    for (const s of stalled) s.destroy();
    silent.close();
    p.close();
    q.close();
  });
});
