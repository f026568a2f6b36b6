/**
 * One HTTP request through a keep-alive agent, with the single retry on a stale keep-alive
 * socket, timeouts, aborts, and error texts naming the request as Go's net/http does
 * (`Get "<url>": <reason>`) unless the caller names it otherwise.
 */
import type { Agent, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { http } from './http.ts';
import { establishedSockets, httpProxyRequest } from './proxy-marks.ts';

/** How an abort through `signal` surfaces (the request had no response yet). */
type AbortStyle =
  /** Rejects with `signal.reason` itself. */
  | 'reason'
  /** `<request>: context deadline exceeded` for a TimeoutError reason, else the reason's message. */
  | 'go'
  /** `<request>: <Node's AbortError message>` (`The operation was aborted`). */
  | 'native';

/** One request. */
interface SendOptions {
  method: string;
  url: URL;
  agent: Agent;
  headers?: OutgoingHttpHeaders | undefined;
  /** Sent as is; a Buffer so that the request can be sent again on a fresh socket. */
  body?: Buffer | undefined;
  signal?: AbortSignal | undefined;
  /** Bound of the wait for response headers: `request timed out after <n> ms` (0 or unset: none). */
  headersTimeoutMs?: number | undefined;
  /**
   * Bound of connecting a new socket (TCP and TLS): `connection not established within <n> ms`
   * (unset: none). A reused keep-alive socket is connected already.
   */
  connectTimeoutMs?: number | undefined;
  /** Socket inactivity limit, body included: `no data received for <n> ms` (unset: none). */
  idleTimeoutMs?: number | undefined;
  /** Default `'native'`. */
  abort?: AbortStyle | undefined;
  /** Names the request in error texts; default {@link describeRequest}. */
  describe?: ((method: string, url: URL) => string) | undefined;
  /**
   * Whether sending the request twice has no further effect (default: by its method, RFC 9110);
   * true for a POST that only asks or mints what the server does not store (reviews, TokenRequest).
   */
  idempotent?: boolean | undefined;
}

/** Which bound of {@link SendOptions} ended a request. */
type RequestTimeoutPhase = 'connect' | 'headers' | 'idle';

/** A request ended by a time bound: the rejection's `cause` (or the body's error, for `idle`). */
export class RequestTimeoutError extends Error {
  readonly phase: RequestTimeoutPhase;
  readonly ms: number;
  readonly url: URL;

  constructor(phase: RequestTimeoutPhase, ms: number, url: URL) {
    super(
      phase === 'connect'
        ? `connection not established within ${ms} ms`
        : phase === 'headers'
          ? `request timed out after ${ms} ms`
          : `no data received for ${ms} ms`,
    );
    this.name = 'RequestTimeoutError';
    this.phase = phase;
    this.ms = ms;
    this.url = url;
  }
}

const GO_METHOD: Readonly<Record<string, string>> = {
  GET: 'Get',
  HEAD: 'Head',
  POST: 'Post',
  PUT: 'Put',
  PATCH: 'Patch',
  DELETE: 'Delete',
  OPTIONS: 'Options',
};

/** Formats a request the way Go's net/http prefixes its errors: `Get "<url>"`. */
export function describeRequest(method: string, url: URL): string {
  return `${GO_METHOD[method] ?? method} ${JSON.stringify(url.toString())}`;
}

/** Methods whose repetition has no further effect (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** What a server closing an idle keep-alive socket looks like to the next request on it. */
const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE']);

/**
 * Sends the request and resolves at response headers, with any status; the caller reads or
 * destroys the body. Rejects with `<request>: <reason>` and the socket error as `cause` (or as
 * `abort` says). An idempotent request that failed with ECONNRESET or EPIPE on a reused socket
 * before any response byte is sent once more, on a fresh socket.
 */
export async function sendRequest(options: SendOptions): Promise<IncomingMessage> {
  try {
    return await sendOnce(options);
  } catch (err) {
    const idempotent = options.idempotent ?? IDEMPOTENT.has(options.method);
    if (!isStaleSocketFailure(err) || !idempotent || options.signal?.aborted === true) throw err;
    return sendOnce(options);
  }
}

const STALE = Symbol('stale-socket');

function isStaleSocketFailure(err: unknown): boolean {
  return typeof err === 'object' && err !== null && STALE in err;
}

function sendOnce(o: SendOptions): Promise<IncomingMessage> {
  const { method, url, signal } = o;
  const lib = url.protocol === 'http:' ? http : https;
  const name = (o.describe ?? describeRequest)(method, url);
  return new Promise<IncomingMessage>((resolve, reject) => {
    let response: IncomingMessage | undefined;
    // Through an HTTP proxy the request line carries the absolute URL (proxy-agents.ts).
    const proxied = url.protocol === 'http:' ? httpProxyRequest(o.agent, url) : undefined;
    const headers = proxied === undefined ? (o.headers ?? {}) : { ...o.headers, ...proxied.headers };
    const pathOption = proxied === undefined ? {} : { path: proxied.path };
    const req = lib.request(url, { method, agent: o.agent, headers, ...pathOption, ...(signal === undefined ? {} : { signal }) }, (res) => {
      clearTimeout(timer);
      clearTimeout(connectTimer);
      response = res;
      resolve(res);
    });
    const headersMs = o.headersTimeoutMs ?? 0;
    const timer = headersMs > 0 ? setTimeout(() => req.destroy(new RequestTimeoutError('headers', headersMs, url)), headersMs) : undefined;
    let connectTimer: NodeJS.Timeout | undefined;
    if (o.connectTimeoutMs !== undefined) {
      const connectMs = o.connectTimeoutMs;
      req.once('socket', (socket) => {
        // A reused keep-alive socket is connected; `reusedSocket` is set before 'socket' fires.
        // A proxy agent's socket arrives connected too, having bounded its set-up itself.
        if (req.reusedSocket || establishedSockets.has(socket)) return;
        connectTimer = setTimeout(() => req.destroy(new RequestTimeoutError('connect', connectMs, url)), connectMs);
        const connected = (): void => clearTimeout(connectTimer);
        socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', connected);
        socket.once('close', connected);
      });
    }
    if (o.idleTimeoutMs !== undefined) {
      const idleMs = o.idleTimeoutMs;
      req.setTimeout(idleMs, () => {
        const err = new RequestTimeoutError('idle', idleMs, url);
        // Past the headers the reader of the body sees this error rather than `aborted`.
        if (response !== undefined && !response.complete) response.destroy(err);
        req.destroy(err);
      });
    }
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      clearTimeout(connectTimer);
      if (signal?.aborted === true && o.abort === 'reason') {
        reject(signal.reason);
        return;
      }
      const reason = signal?.aborted === true && o.abort === 'go' ? goAbortReason(signal) : err.message;
      const wrapped = new Error(`${name}: ${reason}`, { cause: err });
      if (req.reusedSocket && err.code !== undefined && STALE_SOCKET_CODES.has(err.code)) Object.assign(wrapped, { [STALE]: true });
      reject(wrapped);
    });
    req.end(o.body);
  });
}

function goAbortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') return 'context deadline exceeded';
  return reason instanceof Error ? reason.message : 'request aborted';
}
