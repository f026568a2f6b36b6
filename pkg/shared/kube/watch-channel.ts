/**
 * The channel long-lived watches go through, apart from the request agent, so no number of
 * watches makes a request wait for a socket (decision 0065).
 *
 * Over TLS watches are HTTP/2 streams, multiplexed over as few sessions as the server's
 * `SETTINGS_MAX_CONCURRENT_STREAMS` allows (kube-apiserver: 100): hundreds of watches cost a
 * few sockets. Plain-HTTP servers, `protocol: 'http/1.1'` and servers behind a forward proxy
 * (no HTTP/2 through a tunnel) get a dedicated uncapped HTTP/1.1 agent instead.
 */
import type { Agent, IncomingHttpHeaders } from 'node:http';
import type * as NodeHttp2 from 'node:http2';
import type { Readable } from 'node:stream';
import { createAgentPool, sendRequest, type ServerTlsOptions } from '../nodehttp/index.ts';
import { errorMessage } from '../errors/index.ts';

/** One request to send over a channel. */
interface ChannelRequest {
  method: string;
  url: URL;
  headers: Record<string, string | string[]>;
  body?: Buffer | undefined;
  signal?: AbortSignal | undefined;
  /** Bound of the wait for response headers; 0 disables it. */
  timeoutMs: number;
  /** A request that may be sent twice whatever its method (RequestOptions.idempotent); requests only. */
  idempotent?: boolean | undefined;
}

/** A response whose body is still to be read (or destroyed) by the caller. */
export interface ChannelResponse {
  status: number;
  headers: IncomingHttpHeaders;
  stream: Readable;
}

/** Usage figures of a channel. */
export interface ChannelStats {
  protocol: 'h2' | 'http/1.1';
  /** Open HTTP/2 sessions, or open sockets of the HTTP/1.1 agent. */
  connections: number;
  /** Requests whose response has not ended yet. */
  streams: number;
}

/** Where watches go. One channel may serve many identities (bearer headers per request). */
export interface WatchChannel {
  /** Sends `req`; resolves at response headers. Errors read `<METHOD> <url>: <reason>`. */
  send(req: ChannelRequest): Promise<ChannelResponse>;
  stats(): ChannelStats;
  /** Ends every session and socket; the channel must not be used afterwards. */
  close(): void;
}

/** Options of {@link createWatchChannel}. */
interface WatchChannelOptions {
  /** `h2` (default for https servers; prior-knowledge h2c for http ones) or `http/1.1` (default for http servers). */
  protocol?: 'h2' | 'http/1.1';
  /** Forward proxy (http or https) every watch goes through; implies `http/1.1`. */
  proxy?: URL;
}

/** Streams per session at most, lower if the server's settings say so. */
const MAX_STREAMS_PER_SESSION = 100;
/** An HTTP/2 session without streams is closed after this long. */
const SESSION_IDLE_MS = 60_000;

/** Creates the watch channel of `server` with `tls` (client certificate included, if any). */
export function createWatchChannel(server: URL, tls: ServerTlsOptions, options: WatchChannelOptions = {}): WatchChannel {
  const protocol = options.proxy !== undefined ? 'http/1.1' : (options.protocol ?? (server.protocol === 'http:' ? 'http/1.1' : 'h2'));
  if (protocol === 'http/1.1') return http1Channel(server, tls, options.proxy);
  return http2Channel(server, tls);
}

/**
 * Sends one HTTP/1.1 request through `agent` (the transport's requests too). Errors read
 * `<METHOD> <url>: <reason>`; an abort rejects with the signal's reason.
 */
export async function sendHttp1(agent: Agent, req: ChannelRequest): Promise<ChannelResponse> {
  const res = await sendRequest({
    method: req.method,
    url: req.url,
    agent,
    headers: req.headers,
    body: req.body,
    signal: req.signal,
    headersTimeoutMs: req.timeoutMs,
    idempotent: req.idempotent,
    abort: 'reason',
    describe: (method, url) => `${method} ${url.href}`,
  });
  return { status: res.statusCode ?? 0, headers: res.headers, stream: res };
}

