/**
 * Client of catalogd's content API for operator-controller and the CLI: fetches one package's
 * partition of a served catalog through `/api/v1/metas` instead of downloading the whole
 * catalog (`/api/v1/all`, which is what upstream's client does).
 *
 * Two queries run in parallel, because the `olm.package` blob carries no `package` field:
 *   GET <base>/api/v1/metas?package=<pkg>                 channels, bundles, deprecations, others
 *   GET <base>/api/v1/metas?schema=olm.package&name=<pkg> the package blob itself
 * Both ask for gzip and reuse keep-alive connections; bodies are decoded as they stream in.
 *
 * Error texts follow upstream's catalog client and cache (reference catalogd-and-fbc.md §3.9):
 * - no response (connection, TLS, timeout): `error performing request: <cause>`;
 * - any status but 200: `error: received unexpected response status code <n>`;
 * - a body that breaks off or does not decode: `error parsing catalog contents: <cause>`;
 * - blobs that do not load as FBC: `error loading package "<pkg>": <cause>`.
 */
import type { Agent, IncomingMessage } from 'node:http';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import { createGunzip } from 'node:zlib';
import { http } from '../nodehttp/index.ts';
import { errorMessage } from '../errors/index.ts';
import { type DeclarativeConfig, type Meta, loadMetas, parseMetaStream } from '../fbc/index.ts';
import { packagePartition } from '../resolve/index.ts';

/** Settings of {@link createCatalogClient}; all optional. */
export interface CatalogClientOptions {
  /**
   * Limit for one `getPackage` call, response bodies included (default 5 minutes, upstream's
   * catalog HTTP client timeout).
   */
  timeoutMs?: number;
  /**
   * PEM bundle trusted for HTTPS in addition to the system roots, or a provider read at each
   * request (a changed bundle gets a new connection pool). Ignored when `httpsAgent` is given.
   */
  caPem?: string | (() => string | undefined);
  /** Agent for `http:` URLs (default: keep-alive, 32 sockets per host). */
  httpAgent?: Agent;
  /** Agent for `https:` URLs (default: keep-alive, 32 sockets per host, `caPem` trusted). */
  httpsAgent?: https.Agent;
}

/** Reads packages from catalogd. One instance serves every catalog and reconcile. */
export interface CatalogClient {
  /**
   * The partition of `packageName` in the catalog served at `baseURL` (a ClusterCatalog's
   * `status.urls.base`, e.g. `https://catalogd-service.olmv1-system.svc/catalogs/operatorhub`):
   * its `olm.package`, channels, bundles, deprecations and other blobs, one per
   * (schema, name) slot, later blobs winning (see `packagePartition`). A package the catalog
   * does not have gives an empty config, not an error.
   *
   * @throws Error with one of the texts listed in the module comment; `cause` holds the
   *   underlying error. When `signal` aborts, the abort surfaces as one of them too.
   */
  getPackage(baseURL: string, packageName: string, signal?: AbortSignal): Promise<DeclarativeConfig>;
  /** Closes idle keep-alive connections of the default agents. The client stays usable. */
  close(): void;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const MAX_SOCKETS = 32;

/** Creates a catalog content client; nothing is contacted until the first call. */
export function createCatalogClient(options: CatalogClientOptions = {}): CatalogClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const ownHttp = options.httpAgent === undefined ? new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS }) : undefined;
  let ownHttps: { ca: string | undefined; agent: https.Agent } | undefined;

  function agentFor(url: URL): Agent {
    if (url.protocol === 'http:') return options.httpAgent ?? (ownHttp as Agent);
    if (options.httpsAgent !== undefined) return options.httpsAgent;
    const ca = typeof options.caPem === 'function' ? options.caPem() : options.caPem;
    if (ownHttps === undefined || ownHttps.ca !== ca) {
      ownHttps?.agent.destroy();
      const agent = new https.Agent({
        keepAlive: true,
        maxSockets: MAX_SOCKETS,
        ...(ca !== undefined && ca !== '' ? { ca: [...rootCertificates, ca] } : {}),
      });
      ownHttps = { ca, agent };
    }
    return ownHttps.agent;
  }

  async function getPackage(baseURL: string, packageName: string, signal?: AbortSignal): Promise<DeclarativeConfig> {
    const base = baseURL.replace(/\/+$/, '');
    const name = encodeURIComponent(packageName);
    // One failure cancels the other request: its result could not be used anyway.
    const cancel = new AbortController();
    const limits = [cancel.signal, AbortSignal.timeout(timeoutMs), ...(signal === undefined ? [] : [signal])];
    const combined = AbortSignal.any(limits);
    const fetchOne = (query: string): Promise<Meta[]> => {
      const url = new URL(`${base}/api/v1/metas?${query}`);
      return fetchMetas(url, agentFor(url), combined).catch((err: unknown) => {
        cancel.abort();
        throw err;
      });
    };
    const [packageBlobs, rest] = await Promise.all([fetchOne(`schema=olm.package&name=${name}`), fetchOne(`package=${name}`)]);
    let loaded: DeclarativeConfig;
    try {
      loaded = loadMetas([...packageBlobs, ...rest]);
    } catch (err) {
      throw new Error(`error loading package ${JSON.stringify(packageName)}: ${errorMessage(err)}`, { cause: err });
    }
    return packagePartition(loaded, packageName);
  }

  return {
    getPackage,
    close: () => {
      ownHttp?.destroy();
      ownHttps?.agent.destroy();
      ownHttps = undefined;
    },
  };
}

