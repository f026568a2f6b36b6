/**
 * operator-controller's catalog content cache: what resolution reads catalogs through. Upstream
 * downloads a catalog's whole `/api/v1/all` per digest; here a package's partition is fetched on
 * first use through `/api/v1/metas` and kept per (catalog, digest reference, package) until
 * `forget`. Where catalogd does not serve `/metas` (`404 page not found`), one digest's `/all`
 * is downloaded per catalog and every package read from it, and new digests at that base URL go
 * straight to `/all`. Failures are cached and rethrown until a doubling retry delay passes
 * (unlike upstream, which retries at once), so a failing catalogd is not hit by every reconcile.
 *
 * Content is kept under a digest only when the catalogd replica that served it named that digest
 * (the client's `digest` check): while the replicas behind one Service are at different digests
 * of a catalog, an answer from one that has not caught up is refused, never cached, and the next
 * lookup asks again (decision 0131). Upstream caches whatever the first answer was under the new
 * digest, until the next digest.
 */
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';
import { type CatalogClient, type CatalogContent, MetasNotServedError, StaleContentError, digestOfRef } from './client.ts';
import { FetchSlot, type LookupOutcome, type RetryPolicy } from './fetch-slot.ts';

/** A ClusterCatalog as far as content is concerned: from its status. */
export interface CatalogRef {
  /** `metadata.name`. */
  name: string;
  /** `status.urls.base`, e.g. `https://catalogd-service.olmv1-system.svc/catalogs/operatorhub`. */
  baseURL: string;
  /** `status.resolvedSource.image.ref`: the cache key of the content. */
  digestRef: string;
}

/** Dependencies and settings of {@link createCatalogContentCache}. */
interface CatalogContentCacheOptions {
  client: CatalogClient;
  log?: Logger;
  /** Where the cache's metrics are registered; none when absent. */
  registry?: Registry;
  /** Clock in milliseconds for error retry times (default `Date.now`). */
  now?: () => number;
  /** How long a fetch error is served from cache before the next attempt, default ~2 s doubling to 60 s. */
  errorRetryMs?: number;
}

/** Catalog content for resolution, cached per digest. One instance serves the whole process. */
export interface CatalogContentCache {
  /**
   * The package's partition in the catalog at that digest (empty for a package it does not
   * have); concurrent callers share one request.
   *
   * @throws the client's Error (texts in client.ts); `signal.reason` when `signal` aborts, which
   *   concerns this caller only (the shared request goes on for others and is not cached as failed).
   */
  getPackage(catalog: CatalogRef, packageName: string, signal?: AbortSignal): Promise<DeclarativeConfig>;
  /**
   * Names of the packages the catalog serves at that digest (its `olm.package` blobs), for
   * deciding which ClusterExtensions a catalog change affects; cached the same way.
   */
  packageNames(catalog: CatalogRef, signal?: AbortSignal): Promise<ReadonlySet<string>>;
  /** Drops everything cached for the catalog except entries of `keepDigestRef` (call on catalog update/delete). */
  forget(catalogName: string, keepDigestRef?: string): void;
}

/** What the cache's metrics count; `query` says which entry: a package, the names, or `/all`. */
type Query = 'package' | 'package_names' | 'all';
type FetchOutcome = 'success' | 'error' | 'aborted' | 'metas_not_served' | 'stale';

interface CacheMetrics {
  fetched(query: Query, outcome: FetchOutcome): void;
  hit(query: Query, served: Exclude<LookupOutcome, 'fetch'>): void;
}

function createCacheMetrics(registry: Registry | undefined): CacheMetrics {
  if (registry === undefined) return { fetched: () => undefined, hit: () => undefined };
  const fetches = new Counter({
    name: 'operator_controller_catalog_content_fetches_total',
    help: 'Requests to catalogd made by the catalog content cache, by query and outcome.',
    labelNames: ['query', 'outcome'] as const,
    registers: [registry],
  });
  const hits = new Counter({
    name: 'operator_controller_catalog_content_cache_hits_total',
    help: 'Catalog content cache lookups answered without a new request: cached content, a cached error, or a request already in flight.',
    labelNames: ['query', 'served'] as const,
    registers: [registry],
  });
  return {
    fetched: (query, outcome) => fetches.inc({ query, outcome }),
    hit: (query, served) => hits.inc({ query, served }),
  };
}

/** What is cached for one digest of a catalog. */
interface DigestEntries {
  packages: Map<string, FetchSlot<DeclarativeConfig>>;
  names: FetchSlot<ReadonlySet<string>>;
}

/** What is cached for one catalog. */
interface CatalogEntries {
  digests: Map<string, DigestEntries>;
  /** The base URL whose `/metas` answered `404 page not found`, if any. */
  noMetasAt?: string | undefined;
  /** The `/all` download of at most one digest. */
  all?: { digestRef: string; slot: FetchSlot<CatalogContent> } | undefined;
}

const DEFAULT_ERROR_RETRY_MS = 2_000;
const MAX_ERROR_RETRY_MS = 60_000;

