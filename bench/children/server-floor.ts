/**
 * Benchmark child: the memory floor under catalogd's steady RSS that no catalogd code causes.
 * A server built from the same libraries as catalogd's catalog server, answering every request
 * with one fixed 9.6 KiB body (the size of a gzip package answer) and nothing else: `node:http`,
 * a pino logger, a prom-client registry with the default metrics and a request-duration
 * histogram observed per response. The parent sends it traffic (so the JIT compilers and the
 * HTTP code are paged in, as in a serving catalogd) and asks for its memory after forced
 * collections.
 *
 * Usage: node --expose-gc server-floor.ts
 */
import pino from 'pino';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { http } from '../../pkg/shared/nodehttp/index.ts';
// Not from ../lib/http-load.ts: an ES import of node:http loads undici (pkg/shared/nodehttp), ~14 MB of RSS.
import { setTimeout as sleep } from 'node:timers/promises';
import { type ChildMessage, fromParent, runChild, toParent } from '../lib/child.ts';
import { procMemory } from '../lib/proc.ts';

const BODY = Buffer.alloc(9_800, 'x');
const HEADERS = { 'content-type': 'application/jsonl', vary: 'Accept-Encoding' };

runChild(async () => {
  pino({ level: 'info' }, pino.destination('/dev/null'));
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({ name: 'floor_request_duration_seconds', help: 'request duration', labelNames: ['code'], registers: [registry] });

  const server = http.createServer((_req, res) => {
    const start = performance.now();
    res.writeHead(200, { ...HEADERS, 'content-length': BODY.length });
    res.end(BODY, () => duration.observe({ code: '200' }, (performance.now() - start) / 1000));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const origin = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  const close = (): Promise<void> => new Promise<void>((resolve) => server.close(() => resolve()));
  toParent({ type: 'ready', origin });

  await fromParent<ChildMessage>('memory');
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.();
    await sleep(50);
  }
  await sleep(2_000);
  toParent({ type: 'memory', proc: procMemory('self'), heapTotal: process.memoryUsage().heapTotal });
  await close();
});