/** GETs `url` and decodes its body as a stream of FBC blobs. */
async function fetchMetas(url: URL, agent: Agent, signal: AbortSignal): Promise<Meta[]> {
  let res: IncomingMessage;
  try {
    res = await sendWithRetry(url, agent, signal);
  } catch (err) {
    throw new Error(`error performing request: ${errorMessage(err)}`, { cause: err });
  }
  if (res.statusCode !== 200) {
    res.resume();
    throw new Error(`error: received unexpected response status code ${res.statusCode ?? 0}`);
  }
  const encoding = (res.headers['content-encoding'] ?? 'identity').toLowerCase();
  const metas: Meta[] = [];
  try {
    if (encoding !== 'identity' && encoding !== 'gzip') throw new Error(`unsupported content encoding ${JSON.stringify(encoding)}`);
    const body = encoding === 'gzip' ? res.pipe(createGunzip()) : res;
    // A broken connection surfaces on `res`, which piping does not forward.
    if (body !== res) res.once('error', (err) => body.destroy(err));
    for await (const { meta } of parseMetaStream(body, { file: url.pathname, signal })) metas.push(meta);
  } catch (err) {
    res.destroy();
    throw new Error(`error parsing catalog contents: ${errorMessage(err)}`, { cause: err });
  }
  return metas;
}

/** A stale keep-alive socket fails on first reuse; a GET may be sent once more on a fresh one. */
async function sendWithRetry(url: URL, agent: Agent, signal: AbortSignal): Promise<IncomingMessage> {
  try {
    return await send(url, agent, signal);
  } catch (err) {
    if ((err as { reusedSocket?: boolean }).reusedSocket !== true || signal.aborted) throw err;
    return send(url, agent, signal);
  }
}

/** Sends one GET; rejects with `Get "<url>": <reason>` (Go's wording) when no response arrives. */
function send(url: URL, agent: Agent, signal: AbortSignal): Promise<IncomingMessage> {
  const mod = url.protocol === 'http:' ? http : https;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = mod.request(url, { method: 'GET', agent, signal, headers: { 'accept-encoding': 'gzip' } }, resolve);
    req.once('error', (err) => {
      const reason = signal.aborted ? abortReason(signal) : err.message;
      const wrapped = new Error(`Get ${JSON.stringify(url.toString())}: ${reason}`, { cause: err });
      reject(Object.assign(wrapped, { reusedSocket: req.reusedSocket }));
    });
    req.end();
  });
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') return 'context deadline exceeded';
  return reason instanceof Error ? reason.message : 'request aborted';
}
