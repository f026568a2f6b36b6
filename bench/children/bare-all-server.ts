/**
 * Benchmark child, for comparison only: the floor under an identity `/api/v1/all` download from
 * a Node server. Each catalog is ingested as `olmv1 catalog serve` does, then its stored JSON
 * lines are read into memory whole, once, and every `GET /catalogs/NAME/api/v1/all` is answered
 * with that one Buffer in one `res.end`: no file reads, no streaming, no request handling beyond
 * matching the path. What remains is what any `node:http` server pays to send the bytes (the
 * copy from the process into the socket, the loopback TCP path, the client); upstream's Go
 * server sends from the file with `sendfile`, which Node's `http` does not offer. It holds the
 * whole catalog in memory, so it is a measuring stick, not a server to ship (decision 0099).
 *
 * Usage: node bare-all-server.ts NAME=DIR [NAME=DIR ...] --listen 127.0.0.1:0
 * Prints `serving http://HOST:PORT/catalogs/NAME/` on stderr per catalog, as the real command.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { http } from '../../pkg/shared/nodehttp/index.ts';
import { LocalDirStore, createProcessIngest } from '../../pkg/catalogd/storage/index.ts';

const ALL = /^\/catalogs\/([^/]+)\/api\/v1\/all$/;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const listenAt = args.indexOf('--listen');
  const [host = '127.0.0.1', port = '0'] = (listenAt < 0 ? '127.0.0.1:0' : (args[listenAt + 1] ?? '')).split(':');
  const catalogs = args.filter((a, i) => a.includes('=') && i !== listenAt + 1).map((a) => a.split('=') as [string, string]);
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const root = await mkdtemp(join(tmpdir(), 'olmv1-bare-all-'));
  const store = new LocalDirStore({ root, ingest: createProcessIngest(), logger });
  await store.open();
  const bodies = new Map<string, Buffer>();
  for (const [name, dir] of catalogs) {
    const digest = `sha256:${createHash('sha256').update(resolve(dir)).digest('hex')}`;
    await store.store(name, { digest, ref: dir, unpackedAt: new Date().toISOString() }, { fbcDir: resolve(dir) });
    const version = store.get(name);
    if (version === undefined) throw new Error(`catalog ${name} was not stored`);
    bodies.set(name, await readFile(version.path('jsonl')));
  }
  await store.close();
  await rm(root, { recursive: true, force: true });

  const server = http.createServer((req, res) => {
    const body = bodies.get(ALL.exec(req.url ?? '')?.[1] ?? '');
    if (body === undefined || req.method !== 'GET') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/jsonl', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((done) => server.listen(Number(port), host, done));
  const address = server.address();
  const origin = `http://${host}:${typeof address === 'object' && address !== null ? address.port : port}`;
  for (const [name] of catalogs) process.stderr.write(`serving ${origin}/catalogs/${name}/\n`);
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
