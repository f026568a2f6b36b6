/**
 * A registry farther away: an HTTP proxy on a loopback port in front of the bench's registry
 * that holds every request for `delayMs` before forwarding it, as a remote registry's round
 * trips and larger layers make a pull take seconds where the loopback registry answers in
 * milliseconds. Requests are forwarded as they come (method, path, headers, body) and answers
 * streamed back; `Host` names the registry.
 */
import { type IncomingMessage, type ServerResponse, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running proxy: `host` is `127.0.0.1:PORT`. */
export interface SlowRegistry {
  host: string;
  /** Requests forwarded so far. */
  requests(): number;
  close(): Promise<void>;
}

/** Starts the proxy in front of `registry` (`host:port`), each request held `delayMs`. */
export async function startSlowRegistry(registry: string, delayMs: number): Promise<SlowRegistry> {
  const [hostname = '127.0.0.1', port = '80'] = registry.split(':');
  let count = 0;
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    count++;
    const upstream = request(
      { hostname, port: Number(port), method: req.method, path: req.url, headers: { ...req.headers, host: registry } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => res.destroy(err));
    req.pipe(upstream);
  };
  const server = createServer((req, res) => {
    req.pause();
    setTimeout(() => {
      req.resume();
      forward(req, res);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${own}`,
    requests: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
