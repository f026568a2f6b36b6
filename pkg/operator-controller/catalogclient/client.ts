/**
 * Client of catalogd's content API for operator-controller and the CLI: fetches one package's
 * partition of a served catalog through `/api/v1/metas` instead of downloading the whole
 * catalog (`/api/v1/all`, which is what upstream's client does).
 *
 * Two queries run in parallel, because the `olm.package` blob carries no `package` field:
 *   GET <base>/api/v1/metas?package=<pkg>                 channels, bundles, deprecations, others
 *   GET <base>/api/v1/metas?schema=olm.package&name=<pkg> the package blob itself
 * `packageNames` asks `GET <base>/api/v1/metas?schema=olm.package`; `getAll` downloads
 * `GET <base>/api/v1/all` for catalogd servers that do not serve `/metas`.
 * All ask for gzip and reuse keep-alive connections; bodies are decoded as they stream in.
 *
 * Error texts follow upstream's catalog client and cache:
 * - no response (connection, TLS, timeout): `error performing request: <cause>`;
 * - any status but 200: `error: received unexpected response status code <n>`; when a
 *   `/metas` query gets Go's `404 page not found` (the route is not served, as on upstream
 *   catalogd without the `APIV1MetasHandler` gate) the error is a {@link MetasNotServedError};
 * - a body that breaks off or does not decode: `error parsing catalog contents: <cause>`;
 * - blobs that do not load as FBC: `error loading package "<pkg>": <cause>`;
 * - an answer of another digest than the one asked for: a {@link StaleContentError}.
 *
 * Each catalogd replica serves its own store and names the digest of what it serves in the
 * `olmv1-catalog-digest` header (pkg/catalogd/server/server.ts). While a catalog is updated, the
 * replicas behind one Service can serve two digests; a caller that passes the digest it expects
 * gets content of that digest or an error, never another digest's content (decision 0131). An
 * answer without the header (upstream's catalogd, which sends none) is taken as it is.
 */