/** Creates an empty cache; nothing is fetched until asked for. */
export function createCatalogContentCache(options: CatalogContentCacheOptions): CatalogContentCache {
  const { client, log } = options;
  const firstDelayMs = options.errorRetryMs ?? DEFAULT_ERROR_RETRY_MS;
  const policy: RetryPolicy = {
    now: options.now ?? Date.now,
    firstDelayMs,
    maxDelayMs: Math.max(firstDelayMs, MAX_ERROR_RETRY_MS),
    // A replica behind on the catalog says nothing about the content: ask again at the next lookup.
    unheld: (err) => err instanceof StaleContentError,
  };
  const metrics = createCacheMetrics(options.registry);
  const catalogs = new Map<string, CatalogEntries>();

  function entriesOf(catalog: CatalogRef): { catalogEntries: CatalogEntries; digest: DigestEntries } {
    let catalogEntries = catalogs.get(catalog.name);
    if (catalogEntries === undefined) {
      catalogEntries = { digests: new Map() };
      catalogs.set(catalog.name, catalogEntries);
    }
    let digest = catalogEntries.digests.get(catalog.digestRef);
    if (digest === undefined) {
      digest = { packages: new Map(), names: new FetchSlot() };
      catalogEntries.digests.set(catalog.digestRef, digest);
    }
    return { catalogEntries, digest };
  }

  function lookup(query: Query): (outcome: LookupOutcome) => void {
    return (outcome) => {
      if (outcome !== 'fetch') metrics.hit(query, outcome);
    };
  }

  /** Runs one client request, counting its outcome. */
  async function request<T>(query: Query, signal: AbortSignal, run: () => Promise<T>): Promise<T> {
    try {
      const value = await run();
      metrics.fetched(query, 'success');
      return value;
    } catch (err) {
      const outcome: FetchOutcome =
        err instanceof MetasNotServedError ? 'metas_not_served' : err instanceof StaleContentError ? 'stale' : signal.aborted ? 'aborted' : 'error';
      metrics.fetched(query, outcome);
      if (outcome === 'error') log?.debug({ query, err }, 'catalog content request failed');
      if (err instanceof StaleContentError)
        log?.info({ query, expected: err.expected, served: err.served }, 'catalog replica serves another digest; not cached');
      throw err;
    }
  }

  /** The `/all` content of the catalog at that digest, replacing any other digest's. */
  function allContent(catalog: CatalogRef, entries: CatalogEntries, signal: AbortSignal): Promise<CatalogContent> {
    if (entries.all?.digestRef !== catalog.digestRef) entries.all = { digestRef: catalog.digestRef, slot: new FetchSlot() };
    const fetchAll = (s: AbortSignal): Promise<CatalogContent> =>
      request('all', s, () => client.getAll(catalog.baseURL, s, digestOfRef(catalog.digestRef)));
    return entries.all.slot.get(fetchAll, policy, signal, lookup('all'));
  }

  /**
   * `viaMetas` through `/metas` unless the catalog's server is known not to serve it; on
   * `404 page not found` remembers that and answers `viaAll` from the `/all` download instead.
   */
  async function fromMetasOrAll<T>(
    catalog: CatalogRef,
    entries: CatalogEntries,
    signal: AbortSignal,
    query: Query,
    viaMetas: (s: AbortSignal) => Promise<T>,
    viaAll: (content: CatalogContent) => T,
  ): Promise<T> {
    if (entries.noMetasAt !== catalog.baseURL) {
      try {
        return await request(query, signal, () => viaMetas(signal));
      } catch (err) {
        if (!(err instanceof MetasNotServedError)) throw err;
        entries.noMetasAt = catalog.baseURL;
        log?.info({ catalog: catalog.name, baseURL: catalog.baseURL }, 'catalog server does not serve /api/v1/metas; reading /api/v1/all');
      }
    }
    return viaAll(await allContent(catalog, entries, signal));
  }

  return {
    getPackage(catalog, packageName, signal) {
      const { catalogEntries, digest } = entriesOf(catalog);
      let slot = digest.packages.get(packageName);
      if (slot === undefined) {
        slot = new FetchSlot();
        digest.packages.set(packageName, slot);
      }
      const fetch = (s: AbortSignal): Promise<DeclarativeConfig> =>
        fromMetasOrAll(
          catalog,
          catalogEntries,
          s,
          'package',
          (rs) => client.getPackage(catalog.baseURL, packageName, rs, digestOfRef(catalog.digestRef)),
          (c) => c.loadPackage(packageName),
        );
      return slot.get(fetch, policy, signal, lookup('package'));
    },

    packageNames(catalog, signal) {
      const { catalogEntries, digest } = entriesOf(catalog);
      const fetch = (s: AbortSignal): Promise<ReadonlySet<string>> =>
        fromMetasOrAll(
          catalog,
          catalogEntries,
          s,
          'package_names',
          (rs) => client.packageNames(catalog.baseURL, rs, digestOfRef(catalog.digestRef)),
          (c) => c.packageNames,
        );
      return digest.names.get(fetch, policy, signal, lookup('package_names'));
    },

    forget(catalogName, keepDigestRef) {
      const entries = catalogs.get(catalogName);
      if (entries === undefined) return;
      if (keepDigestRef === undefined) {
        catalogs.delete(catalogName);
        return;
      }
      for (const digestRef of [...entries.digests.keys()]) {
        if (digestRef !== keepDigestRef) entries.digests.delete(digestRef);
      }
      if (entries.all !== undefined && entries.all.digestRef !== keepDigestRef) entries.all = undefined;
    },
  };
}