function http1Channel(server: URL, tls: ServerTlsOptions, proxy: URL | undefined): WatchChannel {
  const agent = createAgentPool({
    maxSockets: Infinity,
    maxFreeSockets: 8,
    keepAliveMsecs: 30_000,
    tls,
    proxy: proxy === undefined ? undefined : () => proxy,
  }).agentFor(server);
  let streams = 0;
  const count = (l: NodeJS.ReadOnlyDict<unknown[]>): number => Object.values(l).reduce((n, s) => n + (s?.length ?? 0), 0);
  return {
    async send(req) {
      const res = await sendHttp1(agent, req);
      streams++;
      res.stream.once('close', () => streams--);
      return res;
    },
    stats: () => ({ protocol: 'http/1.1', connections: count(agent.sockets) + count(agent.freeSockets), streams }),
    close: () => agent.destroy(),
  };
}

interface Session {
  session: NodeHttp2.ClientHttp2Session;
  ready: Promise<void>;
  /** Streams reserved or open on this session. */
  active: number;
  maxStreams: number;
  /** No new streams (GOAWAY, error, closed). */
  retired: boolean;
  /** The server's settings arrived. */
  settled: boolean;
  idleTimer: NodeJS.Timeout | undefined;
}

function http2Channel(server: URL, tls: ServerTlsOptions): WatchChannel {
  const h2: typeof NodeHttp2 = process.getBuiltinModule('node:http2');
  const cap = MAX_STREAMS_PER_SESSION;
  const sessions = new Set<Session>();
  let closed = false;

  function open(): Session {
    const session = h2.connect(server.origin, { ...definedTls(tls), settings: { enablePush: false } });
    const entry: Session = { session, ready: Promise.resolve(), active: 0, maxStreams: cap, retired: false, settled: false, idleTimer: undefined };
    entry.ready = new Promise<void>((resolve, reject) => {
      session.once('remoteSettings', (s) => {
        if (s.maxConcurrentStreams !== undefined && s.maxConcurrentStreams > 0) entry.maxStreams = Math.min(cap, s.maxConcurrentStreams);
        entry.settled = true;
        resolve();
      });
      session.once('error', reject);
      session.once('close', () => reject(new Error('the HTTP/2 session closed before it was ready')));
    });
    entry.ready.catch(() => undefined);
    const retire = (): void => {
      entry.retired = true;
      clearTimeout(entry.idleTimer);
    };
    session.on('error', retire);
    session.on('goaway', retire);
    session.on('close', () => {
      retire();
      sessions.delete(entry);
    });
    sessions.add(entry);
    return entry;
  }

  // A stream goes only to a session whose limit is known: callers wait for a connecting
  // session's settings and pick again, so a server never gets streams it would queue.
  async function acquire(req: ChannelRequest): Promise<Session> {
    for (;;) {
      let pending: Session | undefined;
      for (const s of sessions) {
        if (s.retired) continue;
        if (!s.settled) pending ??= s;
        else if (s.active < s.maxStreams) {
          s.active++;
          clearTimeout(s.idleTimer);
          s.session.ref();
          return s;
        }
      }
      await bounded((pending ?? open()).ready, req);
    }
  }

  function release(entry: Session): void {
    entry.active--;
    if (entry.active > 0 || entry.retired) return;
    entry.session.unref();
    entry.idleTimer = setTimeout(() => entry.session.close(), SESSION_IDLE_MS);
    entry.idleTimer.unref();
  }

  async function send(req: ChannelRequest): Promise<ChannelResponse> {
    const { method, url, signal, timeoutMs } = req;
    if (closed) throw new Error(`${method} ${url.href}: the watch channel is closed`);
    signal?.throwIfAborted();
    let entry: Session;
    try {
      entry = await acquire(req);
    } catch (err) {
      if (signal?.aborted === true) throw signal.reason;
      throw new Error(`${method} ${url.href}: ${errorMessage(err)}`, { cause: err });
    }
    const releaseOnce = releaserOf(release, entry);
    return new Promise<ChannelResponse>((resolve, reject) => {
      const headers: NodeHttp2.OutgoingHttpHeaders = { ':method': method, ':path': url.pathname + url.search };
      for (const [k, v] of Object.entries(req.headers)) {
        const name = k.toLowerCase();
        if (name !== 'connection' && name !== 'host' && name !== 'keep-alive' && name !== 'transfer-encoding') headers[name] = v;
      }
      let stream: NodeHttp2.ClientHttp2Stream;
      try {
        stream = entry.session.request(headers, { endStream: req.body === undefined });
      } catch (err) {
        releaseOnce();
        reject(new Error(`${method} ${url.href}: ${errorMessage(err)}`, { cause: err }));
        return;
      }
      let answered = false;
      const fail = (err: Error): void => {
        clearTimeout(timer);
        if (answered) return;
        answered = true;
        if (signal?.aborted === true) reject(signal.reason);
        else reject(new Error(`${method} ${url.href}: ${err.message}`, { cause: err }));
      };
      // Like the `signal` of an HTTP/1.1 request: an abort also ends a body being read.
      const onAbort = (): void => {
        stream.destroy(abortError(signal));
        fail(new Error('aborted'));
      };
      const onClose = (): void => {
        releaseOnce();
        signal?.removeEventListener('abort', onAbort);
        if (!answered) fail(new Error(stream.rstCode === 0 ? 'the stream closed before a response' : `stream reset (code ${stream.rstCode})`));
      };
      const timer = timeoutMs > 0 ? setTimeout(() => stream.destroy(new Error(`request timed out after ${timeoutMs} ms`)), timeoutMs) : undefined;
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted === true) onAbort();
      stream.once('close', onClose);
      stream.on('error', fail);
      stream.once('response', (h) => {
        clearTimeout(timer);
        answered = true;
        // A watch's stream lives for minutes: its listeners from here on are made apart from
        // this request, so they keep the stream and signal alive, not its URL, headers and closures.
        stream.off('close', onClose);
        stream.off('error', fail);
        signal?.removeEventListener('abort', onAbort);
        whileOpen(stream, signal, releaseOnce);
        const { ':status': status, ...rest } = h;
        resolve({ status: Number(status), headers: rest as IncomingHttpHeaders, stream });
      });
      if (req.body !== undefined) stream.end(req.body);
    });
  }

  return {
    send,
    stats() {
      let streams = 0;
      for (const s of sessions) streams += s.active;
      return { protocol: 'h2', connections: sessions.size, streams };
    },
    close() {
      closed = true;
      for (const s of sessions) s.session.destroy();
      sessions.clear();
    },
  };
}

