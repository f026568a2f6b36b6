import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closedLoop } from './closed-loop.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.closeIdleConnections();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('closedLoop', () => {
  it('counts body bytes of Content-Length and chunked responses, and which were gzip', async () => {
    const origin = await serve((req, res) => {
      if (req.url === '/fixed') {
        res.writeHead(200, { 'content-length': 1000, 'content-encoding': 'gzip' });
        res.end(Buffer.alloc(1000, 1));
        return;
      }
      // Chunked, in pieces that arrive in separate reads, one of them empty of body bytes.
      res.writeHead(200, { 'content-type': 'application/jsonl' });
      res.write('x'.repeat(300));
      setTimeout(() => {
        res.write('y'.repeat(4000));
        res.write('z');
        // The last chunk on its own, in a later read.
        setTimeout(() => res.end(), 2);
      }, 2);
    });
    let i = 0;
    const r = await closedLoop({
      origin,
      clients: 4,
      warmupMs: 50,
      durationMs: 400,
      nextPath: () => (i++ % 2 === 0 ? '/fixed' : '/chunked'),
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(r.errors).toBe(0);
    expect(r.non200).toBe(0);
    expect(r.requests).toBeGreaterThan(10);
    // Every client alternates from its own start, so both kinds are recorded; each response is
    // exactly 1000 or 4301 body bytes.
    const gzip = Math.round(r.gzipShare * r.requests);
    expect(r.bytes).toBe(gzip * 1000 + (r.requests - gzip) * 4301);
    expect(gzip).toBeGreaterThan(0);
    expect(gzip).toBeLessThan(r.requests);
    expect(r.latencies).toHaveLength(r.requests);
  });

  it('counts non-200 answers and responses cut off by the server as errors, and still ends', async () => {
    let n = 0;
    const origin = await serve((_req, res) => {
      n++;
      if (n % 3 === 0) {
        res.writeHead(200, { 'content-length': 100 });
        res.write('partial');
        res.destroy();
        return;
      }
      res.writeHead(n % 3 === 1 ? 404 : 200, { 'content-length': 2 });
      res.end('ok');
    });
    // A cut-off response must not hang a client: the loop resolves (within the test's timeout).
    const r = await closedLoop({ origin, clients: 2, warmupMs: 0, durationMs: 300, nextPath: () => '/' });
    expect(r.errors).toBeGreaterThan(0);
    expect(r.non200).toBeGreaterThan(0);
    expect(r.requests).toBeGreaterThan(r.non200);
  });

  it('ends when nothing listens, counting the refused connections', async () => {
    const origin = await serve(() => undefined);
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const r = await closedLoop({ origin, clients: 1, warmupMs: 0, durationMs: 200, nextPath: () => '/' });
    expect(r.requests).toBe(0);
    expect(r.errors).toBeGreaterThan(0);
  });
});
