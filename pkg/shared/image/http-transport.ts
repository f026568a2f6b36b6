/**
 * The HTTP layer under the registry client: the scheme per registry (HTTPS unless insecure),
 * CA bundle, certificate directory and proxy, redirects (dropping credentials across origins),
 * connect and read (inactivity) timeouts; socket failures become Errors naming the request with
 * the original error as `cause` (a RequestTimeoutError for a timeout).
 */
import type { Agent, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { type AgentPool, type ProxySelector, type TlsMaterial, createAgentPool, describeRequest, sendRequest } from '../nodehttp/index.ts';

/** HTTP methods the registry API uses. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A request; `body` is a Buffer so that it can be re-sent after an auth challenge. */
export interface HttpRequest {
  method: HttpMethod;
  url: URL;
  headers?: Record<string, string>;
  body?: Buffer;
  signal?: AbortSignal | undefined;
  /** TLS without certificate verification, redirects included (containers/image's `insecure`). */
  skipTlsVerify?: boolean | undefined;
  /** For an `https:` URL without response: retry over plain HTTP (see {@link HttpTransport.request}). */
  plainHttpFallback?: boolean | undefined;
}

/** A response whose body has not been read yet; callers must consume or destroy `body`. */
export interface HttpResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  /** Header values as sent, one array entry per header line. */
  headersDistinct: Record<string, string[]>;
  /** The URL that answered (after redirects). */
  url: URL;
  body: IncomingMessage;
}

/** Transport settings. Providers are called per request, so updates apply to the next one. */
interface TransportOptions {
  /** `host[:port]` of plain-HTTP registries (any case); without a port: every port of the host. */
  insecureRegistries?: readonly string[] | undefined;
  /** PEM bundle trusted in addition to the system roots. */
  caPem?: string | (() => string | undefined) | undefined;
  /** TLS material of a registry host (a certificate directory's), read per request; it may throw. */
  tlsFor?: ((url: URL) => TlsMaterial | undefined) | undefined;
  /** The forward proxy of each request (HTTPS_PROXY/HTTP_PROXY/NO_PROXY); default: direct. */
  proxy?: ProxySelector | undefined;
  /** Bound of connecting to a registry (TCP and TLS) per new connection, default 30 s. */
  connectTimeoutMs?: number | undefined;
  /** Read timeout: socket inactivity limit per request once connected (headers and body), default 60 s. */
  timeoutMs?: number | undefined;
  userAgent?: string | undefined;
}

const MAX_REDIRECTS = 10;
const DEFAULT_TIMEOUT_MS = 60_000;
/** Go's net.Dialer default in http.DefaultTransport, which upstream's image library uses. */
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/** Sends HTTP requests to registries. One instance is shared by all pulls and pushes. */
export class HttpTransport {
  readonly #insecure: ReadonlySet<string>;
  readonly #agents: AgentPool;
  /** HTTPS without certificate verification, for `skipTlsVerify` requests only. */
  readonly #unverified: AgentPool;
  /** Hosts of `plainHttpFallback` requests that answered over plain HTTP: tried that way first next time. */
  readonly #plainHosts = new Set<string>();
  readonly #timeoutMs: number;
  readonly #connectTimeoutMs: number;
  readonly #userAgent: string;

