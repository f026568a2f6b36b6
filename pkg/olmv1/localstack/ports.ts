/**
 * Free loopback TCP ports for servers we start: free now, but another process may take one before
 * our server binds, so a start that fails with "address already in use" is retried.
 */
import { createServer, type Server } from 'node:net';
import { ServerExitedError } from './wait.ts';

/** Returns `count` distinct ports free on 127.0.0.1 (all held open until every one is chosen). */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('listener has no TCP address');
      ports.push(address.port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

/** True when a server log says its listen address was taken (Go's and etcd's wording). */
export function isAddressInUse(log: string): boolean {
  return /address already in use/i.test(log);
}

/**
 * True when `err`, or an error in its cause chain, is a server losing its listen address: a
 * process's exit whose log says so (ServerExitedError), or Node's own listen error (EADDRINUSE)
 * of a server run in this process.
 */
export function isPortTaken(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof ServerExitedError ? isAddressInUse(e.logTail) : (e as NodeJS.ErrnoException).code === 'EADDRINUSE') return true;
  }
  return false;
}

/**
 * Calls `start` with `count` free ports (and the attempt's number), again with new ones when
 * the server lost a port to another process meanwhile (isPortTaken), three attempts at most.
 */
export async function withFreePorts<T>(count: number, start: (ports: number[], attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePorts(count), attempt);
    } catch (err) {
      if (attempt >= 3 || !isPortTaken(err)) throw err;
    }
  }
}
