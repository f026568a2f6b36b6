import type { Agent } from 'node:http';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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

  it('keeps one HTTPS agent per TLS material and proxy, retiring one no destination uses any more', () => {
    const materials: Record<string, { id: string; ca: string; cert?: string; key?: string } | undefined> = {
      'a.test': { id: 'm1', ca: 'CA-A', cert: 'CERT', key: 'KEY' },
      'b.test': { id: 'm1', ca: 'CA-A', cert: 'CERT', key: 'KEY' },
      'c.test': undefined,
    };
    const pool = createAgentPool({
      maxSockets: 4,
      caPem: 'CA-FILE',
      tlsFor: (url) => materials[url.hostname],
      proxy: (url) => (url.hostname === 'c.test' ? new URL('http://proxy.test:3128') : undefined),
    });
    const a = pool.agentFor(new URL('https://a.test/')) as https.Agent;
    expect(pool.agentFor(new URL('https://b.test:5000/'))).toBe(a);
    expect(a.options).toMatchObject({ ca: [...rootCertificates, 'CA-FILE', 'CA-A'], cert: 'CERT', key: 'KEY' });
    const c = pool.agentFor(new URL('https://c.test/')) as https.Agent;
    expect(c).not.toBe(a);
    expect(c.options.ca).toEqual([...rootCertificates, 'CA-FILE']);
    // a.test moves to new material: b.test still uses the old agent, so it stays.
    materials['a.test'] = { id: 'm2', ca: 'CA-A2' };
    const a2 = pool.agentFor(new URL('https://a.test/'));
    expect(a2).not.toBe(a);
    expect(a.maxFreeSockets).not.toBe(0);
    materials['b.test'] = materials['a.test'];
    expect(pool.agentFor(new URL('https://b.test:5000/'))).toBe(a2);
    expect(a.maxFreeSockets).toBe(0);
    pool.close();
  });

  it('throws what the TLS material provider throws', () => {
    const pool = createAgentPool({
      maxSockets: 1,
      tlsFor: () => {
        throw new Error('missing key client.key for client certificate client.cert');
      },
    });
    expect(() => pool.agentFor(new URL('https://r.test/'))).toThrow('missing key client.key');
    expect(pool.agentFor(new URL('http://r.test/'))).toBeDefined();
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
    // Back in the pool once released: one socket served all five.
    await vi.waitFor(() => expect(count(agent.freeSockets)).toBe(1));
    // What the pool does to an agent replaced by a new CA bundle.
    agent.maxFreeSockets = 0;
    const res = await sendRequest({ method: 'GET', url: base, agent });
    const closed = new Promise((r) => res.socket.once('close', r));
    res.resume();
    await new Promise((r) => res.on('end', r));
    // Released into a pool that keeps none: closed, not kept.
    await closed;
    expect(count(agent.freeSockets)).toBe(0);
    pool.close();
  });
});
