import type { Agent } from 'node:http';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentPool, http, sendRequest } from './index.ts';

let server: ReturnType<typeof http.createServer>;
let base: URL;

beforeAll(async () => {
  server = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const count = (sockets: NodeJS.ReadOnlyDict<unknown[]>): number => Object.values(sockets).reduce((n, l) => n + (l?.length ?? 0), 0);

describe('createAgentPool', () => {
  it('keeps one keep-alive agent per scheme, and one HTTPS agent per CA bundle the provider returns', () => {
    let ca: string | undefined = 'CA-1';
    const pool = createAgentPool({ maxSockets: 16, caPem: () => ca });
    const plain = pool.agentFor(new URL('http://r.test/'));
    expect(plain).toBe(pool.agentFor(new URL('http://other.test/')));
    expect((plain as Agent & { keepAlive: boolean }).keepAlive).toBe(true);
    expect(plain.maxSockets).toBe(16);

    const first = pool.agentFor(new URL('https://r.test/')) as https.Agent;
    expect(first).toBeInstanceOf(https.Agent);
    expect(first.options.ca).toEqual([...rootCertificates, 'CA-1']);
    expect(pool.agentFor(new URL('https://r.test/'))).toBe(first);
    ca = 'CA-2';
    const second = pool.agentFor(new URL('https://r.test/')) as https.Agent;
    expect(second).not.toBe(first);
    expect(second.options.ca).toEqual([...rootCertificates, 'CA-2']);
    // The replaced agent keeps no idle socket from now on.
    expect(first.maxFreeSockets).toBe(0);
    ca = undefined;
    expect((pool.agentFor(new URL('https://r.test/')) as https.Agent).options.ca).toBeUndefined();
    pool.close();
  });

  it('uses fixed server TLS settings as given', () => {
    const pool = createAgentPool({
      maxSockets: 64,
      maxFreeSockets: 8,
      keepAliveMsecs: 30_000,
      tls: { ca: 'SERVER-CA', servername: 'api', rejectUnauthorized: true },
    });
    const agent = pool.agentFor(new URL('https://127.0.0.1:6443/')) as https.Agent;
    expect(agent.options).toMatchObject({ ca: 'SERVER-CA', servername: 'api', rejectUnauthorized: true, keepAlive: true, keepAliveMsecs: 30_000 });
    expect(agent.maxFreeSockets).toBe(8);
    pool.close();
  });

  it('reuses sockets across requests, and a retired agent closes its sockets once released', async () => {
    const pool = createAgentPool({ maxSockets: 4 });
    const agent = pool.agentFor(base);
    for (let i = 0; i < 5; i++) {
      const res = await sendRequest({ method: 'GET', url: base, agent });
      res.resume();
      await new Promise((r) => res.on('end', r));
      await new Promise((r) => setImmediate(r));
    }
    await new Promise((r) => setTimeout(r, 20));
    expect(count(agent.freeSockets)).toBe(1);
    // What the pool does to an agent replaced by a new CA bundle.
    agent.maxFreeSockets = 0;
    const res = await sendRequest({ method: 'GET', url: base, agent });
    res.resume();
    await new Promise((r) => res.on('end', r));
    await new Promise((r) => setTimeout(r, 20));
    expect(count(agent.freeSockets)).toBe(0);
    pool.close();
  });
});