/** `release(entry)`, once however often called; made here so that it holds nothing else. */
function releaserOf(release: (entry: Session) => void, entry: Session): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release(entry);
  };
}

function abortError(signal: AbortSignal | undefined): Error {
  return signal?.reason instanceof Error ? signal.reason : new Error('aborted');
}

/** Errors after the response reach the caller through the body; this one only keeps them handled. */
const handled = (): void => undefined;

/**
 * The listeners of an answered stream: an abort of `signal` ends the body being read, and the
 * stream's end frees its slot on the session. Made apart from the request, which they outlive.
 */
function whileOpen(stream: NodeHttp2.ClientHttp2Stream, signal: AbortSignal | undefined, releaseOnce: () => void): void {
  const onAbort = (): void => void stream.destroy(abortError(signal));
  signal?.addEventListener('abort', onAbort, { once: true });
  stream.once('close', () => {
    releaseOnce();
    signal?.removeEventListener('abort', onAbort);
  });
  stream.on('error', handled);
}

/** `ready`, or the request's abort or timeout, whichever comes first. */
function bounded(ready: Promise<void>, req: ChannelRequest): Promise<void> {
  if (req.timeoutMs <= 0 && req.signal === undefined) return ready;
  return new Promise<void>((resolve, reject) => {
    const timer = req.timeoutMs > 0 ? setTimeout(() => done(new Error(`request timed out after ${req.timeoutMs} ms`)), req.timeoutMs) : undefined;
    const onAbort = (): void => done(new Error('aborted'));
    function done(err?: unknown): void {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      if (err === undefined) resolve();
      else reject(err);
    }
    req.signal?.addEventListener('abort', onAbort, { once: true });
    ready.then(() => done(), done);
  });
}

function definedTls(tls: ServerTlsOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(tls)) if (v !== undefined) out[k] = v;
  return out;
}