import type { Agent, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { type ProxySelector, createAgentPool, sendRequest } from '../../shared/nodehttp/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { type DecodeLimits, type DeclarativeConfig, type Meta, loadMetas, parseMetaStream } from '../../shared/fbc/index.ts';
import { packagePartition } from '../resolve/index.ts';
import { createPackageRuns } from './package-runs.ts';

/**
 * A `/api/v1/metas` query answered `404 page not found`: the server routes no such path (upstream
 * catalogd with the metas handler off). The text is the plain status error's; a 404 for a
 * catalog the server does not have (`404 Not Found`) is not this error.
 */
export class MetasNotServedError extends Error {
  constructor() {
    super('error: received unexpected response status code 404');
    this.name = 'MetasNotServedError';
  }
}

/**
 * A replica answered with content of another digest than the one asked for (it has not caught
 * up with the catalog's update, or has moved past it), on every attempt. Nothing of that answer
 * was read; asking again later, or on another connection, may reach a replica serving it.
 */
export class StaleContentError extends Error {
  /** The digest asked for and the one the replica named. */
  readonly expected: string;
  readonly served: string;
  constructor(expected: string, served: string) {
    super(`error: catalogd served content of digest ${served}, not ${expected}`);
    this.name = 'StaleContentError';
    this.expected = expected;
    this.served = served;
  }
}

/** The header in which catalogd names the digest of the content it answers with. */
const CATALOG_DIGEST_HEADER = 'olmv1-catalog-digest';

/**
 * The digest part of a digest reference (`repo@sha256:<hex>` gives `sha256:<hex>`); undefined
 * for a reference without one, whose answers are then not checked.
 */
export function digestOfRef(digestRef: string): string | undefined {
  const at = digestRef.lastIndexOf('@');
  return at < 0 || at === digestRef.length - 1 ? undefined : digestRef.slice(at + 1);
}

/**
 * Whether an answer naming `served` (undefined: no header) may be taken for content of
 * `expected` (undefined: nothing asked for). Only a named, different digest is refused.
 */
export function servesExpected(expected: string | undefined, served: string | undefined): boolean {
  return expected === undefined || served === undefined || served === expected;
}

/** Settings of {@link createCatalogClient}; all optional. */
export interface CatalogClientOptions {
  /**
   * Limit for one `getPackage` call, response bodies included (default 5 minutes, upstream's
   * catalog HTTP client timeout).
   */
  timeoutMs?: number;
  /**
   * PEM bundle trusted for HTTPS in addition to the system roots, or a provider read at each
   * request (a changed bundle gets a new connection pool). Connections are kept alive, 32 per host.
   */
  caPem?: string | (() => string | undefined);
  /** The forward proxy of each request (HTTPS_PROXY/HTTP_PROXY/NO_PROXY); default: direct. */
  proxy?: ProxySelector;
  /**
   * Size limits of each response body as decoded (default pkg/shared/fbc's: a body, once
   * gunzipped, of at most 256 MiB, what catalogd may serve of one catalog). The body is
   * inflated only as far as it is parsed, so a gzip body that inflates past `maxCatalogBytes`
   * stops there with `error parsing catalog contents: <path>: catalog exceeds the limit of N bytes`.
   */
  decodeLimits?: Partial<DecodeLimits>;
}

/** Reads packages from catalogd. One instance serves every catalog and reconcile. */
export interface CatalogClient {
  /**
   * The partition of `packageName` in the catalog served at `baseURL` (a ClusterCatalog's
   * `status.urls.base`), one blob per (schema, name) slot, later blobs winning; an empty config
   * for a package the catalog does not have.
   *
   * With `digest` (`sha256:<hex>`), every answer must be content of that digest: an answer
   * naming another is dropped unread and the request sent again on a new connection (which a
   * Service may route to another replica), up to three times in all.
   *
   * @throws Error with one of the texts listed in the module comment; `cause` holds the
   *   underlying error. When `signal` aborts, the abort surfaces as one of them too. A
   *   {@link StaleContentError} when every attempt was answered with another digest.
   */
  getPackage(baseURL: string, packageName: string, signal?: AbortSignal, digest?: string): Promise<DeclarativeConfig>;
  /**
   * Names of the `olm.package` blobs the catalog at `baseURL` serves
   * (`/api/v1/metas?schema=olm.package`). `digest` and errors as for `getPackage`.
   */
  packageNames(baseURL: string, signal?: AbortSignal, digest?: string): Promise<Set<string>>;
  /**
   * The whole catalog at `baseURL` (`/api/v1/all`), decoded as it streams in and grouped per
   * package; the body itself is never held. `digest` and errors as for `getPackage` (never a
   * {@link MetasNotServedError}); `timeoutMs` applies to the whole download.
   */
  getAll(baseURL: string, signal?: AbortSignal, digest?: string): Promise<CatalogContent>;
  /**
   * The whole catalog at `baseURL` (`/api/v1/all`) one package at a time: each package's
   * partition goes to `visit` as soon as its blobs have streamed in (package-runs.ts), or the
   * error of loading it, and is not kept. Packages whose blobs were not together are named in
   * `scattered` at the end (`visit` saw part of them: read them again with `getPackage`).
   * `digest`, errors and `timeoutMs` as for `getAll`.
   */
  eachPackage(
    baseURL: string,
    visit: (pkg: string, partition: DeclarativeConfig | Error) => void,
    signal?: AbortSignal,
    digest?: string,
  ): Promise<{ packageNames: Set<string>; scattered: Set<string> }>;
  /** Closes idle keep-alive connections. The client stays usable. */
  close(): void;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const MAX_SOCKETS = 32;
/** Attempts of one request while answers name another digest: the first, then two on new connections. */
const STALE_ATTEMPTS = 3;

/** Creates a catalog content client; nothing is contacted until the first call. */
export function createCatalogClient(options: CatalogClientOptions = {}): CatalogClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const own = createAgentPool({ maxSockets: MAX_SOCKETS, caPem: options.caPem, proxy: options.proxy });

  /** The caller's signal combined with the per-call timeout (and `extra`, if given). */
  function limitsOf(signal: AbortSignal | undefined, ...extra: AbortSignal[]): AbortSignal {
    return AbortSignal.any([...extra, AbortSignal.timeout(timeoutMs), ...(signal === undefined ? [] : [signal])]);
  }

  /**
   * fetchBlobs, sent again while the answer is of another digest than `digest`: each retry on a
   * connection of its own, closed afterwards (the pool's idle connections may all lead to the
   * replica that answered), so a Service can route it to another replica.
   */
  async function fetchOfDigest(url: URL, signal: AbortSignal, digest: string | undefined, onMeta: (meta: Meta) => void): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const fresh = attempt === 1 ? undefined : createAgentPool({ maxSockets: 1, caPem: options.caPem, proxy: options.proxy });
      try {
        await fetchBlobs(url, (fresh ?? own).agentFor(url), signal, options.decodeLimits, onMeta, digest);
        return;
      } catch (err) {
        if (!(err instanceof StaleContentError) || attempt >= STALE_ATTEMPTS) throw err;
      } finally {
        fresh?.close();
      }
    }
  }

  async function getPackage(baseURL: string, packageName: string, signal?: AbortSignal, digest?: string): Promise<DeclarativeConfig> {
    const base = baseURL.replace(/\/+$/, '');
    const name = encodeURIComponent(packageName);
    // One failure cancels the other request: its result could not be used anyway.
    const cancel = new AbortController();
    const combined = limitsOf(signal, cancel.signal);
    const fetchOne = async (query: string): Promise<Meta[]> => {
      const url = new URL(`${base}/api/v1/metas?${query}`);
      const metas: Meta[] = [];
      try {
        await fetchOfDigest(url, combined, digest, (meta) => metas.push(meta));
      } catch (err) {
        cancel.abort();
        throw err;
      }
      return metas;
    };
    const [packageBlobs, rest] = await Promise.all([fetchOne(`schema=olm.package&name=${name}`), fetchOne(`package=${name}`)]);
    return loadPackagePartition([...packageBlobs, ...rest], packageName);
  }

  async function packageNames(baseURL: string, signal?: AbortSignal, digest?: string): Promise<Set<string>> {
    const url = new URL(`${baseURL.replace(/\/+$/, '')}/api/v1/metas?schema=olm.package`);
    const names = new Set<string>();
    await fetchOfDigest(url, limitsOf(signal), digest, (meta) => {
      if (meta.schema === 'olm.package' && meta.name !== '') names.add(meta.name);
    });
    return names;
  }

  async function getAll(baseURL: string, signal?: AbortSignal, digest?: string): Promise<CatalogContent> {
    const url = new URL(`${baseURL.replace(/\/+$/, '')}/api/v1/all`);
    const content = createCatalogContentBuilder();
    await fetchOfDigest(url, limitsOf(signal), digest, (meta) => content.add(meta));
    return content.finish();
  }

  async function eachPackage(
    baseURL: string,
    visit: (pkg: string, partition: DeclarativeConfig | Error) => void,
    signal?: AbortSignal,
    digest?: string,
  ): Promise<{ packageNames: Set<string>; scattered: Set<string> }> {
    const url = new URL(`${baseURL.replace(/\/+$/, '')}/api/v1/all`);
    const runs = createPackageRuns((pkg, metas) => {
      let partition: DeclarativeConfig | Error;
      try {
        partition = loadPackagePartition(metas, pkg);
      } catch (err) {
        partition = err instanceof Error ? err : new Error(errorMessage(err));
      }
      visit(pkg, partition);
    });
    await fetchOfDigest(url, limitsOf(signal), digest, (meta) => runs.add(meta));
    return runs.end();
  }

  return {
    getPackage,
    packageNames,
    getAll,
    eachPackage,
    close: () => own.close(),
  };
}

