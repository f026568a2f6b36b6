/**
 * Keep-alive agents that reach their servers through an HTTP(S) forward proxy, as Go's
 * http.Transport with a `Proxy` function: `http:` requests go to the proxy in absolute form,
 * `https:` ones through a `CONNECT` tunnel, then TLS with the server against the agent's trust;
 * `Proxy-Authorization: Basic` when the proxy URL has credentials. An `https://` proxy's
 * certificate is checked against the same trust, as Go's.
 *
 * Not Node 24's `proxyEnv`: its `NO_PROXY` rules differ from Go's, and its tunnel set-up escapes
 * a connect timeout. Here `connectTimeoutMs` bounds proxy connect, CONNECT and TLS (then a
 * {@link RequestTimeoutError} of phase `connect`); proxy-marks.ts marks the sockets established.
 * Error texts are Go's: `proxyconnect tcp: <cause>`, or a refused CONNECT's status text.
 */
import type { Agent, AgentOptions, ClientRequestArgs } from 'node:http';
import https from 'node:https';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { http } from './http.ts';
import { establishedSockets, markHttpProxyAgent } from './proxy-marks.ts';
import { RequestTimeoutError } from './request.ts';

/** Settings of a proxy agent. */
interface ProxyAgentOptions {
  /** The proxy: `http://` or `https://`, with optional `user:password@`. */
  proxy: URL;
  /** Options of the agent itself (keep-alive, socket limits) and, for HTTPS, the TLS options of its servers. */
  agent: https.AgentOptions;
  /** Bound of establishing one connection (proxy, CONNECT, TLS). */
  connectTimeoutMs: number;
}

/** An agent for `http:` URLs that sends every request to the proxy. */
export function createHttpProxyAgent(o: ProxyAgentOptions): Agent {
  const agent = new HttpProxyAgent(o);
  markHttpProxyAgent(agent, authorizationOf(o.proxy));
  return agent;
}

/** An agent for `https:` URLs that tunnels every connection through the proxy. */
export function createTunnelAgent(o: ProxyAgentOptions): https.Agent {
  return new TunnelAgent(o);
}

type Callback = (err: Error | null, stream: Duplex) => void;

class HttpProxyAgent extends http.Agent {
  readonly #o: ProxyAgentOptions;

  constructor(o: ProxyAgentOptions) {
    super(o.agent as AgentOptions);
    this.#o = o;
  }