  constructor(options: TransportOptions = {}) {
    this.#insecure = new Set((options.insecureRegistries ?? []).map((h) => h.toLowerCase()));
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    // Through a proxy the connect timeout covers the proxy, the CONNECT and the TLS handshake.
    const proxied = { proxy: options.proxy, proxyConnectTimeoutMs: this.#connectTimeoutMs };
    this.#agents = createAgentPool({ maxSockets: 16, caPem: options.caPem, tlsFor: options.tlsFor, ...proxied });
    this.#unverified = createAgentPool({ maxSockets: 16, tls: { rejectUnauthorized: false }, ...proxied });
    this.#userAgent = options.userAgent ?? 'olmv1';
  }

  /** True when `domain` is configured for plain HTTP. */
  isInsecure(domain: string): boolean {
    const d = domain.toLowerCase();
    if (this.#insecure.has(d)) return true;
    const host = d.replace(/:\d+$/, '');
    return host !== d && this.#insecure.has(host);
  }

  /**
   * `http(s)://<host>/v2/` for a reference domain (Docker Hub's API host for docker.io). An
   * insecure source (`insecureSource`) starts from HTTPS even on a plain-HTTP host: its
   * requests find the scheme that answers (see {@link request}).
   */
  apiBase(domain: string, insecureSource = false): URL {
    const host = domain === 'docker.io' ? 'registry-1.docker.io' : domain;
    return new URL(`${!insecureSource && this.isInsecure(domain) ? 'http' : 'https'}://${host}/v2/`);
  }

  /**
   * Sends `req`. GET and HEAD follow redirects (dropping `Authorization` across origins).
   * Resolves with any status; rejects only when no response arrives, with `<Method> "<url>":
   * <reason>` and the socket error as `cause`. `skipTlsVerify`: no certificate verification.
   * `plainHttpFallback`: an `https:` request without response is sent again over plain HTTP,
   * the scheme that answered tried first next time (as containers/image pings insecure
   * registries); the rejection is the last attempt's.
   */
  async request(req: HttpRequest): Promise<HttpResponse> {
    let url = req.url;
    let headers = { ...req.headers };
    for (let hop = 0; ; hop++) {
      const res =
        hop === 0 && req.plainHttpFallback === true
          ? await this.#sendWithFallback({ ...req, headers })
          : await this.#sendWithRetry({ ...req, url, headers });
      url = res.url;
      const location = res.headers.location;
      const redirect = res.status >= 300 && res.status < 400 && res.status !== 304 && location !== undefined;
      if (!redirect || (req.method !== 'GET' && req.method !== 'HEAD')) return res;
      res.body.resume();
      if (hop >= MAX_REDIRECTS) {
        throw new Error(`${describeRequest(req.method, req.url)}: stopped after ${MAX_REDIRECTS} redirects`);
      }
      const next = new URL(location, url);
      if (next.origin !== url.origin) {
        const { authorization: _dropped, ...rest } = headers;
        headers = rest;
      }
      url = next;
    }
  }

  async #sendWithFallback(req: HttpRequest): Promise<HttpResponse> {
    if (req.url.protocol !== 'https:') return this.#sendWithRetry(req);
    const host = req.url.host;
    const plain = new URL(req.url);
    plain.protocol = 'http:';
    const order = this.#plainHosts.has(host) ? [plain, req.url] : [req.url, plain];
    for (const [i, url] of order.entries()) {
      try {
        const res = await this.#sendWithRetry({ ...req, url });
        if (url.protocol === 'http:') this.#plainHosts.add(host);
        else this.#plainHosts.delete(host);
        return res;
      } catch (err) {
        if (req.signal?.aborted === true || i === order.length - 1) throw err;
      }
    }
    throw new Error('unreachable');
  }

  // A keep-alive socket the server closed while idle fails on first use; sendRequest sends
  // an idempotent request once more on a fresh one.
  async #sendWithRetry(req: HttpRequest): Promise<HttpResponse> {
    const { method, url, body } = req;
    const headers: Record<string, string> = { 'user-agent': this.#userAgent, ...req.headers };
    if (body !== undefined) headers['content-length'] = String(body.length);
    const res = await sendRequest({
      method,
      url,
      agent: this.#agentFor(req.skipTlsVerify === true && url.protocol === 'https:' ? this.#unverified : this.#agents, method, url),
      headers,
      body,
      signal: req.signal,
      connectTimeoutMs: this.#connectTimeoutMs,
      idleTimeoutMs: this.#timeoutMs,
    });
    return {
      status: res.statusCode ?? 0,
      statusText: res.statusMessage ?? '',
      headers: res.headers,
      headersDistinct: res.headersDistinct as Record<string, string[]>,
      url,
      body: res,
    };
  }

  // A certificate directory that cannot be used fails the request as Go names a failed one.
  #agentFor(pool: AgentPool, method: HttpMethod, url: URL): Agent {
    try {
      return pool.agentFor(url);
    } catch (err) {
      throw new Error(`${describeRequest(method, url)}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  /** Closes idle keep-alive sockets (for clean shutdown in tests and CLIs). */
  close(): void {
    this.#agents.close();
    this.#unverified.close();
  }
}