/**
 * GETs `url` and hands each FBC blob of its body to `onMeta` as it is decoded. A 200 answer
 * naming another digest than `digest` is dropped before its body is read (its connection
 * closed): a {@link StaleContentError}.
 */
async function fetchBlobs(
  url: URL,
  agent: Agent,
  signal: AbortSignal,
  limits: Partial<DecodeLimits> | undefined,
  onMeta: (meta: Meta) => void,
  digest: string | undefined,
): Promise<void> {
  let res: IncomingMessage;
  try {
    // A stale keep-alive socket fails on first reuse; the GET is then sent once more.
    res = await sendRequest({ method: 'GET', url, agent, signal, headers: { 'accept-encoding': 'gzip' }, abort: 'go' });
  } catch (err) {
    throw new Error(`error performing request: ${errorMessage(err)}`, { cause: err });
  }
  if (res.statusCode !== 200) {
    if (res.statusCode === 404 && url.pathname.endsWith('/api/v1/metas') && (await shortBody(res)).trim() === NOT_ROUTED) {
      throw new MetasNotServedError();
    }
    res.resume();
    throw new Error(`error: received unexpected response status code ${res.statusCode ?? 0}`);
  }
  const served = res.headers[CATALOG_DIGEST_HEADER];
  if (!servesExpected(digest, typeof served === 'string' ? served : undefined)) {
    res.destroy();
    throw new StaleContentError(digest ?? '', String(served));
  }
  try {
    const body = decodedBody(res);
    for await (const { meta } of parseMetaStream(body, { file: url.pathname, signal, ...(limits === undefined ? {} : { limits }) })) onMeta(meta);
  } catch (err) {
    res.destroy();
    throw new Error(`error parsing catalog contents: ${errorMessage(err)}`, { cause: err });
  }
}

