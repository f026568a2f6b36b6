/**
 * The raw HTTP transport of all object traffic: manifests are sent exactly as given and
 * responses come back as plain JSON, where client-node's models drop fields (decision 0061).
 */
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiErrorFromResponse } from './api-error.ts';
import type { Connection } from './connection.ts';
import { type ChannelResponse, sendHttp1 } from './watch-channel.ts';
import { errorMessage } from '../errors/index.ts';

/** Query parameters; `undefined` values are left out, arrays repeat the key. */
export type QueryParams = Record<string, string | number | boolean | readonly string[] | undefined>;

/** Options of one request. */
export interface RequestOptions {
  query?: QueryParams;
  /** Objects are sent as `JSON.stringify(body)`; strings and Buffers are sent unchanged. */
  body?: unknown;
  /** Content-Type of `body` (default `application/json`). */
  contentType?: string;
  headers?: Record<string, string | string[]>;
  signal?: AbortSignal;
  /** Ms until the request is abandoned (default 30 s; `stream()`: headers only; 0: none). */
  timeoutMs?: number;
  /** A POST storing nothing (reviews, TokenRequest): resent on a stale socket, as a GET is. */
  idempotent?: boolean;
}

/** Sends requests to one API server as one identity. */
export interface Transport {
  /** Short description of the identity, for logs. */
  readonly identity: string;
  /**
   * Returns the parsed JSON body (text for non-JSON, undefined for empty). Throws ApiError for
   * HTTP >= 400, an Error with `cause` for network failures, the abort reason on abort.
   */
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<T>;
  /** Like `request`, resolving with the open body of a 2xx response; over the watch channel. */
  stream(method: string, path: string, options?: RequestOptions): Promise<Readable>;
}

/** Behaviour of a transport. */
export interface TransportOptions {
  /** `User-Agent` header (default `olmv1`). */
  userAgent?: string;
  /** Receives server `Warning` headers (deprecations, admission warnings). */
  onWarning?: (message: string) => void;
  /** How often a 429 is retried (default 3). */
  maxThrottleRetries?: number;
}

/** Upper bound of one Retry-After wait. */
const MAX_RETRY_AFTER_MS = 10_000;

const DEFAULT_TIMEOUT_MS = 30_000;

type RawResponse = ChannelResponse;

/** Creates the transport of `conn`. */
export function createTransport(conn: Connection, options: TransportOptions = {}): Transport {
  const userAgent = options.userAgent ?? 'olmv1';
  const maxThrottle = options.maxThrottleRetries ?? 3;

  function urlFor(path: string, query: QueryParams | undefined): URL {
    const url = new URL(conn.server.href);
    url.pathname = url.pathname.replace(/\/$/, '') + path;
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined) continue;
      if (Array.isArray(v)) for (const item of v) url.searchParams.append(k, String(item));
      else url.searchParams.set(k, String(v));
    }
    return url;
  }

  // Opens the request and resolves at response headers; retries 401 once (after the
  // connection dropped its cached credentials) and 429 a few times (after Retry-After).
  async function open(method: string, path: string, opts: RequestOptions, longLived: boolean): Promise<RawResponse> {
    const url = urlFor(path, opts.query);
    const payload = encodeBody(opts.body);
    let authRetried = false;
    for (let throttled = 0; ;) {
      const res = await send(method, url, payload, opts, longLived);
      if (res.status === 401 && !authRetried && conn.invalidateAuth !== undefined) {
        authRetried = true;
        res.stream.resume();
        conn.invalidateAuth();
        continue;
      }
      if (res.status === 429 && throttled < maxThrottle) {
        throttled++;
        res.stream.resume();
        await sleep(retryAfterMs(res.headers['retry-after'], MAX_RETRY_AFTER_MS), undefined, { signal: opts.signal });
        continue;
      }
      reportWarnings(res.headers.warning);
      return res;
    }
  }

  async function send(method: string, url: URL, payload: Buffer | undefined, opts: RequestOptions, longLived: boolean): Promise<RawResponse> {
    const headers: Record<string, string | string[]> = {
      Accept: 'application/json',
      'User-Agent': userAgent,
      ...(await conn.authHeaders()),
      ...opts.headers,
    };
    if (payload !== undefined) {
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    const req = {
      method,
      url,
      headers,
      body: payload,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      idempotent: opts.idempotent,
    };
    return longLived ? conn.watches.send(req) : sendHttp1(conn.agent, req);
  }

  function reportWarnings(header: string | undefined): void {
    if (header === undefined || options.onWarning === undefined) return;
    for (const w of parseWarnings(header)) options.onWarning(w);
  }

  async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const res = await open(method, path, opts, false);
    const text = await readBody(res.stream, timeoutMs, opts.signal);
    const parsed = parseBody(text, res.headers['content-type']);
    if (res.status >= 400 || res.status < 200) throw apiErrorFromResponse(res.status, parsed, `${method} ${path}`);
    return parsed as T;
  }

  async function stream(method: string, path: string, opts: RequestOptions = {}): Promise<Readable> {
    const res = await open(method, path, opts, true);
    if (res.status >= 200 && res.status < 300) return res.stream;
    const text = await readBody(res.stream, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, opts.signal);
    throw apiErrorFromResponse(res.status, parseBody(text, res.headers['content-type']), `${method} ${path}`);
  }

  return { identity: conn.identity, request, stream };
}

function encodeBody(body: unknown): Buffer | undefined {
  if (body === undefined) return undefined;
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body);
  return Buffer.from(JSON.stringify(body));
}

async function readBody(stream: Readable, timeoutMs: number, signal: AbortSignal | undefined): Promise<string> {
  const timer =
    timeoutMs > 0 ? setTimeout(() => stream.destroy(new Error(`reading the response timed out after ${timeoutMs} ms`)), timeoutMs) : undefined;
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } catch (err) {
    if (signal?.aborted === true) throw signal.reason;
    throw new Error(`reading the response: ${errorMessage(err)}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === '') return undefined;
  if (contentType === undefined || !contentType.includes('json')) return text;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`the server sent malformed JSON: ${errorMessage(err)}`, { cause: err });
  }
}

/** Milliseconds to wait for a `Retry-After` header value (seconds), default 1 s, capped. */
export function retryAfterMs(header: string | string[] | undefined, capMs: number): number {
  const value = Array.isArray(header) ? header[0] : header;
  const seconds = value === undefined ? NaN : Number.parseInt(value, 10);
  const ms = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000;
  return Math.min(ms, capMs);
}

/** Extracts the texts of `Warning: 299 - "text"` headers (RFC 7234 warn-text). */
export function parseWarnings(header: string): string[] {
  const out: string[] = [];
  const re = /\d{3} \S+ "((?:[^"\\]|\\.)*)"/g;
  for (const m of header.matchAll(re)) out.push((m[1] ?? '').replace(/\\(.)/g, '$1'));
  return out;
}
