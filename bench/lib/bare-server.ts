/**
 * What the bare comparison servers (bench/children/bare-*-server.ts) share with `olmv1 catalog
 * serve`: its arguments (`NAME=DIR ... --listen HOST:PORT`), each catalog ingested into a
 * LocalDirStore as the command does, and the `serving` lines the bench waits for
 * (bench/lib/catalog-server.ts).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { LocalDirStore, createProcessIngest } from '../../pkg/catalogd/storage/index.ts';

/** The command line: where to listen and the catalogs (name, FBC directory). */
export interface ServeArgs {
  host: string;
  port: number;
  catalogs: [string, string][];
}

/** Reads `NAME=DIR ... [--listen HOST:PORT]` (default 127.0.0.1:0). */
export function serveArgs(argv: readonly string[]): ServeArgs {
  const listenAt = argv.indexOf('--listen');
  const [host = '127.0.0.1', port = '0'] = (listenAt < 0 ? '127.0.0.1:0' : (argv[listenAt + 1] ?? '')).split(':');
  const catalogs = argv.filter((a, i) => a.includes('=') && (listenAt < 0 || i !== listenAt + 1)).map((a) => a.split('=') as [string, string]);
  return { host, port: Number(port), catalogs };
}

/** A fresh store under the temporary directory holding each catalog; `remove` closes and deletes it. */
export async function storeCatalogs(catalogs: readonly [string, string][]): Promise<{ store: LocalDirStore; remove: () => Promise<void> }> {
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const root = await mkdtemp(join(tmpdir(), 'olmv1-bare-'));
  const store = new LocalDirStore({ root, ingest: createProcessIngest(), logger });
  await store.open();
  for (const [name, dir] of catalogs) {
    const digest = `sha256:${createHash('sha256').update(resolve(dir)).digest('hex')}`;
    await store.store(name, { digest, ref: dir, unpackedAt: new Date().toISOString() }, { fbcDir: resolve(dir) });
  }
  return { store, remove: () => store.close().then(() => rm(root, { recursive: true, force: true })) };
}

/**
 * Listens on `args`, prints `serving <origin>/catalogs/NAME/` per catalog on stderr, and on
 * SIGTERM closes the server and runs `cleanup`.
 */
export async function listenAndAnnounce(server: Server, args: ServeArgs, cleanup: () => Promise<void> = () => Promise.resolve()): Promise<void> {
  await new Promise<void>((done) => server.listen(args.port, args.host, done));
  const address = server.address();
  const origin = `http://${args.host}:${typeof address === 'object' && address !== null ? address.port : args.port}`;
  for (const [name] of args.catalogs) process.stderr.write(`serving ${origin}/catalogs/${name}/\n`);
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void cleanup();
  });
}

/** Runs a child's `main`, printing a failure on stderr with a non-zero exit code. */
export function runServer(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  });
}