/** Go's ServeMux answer for a path no route matches. */
const NOT_ROUTED = '404 page not found';
const SHORT_BODY_LIMIT = 1024;

/**
 * The response body, gunzipped when so encoded, as a stream: what it inflates to is bounded by
 * its reader (parseMetaStream's catalog limit, or shortBody's few bytes), which destroys it
 * there. @throws for any other content encoding.
 */
function decodedBody(res: IncomingMessage): Readable {
  const encoding = (res.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip') throw new Error(`unsupported content encoding ${JSON.stringify(encoding)}`);
  if (encoding === 'identity') return res;
  const body = res.pipe(createGunzip());
  // A broken connection surfaces on `res`, which piping does not forward.
  res.once('error', (err) => body.destroy(err));
  return body;
}

/** The first bytes of an error response's body ('' when it cannot be read); never throws. */
async function shortBody(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of decodedBody(res)) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      chunks.push(buf);
      size += buf.length;
      if (size >= SHORT_BODY_LIMIT) break;
    }
  } catch {
    return '';
  } finally {
    if (!res.complete) res.destroy();
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The blobs of one catalog version, per package. Immutable once built. */
export interface CatalogContent {
  /** Names of the catalog's `olm.package` blobs. */
  readonly packageNames: ReadonlySet<string>;
  /**
   * The partition of `packageName` (as `CatalogClient.getPackage` returns it); a package the
   * catalog does not have gives an empty config.
   *
   * @throws Error `error loading package "<pkg>": <cause>` when a blob does not load as FBC.
   */
  loadPackage(packageName: string): DeclarativeConfig;
}

/** Collects blobs as they are decoded; `finish` returns the grouped content. */
interface CatalogContentBuilder {
  add(meta: Meta): void;
  finish(): CatalogContent;
}

/**
 * The package a blob belongs to, as upstream's cache files it: an `olm.package` blob under
 * its own name, anything else under its `package` field ("" for blobs of no package).
 */
function packageOf(meta: Meta): string {
  return meta.schema === 'olm.package' ? meta.name : meta.package;
}

/**
 * Loads `metas` (the blobs of one package, any order) and keeps the partition of
 * `packageName`, one blob per (schema, name) slot, later blobs winning.
 *
 * @throws Error `error loading package "<pkg>": <cause>` (upstream's cache text).
 */
function loadPackagePartition(metas: Iterable<Meta>, packageName: string): DeclarativeConfig {
  let loaded: DeclarativeConfig;
  try {
    loaded = loadMetas(metas);
  } catch (err) {
    throw new Error(`error loading package ${JSON.stringify(packageName)}: ${errorMessage(err)}`, { cause: err });
  }
  return packagePartition(loaded, packageName);
}

/** Starts grouping a stream of blobs; blobs of no package are dropped (no partition uses them). */
export function createCatalogContentBuilder(): CatalogContentBuilder {
  const byPackage = new Map<string, Meta[]>();
  const names = new Set<string>();
  return {
    add(meta) {
      const pkg = packageOf(meta);
      if (pkg === '') return;
      if (meta.schema === 'olm.package') names.add(pkg);
      const list = byPackage.get(pkg);
      if (list === undefined) byPackage.set(pkg, [meta]);
      else list.push(meta);
    },
    finish() {
      return {
        packageNames: names,
        loadPackage: (packageName) => loadPackagePartition(byPackage.get(packageName) ?? [], packageName),
      };
    },
  };
}
