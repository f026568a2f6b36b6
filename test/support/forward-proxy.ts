/**
 * A forward proxy on 127.0.0.1 (or another local address) for tests, speaking what corporate
 * proxies speak: plain HTTP in absolute form (`GET http://host:port/path`) and `CONNECT
 * host:port` tunnels. It records every request that passed through it (method, target,
 * Proxy-Authorization), can require credentials (407 otherwise) and refuse hosts (403), and
 * resolves names through its own table first: `hosts` maps a name (or `*.suffix`) to an
 * address, so that a test can give a loopback server a name that only the proxy knows. A
 * request whose traffic reached its server through this proxy is therefore one that named such
 * a host and was recorded here.
 */
import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { http } from '../../pkg/shared/nodehttp/index.ts';

/** One request the proxy handled. */
export interface ProxiedRequest {
  /** `CONNECT` or the forwarded method. */
  method: string;
  /** `host:port` for CONNECT, the absolute URL otherwise. */
  target: string;
  /** `host:port` the request was for. */
  authority: string;
  proxyAuthorization: string | undefined;
  /** The status the proxy answered itself (403, 407, 502), or 200 when it forwarded. */
  status: number;
}

export interface ForwardProxyOptions {
  /** Name (or `*.suffix`) to address; other names resolve through the system resolver. */
  hosts?: Record<string, string>;
  /** `user:password` the proxy requires (`Proxy-Authorization: Basic`); default none. */
  credentials?: string;
  /** Hosts the proxy answers 403 for. */
  refuse?: string[];
  /** The address it listens on (default 127.0.0.1), e.g. a node's bridge address Pods reach. */
  listenHost?: string;
}

export interface ForwardProxy {
  /** `http://<listenHost>:<port>` (with `user:password@` when credentials are required). */
  url: string;
  port: number;
  readonly requests: readonly ProxiedRequest[];
  /** Requests whose authority's host is `host` (or ends with `.suffix` when given `.suffix`). */
  requestsFor(host: string): ProxiedRequest[];
  close(): Promise<void>;
}

/** Starts the proxy; close() stops it and every tunnel. */
export async function startForwardProxy(o: ForwardProxyOptions = {}): Promise<ForwardProxy> {
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = http.createServer((req, res) => void forward(req, res));
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  const resolve = (host: string): string => {
    const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    for (const [name, address] of Object.entries(o.hosts ?? {})) {
      if (name === h || (name.startsWith('*.') && h.endsWith(name.slice(1)))) return address;
    }
    return h;
  };
  const split = (authority: string): { host: string; port: number } => {
    const m = /^(.*):(\d+)$/.exec(authority);
    return { host: m?.[1] ?? authority, port: Number(m?.[2] ?? 80) };
  };
  /** The status the proxy answers itself, or undefined to forward. */
  const verdict = (req: IncomingMessage, authority: string): number | undefined => {
    if (o.credentials !== undefined && req.headers['proxy-authorization'] !== `Basic ${Buffer.from(o.credentials).toString('base64')}`) return 407;
    if ((o.refuse ?? []).includes(split(authority).host)) return 403;
    return undefined;
  };
  const record = (req: IncomingMessage, target: string, authority: string, status: number): void => {
    const auth = req.headers['proxy-authorization'];
    requests.push({ method: req.method ?? '', target, authority, proxyAuthorization: typeof auth === 'string' ? auth : undefined, status });
  };

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '';
    const url = URL.canParse(target) ? new URL(target) : undefined;
    const authority = url === undefined ? '' : `${url.hostname}:${url.port !== '' ? url.port : 80}`;
    const refused = url === undefined ? 400 : verdict(req, authority);
    record(req, target, authority, refused ?? 200);
    if (refused !== undefined || url === undefined) {
      res.writeHead(refused ?? 400, refused === 407 ? { 'proxy-authenticate': 'Basic realm="test"' } : {}).end();
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = http.request({
      host: resolve(url.hostname),
      port: Number(authority.split(':').pop()),
      method: req.method,
      path: url.pathname + url.search,
      headers,
    });
    upstream.on('response', (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    req.pipe(upstream);
  }

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const authority = req.url ?? '';
    const refused = verdict(req, authority);
    record(req, authority, authority, refused ?? 200);
    if (refused !== undefined) {
      client.end(`HTTP/1.1 ${refused} ${refused === 407 ? 'Proxy Authentication Required' : 'Forbidden'}\r\n\r\n`);
      return;
    }
    const { host, port } = split(authority);
    const upstream = connect(port, resolve(host), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => (client.writable ? client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n') : client.destroy()));
    client.on('error', () => upstream.destroy());
  });

  const listenHost = o.listenHost ?? '127.0.0.1';
  server.listen(0, listenHost);
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://${o.credentials === undefined ? '' : `${o.credentials}@`}${listenHost}:${port}`,
    port,
    requests,
    requestsFor: (host) => requests.filter((r) => (host.startsWith('.') ? split(r.authority).host.endsWith(host) : split(r.authority).host === host)),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
