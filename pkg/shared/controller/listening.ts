/**
 * What the components' small HTTP(S) servers (health probes, metrics) share: a request
 * listener that turns a failed handler into a logged 500, and starting, addressing and
 * stopping a `node:http`/`node:https` server.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';

/** A listener running `handle`; a rejection is logged with `message` and answered 500. */
export function guardedListener(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  log: Logger,
  message: string,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err, url: req.url }, message);
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('internal error\n');
    });
  };
}

/** Listens on `host:port` (with SO_REUSEPORT when `reusePort`, Linux); rejects when it cannot bind. */
export function listen(server: Server, port: number, host: string, options: { reusePort?: boolean } = {}): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, ...(options.reusePort === true ? { reusePort: true } : {}) }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The port `server` is bound to; throws naming `what` when it is not listening. */
export function boundPort(server: Server | undefined, what: string): number {
  const addr = server?.address();
  if (addr === null || addr === undefined || typeof addr === 'string') throw new Error(`the ${what} is not listening`);
  return (addr as AddressInfo).port;
}

/** Stops listening and closes idle connections. */
export function close(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