  override createConnection(options: ClientRequestArgs, callback?: Callback): undefined {
    const target = new URL(`http://${authority(options, 80)}/`);
    establish(this.#o, target, options, async (socket) => socket).then(
      (s) => callback?.(null, s),
      (err: Error) => callback?.(err, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

class TunnelAgent extends https.Agent {
  readonly #o: ProxyAgentOptions;

  constructor(o: ProxyAgentOptions) {
    super(o.agent);
    this.#o = o;
  }

  override createConnection(options: ClientRequestArgs, callback?: Callback): undefined {
    const server = authority(options, 443);
    establish(this.#o, new URL(`https://${server}/`), options, async (socket, signal) => {
      await connectTunnel(socket, server, authorizationOf(this.#o.proxy), signal);
      return handshake(socket, options as ConnectionOptions, signal);
    }).then(
      (s) => callback?.(null, s),
      (err: Error) => callback?.(err, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

/**
 * Connects to the proxy and runs `then` on the socket, all within the connect bound; the
 * socket is destroyed on any failure.
 */
async function establish(
  o: ProxyAgentOptions,
  target: URL,
  options: ClientRequestArgs & { keepAlive?: boolean; keepAliveInitialDelay?: number },
  then: (socket: Socket, signal: AbortSignal) => Promise<Socket | TLSSocket>,
): Promise<Socket | TLSSocket> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new RequestTimeoutError('connect', o.connectTimeoutMs, target)), o.connectTimeoutMs);
  let socket: Socket | undefined;
  try {
    socket = await connectProxy(o, timeout.signal);
    if (options.keepAlive === true) socket.setKeepAlive(true, options.keepAliveInitialDelay ?? 1000);
    const ready = await then(socket, timeout.signal);
    establishedSockets.add(ready);
    return ready;
  } catch (err) {
    socket?.destroy();
    throw timeout.signal.aborted ? timeout.signal.reason : err;
  } finally {
    clearTimeout(timer);
  }
}

function connectProxy(o: ProxyAgentOptions, signal: AbortSignal): Promise<Socket> {
  const host = o.proxy.hostname.replace(/^\[(.*)\]$/, '$1');
  const secure = o.proxy.protocol === 'https:';
  const port = Number(o.proxy.port !== '' ? o.proxy.port : secure ? 443 : 80);
  const tls = o.agent;
  const socket: Socket = secure
    ? tlsConnect({ host, port, ...(isIP(host) === 0 ? { servername: host } : {}), ...(tls.ca === undefined ? {} : { ca: tls.ca }) })
    : netConnect({ host, port });
  return settle(socket, secure ? 'secureConnect' : 'connect', signal, (err) => new Error(`proxyconnect tcp: ${err.message}`, { cause: err })).catch(
    (err: unknown) => {
      socket.destroy();
      throw err;
    },
  );
}

const MAX_CONNECT_RESPONSE = 16 * 1024;

/** Sends CONNECT and reads the proxy's answer; resolves on 200 with the tunnel ready. */
function connectTunnel(socket: Socket, target: string, authorization: string | undefined, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const done = (err?: Error): void => {
      socket.off('data', onData).off('error', onError).off('end', onEnd).off('close', onEnd);
      signal.removeEventListener('abort', onAbort);
      if (err === undefined) resolve();
      else reject(err);
    };
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buffered.length > MAX_CONNECT_RESPONSE) done(new Error('proxyconnect tcp: response to CONNECT too large'));
        return;
      }
      socket.pause();
      const rest = buffered.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      const status = /^HTTP\/\d(?:\.\d)? (\d{3})(?: (.*))?$/.exec(buffered.subarray(0, buffered.indexOf('\r\n')).toString('latin1'));
      if (status === null) return done(new Error('proxyconnect tcp: malformed response to CONNECT'));
      // Go accepts only 200 and reports the status text alone, e.g. `Forbidden`.
      if (status[1] === '200') return done();
      done(new Error(status[2] !== undefined && status[2] !== '' ? status[2] : 'unknown status code'));
    };
    const onError = (err: Error): void => done(new Error(`proxyconnect tcp: ${err.message}`, { cause: err }));
    const onEnd = (): void => done(new Error('proxyconnect tcp: the proxy closed the connection before answering CONNECT'));
    const onAbort = (): void => done(signal.reason);
    socket.on('data', onData).on('error', onError).on('end', onEnd).on('close', onEnd);
    signal.addEventListener('abort', onAbort, { once: true });
    const lines = [`CONNECT ${target} HTTP/1.1`, `Host: ${target}`];
    if (authorization !== undefined) lines.push(`Proxy-Authorization: ${authorization}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

/** TLS with the server over the tunnel, with the agent's per-request TLS options. */
function handshake(socket: Socket, options: ConnectionOptions, signal: AbortSignal): Promise<TLSSocket> {
  const host = options.host ?? '';
  // From here the TLS socket reports the connection's errors; the raw one must not crash the
  // process with an unhandled 'error' of its own.
  socket.on('error', () => undefined);
  const secure = tlsConnect({ ...options, socket, ...(options.servername === undefined && isIP(host) === 0 ? { servername: host } : {}) });
  return settle(secure, 'secureConnect', signal, (err) => err).then(
    () => secure,
    (err: unknown) => {
      // Without an error argument: nobody listens for one any more.
      secure.destroy();
      throw err;
    },
  );
}

/** Resolves with `socket` on `event`; rejects with `wrap(error)`, or the abort reason. */
function settle<S extends Socket>(socket: S, event: string, signal: AbortSignal, wrap: (err: Error) => Error): Promise<S> {
  return new Promise<S>((resolve, reject) => {
    const cleanup = (): void => {
      socket.off(event, onReady).off('error', onError);
      signal.removeEventListener('abort', onAbort);
    };
    const onReady = (): void => {
      cleanup();
      resolve(socket);
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(wrap(err));
    };
    const onAbort = (): void => {
      cleanup();
      reject(signal.reason);
    };
    socket.once(event, onReady).once('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** `host:port` of the agent's connection options (IPv6 in brackets). */
function authority(options: ClientRequestArgs, defaultPort: number): string {
  const host = options.host ?? options.hostname ?? 'localhost';
  const h = isIP(host) === 6 ? `[${host}]` : host;
  return `${h}:${options.port ?? defaultPort}`;
}

function authorizationOf(proxy: URL): string | undefined {
  if (proxy.username === '' && proxy.password === '') return undefined;
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return `Basic ${Buffer.from(credentials).toString('base64')}`;
}
