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
import { readFile } from 'node:fs/promises';
import { http } from '../../pkg/shared/nodehttp/index.ts';
import { listenAndAnnounce, runServer, serveArgs, storeCatalogs } from '../lib/bare-server.ts';

const ALL = /^\/catalogs\/([^/]+)\/api\/v1\/all$/;

runServer(async () => {
  const args = serveArgs(process.argv.slice(2));
  const { store, remove } = await storeCatalogs(args.catalogs);
  const bodies = new Map<string, Buffer>();
  for (const [name] of args.catalogs) {
    const version = store.get(name);
    if (version === undefined) throw new Error(`catalog ${name} was not stored`);
    bodies.set(name, await readFile(version.path('jsonl')));
  }
  await remove();

  const server = http.createServer((req, res) => {
    const body = bodies.get(ALL.exec(req.url ?? '')?.[1] ?? '');
    if (body === undefined || req.method !== 'GET') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/jsonl', 'content-length': body.length });
    res.end(body);
  });
  await listenAndAnnounce(server, args);
});
