import { Registry } from 'prom-client';
import { beforeEach, describe, expect, it } from 'vitest';
import { type DeclarativeConfig, parseMetas } from '../../shared/fbc/index.ts';
import { type CatalogClient, type CatalogRef, createCatalogContentCache } from './index.ts';
import { type CatalogContent, createCatalogContentBuilder } from './client.ts';
import { MetasNotServedError, StaleContentError } from './client.ts';

/** One request the fake client received; the test settles it. */
interface Call {
  method: 'getPackage' | 'packageNames' | 'getAll';
  baseURL: string;
  packageName?: string;
  signal: AbortSignal | undefined;
  /** The digest the answer must be of. */
  digest: string | undefined;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** A CatalogClient whose requests stay pending until the test settles them. */
function fakeClient(): CatalogClient & { calls: Call[] } {
  const calls: Call[] = [];
  const record = <T>(
    method: Call['method'],
    baseURL: string,
    signal: AbortSignal | undefined,
    digest: string | undefined,
    packageName?: string,
  ): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      calls.push({
        method,
        baseURL,
        signal,
        digest,
        resolve: resolve as (v: unknown) => void,
        reject,
        ...(packageName === undefined ? {} : { packageName }),
      });
    });
  return {
    calls,
    getPackage: (baseURL, packageName, signal, digest) => record<DeclarativeConfig>('getPackage', baseURL, signal, digest, packageName),
    packageNames: (baseURL, signal, digest) => record<Set<string>>('packageNames', baseURL, signal, digest),
    getAll: (baseURL, signal, digest) => record<CatalogContent>('getAll', baseURL, signal, digest),
    eachPackage: () => Promise.reject(new Error('not used by the cache')),
    close: () => undefined,
  };
}

function config(pkg: string): DeclarativeConfig {
  return { packages: [{ schema: 'olm.package', name: pkg, defaultChannel: 'stable' }], channels: [], bundles: [], deprecations: [], others: [] };
}

const line = (o: object): string => `${JSON.stringify(o)}\n`;
/** What `/api/v1/all` would give for a catalog of packages foo and bar. */
function allContent(version: string): CatalogContent {
  const body =
    line({ schema: 'olm.package', name: 'foo', defaultChannel: 'stable' }) +
    line({ schema: 'olm.bundle', package: 'foo', name: `foo.v${version}`, image: `r.test/foo:${version}`, properties: [] }) +
    line({ schema: 'olm.package', name: 'bar', defaultChannel: 'stable' }) +
    line({ schema: 'olm.channel', package: 'bar', name: 'stable', entries: [{ name: 'bar.v1' }] });
  const builder = createCatalogContentBuilder();
  for (const { meta } of parseMetas(body)) builder.add(meta);
  return builder.finish();
}

/** Lets pending promise callbacks run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const cat = (digest: string, name = 'ops'): CatalogRef => ({
  name,
  baseURL: `http://catalogd.test/catalogs/${name}`,
  digestRef: `r.test/${name}@sha256:${digest}`,
});

describe('catalog content cache', () => {
  let client: ReturnType<typeof fakeClient>;
  let clock: number;
  let registry: Registry;
  let cache: ReturnType<typeof createCatalogContentCache>;

  beforeEach(() => {
    client = fakeClient();
    clock = 1_000_000;
    registry = new Registry();
    cache = createCatalogContentCache({ client, registry, now: () => clock });
  });

  async function metric(name: string, labels: Record<string, string>): Promise<number> {
    const values = (await registry.getSingleMetric(name)?.get())?.values ?? [];
    return values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
  }

  it('fetches a package once per (catalog, digest, package)', async () => {
    const first = cache.getPackage(cat('a'), 'foo');
    expect(client.calls).toMatchObject([{ method: 'getPackage', baseURL: 'http://catalogd.test/catalogs/ops', packageName: 'foo' }]);
    client.calls[0]?.resolve(config('foo'));
    expect(await first).toEqual(config('foo'));
    expect(await cache.getPackage(cat('a'), 'foo')).toBe(await first);
    expect(client.calls).toHaveLength(1);

    // Another package, digest or catalog is another entry.
    const others = [cache.getPackage(cat('a'), 'bar'), cache.getPackage(cat('b'), 'foo'), cache.getPackage(cat('a', 'other'), 'foo')];
    expect(client.calls.map((c) => [c.baseURL, c.packageName])).toEqual([
      ['http://catalogd.test/catalogs/ops', 'foo'],
      ['http://catalogd.test/catalogs/ops', 'bar'],
      ['http://catalogd.test/catalogs/ops', 'foo'],
      ['http://catalogd.test/catalogs/other', 'foo'],
    ]);
    for (const c of client.calls.slice(1)) c.resolve(config(c.packageName ?? ''));
    await Promise.all(others);
    expect(await metric('operator_controller_catalog_content_fetches_total', { query: 'package', outcome: 'success' })).toBe(4);
    expect(await metric('operator_controller_catalog_content_cache_hits_total', { query: 'package', served: 'content' })).toBe(1);
  });

  it('asks for content of the catalog digest and keeps nothing from a replica serving another', async () => {
    const stale = new StaleContentError('sha256:a', 'sha256:0');
    const first = cache.getPackage(cat('a'), 'foo');
    const names = cache.packageNames(cat('a'));
    expect(client.calls.map((c) => [c.method, c.digest])).toEqual([
      ['getPackage', 'sha256:a'],
      ['packageNames', 'sha256:a'],
    ]);
    client.calls[0]?.reject(stale);
    client.calls[1]?.reject(stale);
    await expect(first).rejects.toBe(stale);
    await expect(names).rejects.toBe(stale);
    // Not held: the next lookup, at the same instant, asks again and keeps what it gets.
    const again = cache.getPackage(cat('a'), 'foo');
    expect(client.calls).toHaveLength(3);
    client.calls[2]?.resolve(config('foo'));
    expect(await again).toEqual(config('foo'));
    expect(await cache.getPackage(cat('a'), 'foo')).toEqual(config('foo'));
    expect(client.calls).toHaveLength(3);
    expect(await metric('operator_controller_catalog_content_fetches_total', { query: 'package', outcome: 'stale' })).toBe(1);
    expect(await metric('operator_controller_catalog_content_fetches_total', { query: 'package_names', outcome: 'stale' })).toBe(1);
  });

  it('replaces a held failure with nothing when the next answer is stale', async () => {
    const first = cache.getPackage(cat('a'), 'foo');
    client.calls[0]?.reject(new Error('error: received unexpected response status code 404'));
    await expect(first).rejects.toThrow('404');
    clock += 2_000;
    const second = cache.getPackage(cat('a'), 'foo');
    client.calls[1]?.reject(new StaleContentError('sha256:a', 'sha256:0'));
    await expect(second).rejects.toBeInstanceOf(StaleContentError);
    // Neither the 404 nor the stale answer is served again: the next lookup fetches.
    void cache.getPackage(cat('a'), 'foo').catch(() => undefined);
    expect(client.calls).toHaveLength(3);
  });

  it('shares one request between concurrent callers', async () => {
    const callers = [cache.getPackage(cat('a'), 'foo'), cache.getPackage(cat('a'), 'foo'), cache.getPackage(cat('a'), 'foo')];
    expect(client.calls).toHaveLength(1);
    client.calls[0]?.resolve(config('foo'));
    const results = await Promise.all(callers);
    expect(results[1]).toBe(results[0]);
    expect(results[2]).toBe(results[0]);
    expect(await metric('operator_controller_catalog_content_cache_hits_total', { query: 'package', served: 'in_flight' })).toBe(2);
  });

  it('serves a failure from cache until the retry delay passed, doubling it per failure', async () => {
    const fail = async (): Promise<Error> => {
      const pending = cache.getPackage(cat('a'), 'foo').then(
        () => new Error('expected a failure'),
        (e: unknown) => e as Error,
      );
      client.calls.at(-1)?.reject(new Error('error: received unexpected response status code 503'));
      return pending;
    };
    const err = await fail();
    expect(err.message).toBe('error: received unexpected response status code 503');
    clock += 1_999;
    await expect(cache.getPackage(cat('a'), 'foo')).rejects.toBe(err);
    expect(client.calls).toHaveLength(1);
    clock += 1;
    const second = await fail();
    expect(client.calls).toHaveLength(2);
    // The second consecutive failure is served for 4 s.
    clock += 3_999;
    await expect(cache.getPackage(cat('a'), 'foo')).rejects.toBe(second);
    expect(client.calls).toHaveLength(2);
    clock += 1;
    const pending = cache.getPackage(cat('a'), 'foo');
    client.calls[2]?.resolve(config('foo'));
    expect(await pending).toEqual(config('foo'));
    expect(await metric('operator_controller_catalog_content_fetches_total', { query: 'package', outcome: 'error' })).toBe(2);
    expect(await metric('operator_controller_catalog_content_cache_hits_total', { query: 'package', served: 'error' })).toBe(2);
  });

  it('caps the retry delay at 60 s and honours errorRetryMs', async () => {
    cache = createCatalogContentCache({ client, now: () => clock, errorRetryMs: 10_000 });
    const delays: number[] = [];
    let pending = cache.getPackage(cat('a'), 'foo').catch(() => undefined);
    for (let i = 0; i < 5; i++) {
      client.calls.at(-1)?.reject(new Error('boom'));
      await pending;
      const calls = client.calls.length;
      let waited = 0;
      while (client.calls.length === calls) {
        clock += 1_000;
        waited += 1_000;
        // A cached failure rejects at once; the first call past the delay starts a request.
        pending = cache.getPackage(cat('a'), 'foo').catch(() => undefined);
        if (client.calls.length === calls) await pending;
      }
      delays.push(waited);
    }
    expect(delays).toEqual([10_000, 20_000, 40_000, 60_000, 60_000]);
  });

  it('turns a thrown non-Error into an Error and never rejects unhandled', async () => {
    const pending = cache.getPackage(cat('a'), 'foo');
    client.calls[0]?.reject('plain string');
    await expect(pending).rejects.toThrow(new Error('plain string'));
    const sync = createCatalogContentCache({
      client: {
        ...client,
        getPackage: () => {
          throw new Error('sync throw');
        },
      },
    });
    await expect(sync.getPackage(cat('a'), 'foo')).rejects.toThrow('sync throw');
  });

  it('caches packageNames per digest', async () => {
    const first = cache.packageNames(cat('a'));
    client.calls[0]?.resolve(new Set(['foo', 'bar']));
    expect([...(await first)]).toEqual(['foo', 'bar']);
    expect(await cache.packageNames(cat('a'))).toBe(await first);
    void cache.packageNames(cat('b'));
    expect(client.calls.map((c) => c.method)).toEqual(['packageNames', 'packageNames']);
  });

  it('forget drops other digests, or the whole catalog', async () => {
    const load = async (ref: CatalogRef, pkg = 'foo'): Promise<number> => {
      const before = client.calls.length;
      const pending = cache.getPackage(ref, pkg);
      for (const c of client.calls.slice(before)) c.resolve(config(pkg));
      await pending;
      return client.calls.length - before;
    };
    expect([await load(cat('a')), await load(cat('b')), await load(cat('a', 'other'))]).toEqual([1, 1, 1]);
    cache.forget('ops', cat('b').digestRef);
    expect([await load(cat('b')), await load(cat('a', 'other')), await load(cat('a'))]).toEqual([0, 0, 1]);
    cache.forget('ops');
    cache.forget('never-seen');
    expect([await load(cat('a')), await load(cat('b')), await load(cat('a', 'other'))]).toEqual([1, 1, 0]);
  });

  it('rejects an aborted caller alone; the shared request goes on and is cached', async () => {
    const ac = new AbortController();
    const aborted = cache.getPackage(cat('a'), 'foo', ac.signal);
    const patient = cache.getPackage(cat('a'), 'foo', new AbortController().signal);
    ac.abort(new Error('reconcile cancelled'));
    await expect(aborted).rejects.toThrow('reconcile cancelled');
    expect(client.calls[0]?.signal?.aborted).toBe(false);
    client.calls[0]?.resolve(config('foo'));
    expect(await patient).toEqual(config('foo'));
    expect(await cache.getPackage(cat('a'), 'foo')).toEqual(config('foo'));
    expect(client.calls).toHaveLength(1);
  });

  it('aborts the request when every caller gave up, caching nothing', async () => {
    const a = new AbortController();
    const b = new AbortController();
    const callers = [cache.getPackage(cat('a'), 'foo', a.signal), cache.getPackage(cat('a'), 'foo', b.signal)];
    a.abort(new Error('first gone'));
    expect(client.calls[0]?.signal?.aborted).toBe(false);
    b.abort(new Error('second gone'));
    expect(client.calls[0]?.signal?.aborted).toBe(true);
    await expect(callers[0]).rejects.toThrow('first gone');
    await expect(callers[1]).rejects.toThrow('second gone');
    client.calls[0]?.reject(new Error('error performing request: Get "x": second gone'));
    await settle();
    // Not a cached failure: the next caller fetches at once.
    const next = cache.getPackage(cat('a'), 'foo');
    expect(client.calls).toHaveLength(2);
    client.calls[1]?.resolve(config('foo'));
    expect(await next).toEqual(config('foo'));
  });

  it('rejects a caller whose signal is already aborted without fetching', async () => {
    await expect(cache.getPackage(cat('a'), 'foo', AbortSignal.abort(new Error('too late')))).rejects.toThrow('too late');
    await expect(cache.packageNames(cat('a'), AbortSignal.abort())).rejects.toThrow();
    expect(client.calls).toHaveLength(0);
  });

  describe('without /api/v1/metas', () => {
    it('reads every package and the names from one /all download per digest', async () => {
      const foo = cache.getPackage(cat('a'), 'foo');
      client.calls[0]?.reject(new MetasNotServedError());
      await settle();
      expect(client.calls.map((c) => c.method)).toEqual(['getPackage', 'getAll']);
      client.calls[1]?.resolve(allContent('1'));
      expect((await foo).bundles.map((b) => b.name)).toEqual(['foo.v1']);
      expect((await cache.getPackage(cat('a'), 'bar')).channels.map((c) => c.name)).toEqual(['stable']);
      expect(await cache.getPackage(cat('a'), 'missing')).toEqual({ packages: [], channels: [], bundles: [], deprecations: [], others: [] });
      expect([...(await cache.packageNames(cat('a')))].sort()).toEqual(['bar', 'foo']);
      expect(client.calls).toHaveLength(2);

      // A new digest goes to /all directly, once, and replaces the old digest's download.
      const next = [cache.getPackage(cat('b'), 'foo'), cache.getPackage(cat('b'), 'bar')];
      expect(client.calls.map((c) => c.method)).toEqual(['getPackage', 'getAll', 'getAll']);
      client.calls[2]?.resolve(allContent('2'));
      expect((await next[0])?.bundles.map((b) => b.name)).toEqual(['foo.v2']);
      await next[1];
      // Partitions already read stay cached; new packages of the old digest need a new download.
      await cache.getPackage(cat('a'), 'foo');
      expect(client.calls).toHaveLength(3);
      void cache.getPackage(cat('a'), 'other');
      expect(client.calls.at(-1)?.method).toBe('getAll');
      expect(await metric('operator_controller_catalog_content_fetches_total', { query: 'package', outcome: 'metas_not_served' })).toBe(1);
      expect(await metric('operator_controller_catalog_content_fetches_total', { query: 'all', outcome: 'success' })).toBe(2);
    });

    it('shares the download between packages asked for concurrently, and caches its failure', async () => {
      const callers = [cache.getPackage(cat('a'), 'foo'), cache.getPackage(cat('a'), 'bar'), cache.packageNames(cat('a'))];
      for (const c of client.calls) c.reject(new MetasNotServedError());
      await settle();
      const downloads = client.calls.filter((c) => c.method === 'getAll');
      expect(downloads).toHaveLength(1);
      downloads[0]?.reject(new Error('error performing request: Get "x": connect ECONNREFUSED'));
      for (const caller of callers) await expect(caller).rejects.toThrow('connect ECONNREFUSED');
      const calls = client.calls.length;
      await expect(cache.getPackage(cat('a'), 'baz')).rejects.toThrow('connect ECONNREFUSED');
      expect(client.calls).toHaveLength(calls);
      clock += 2_000;
      const retry = cache.getPackage(cat('a'), 'foo');
      expect(client.calls.slice(calls).map((c) => c.method)).toEqual(['getAll']);
      client.calls.at(-1)?.resolve(allContent('1'));
      expect((await retry).packages.map((p) => p.name)).toEqual(['foo']);
    });

    it('tries /metas again at another base URL and after the catalog was forgotten', async () => {
      const first = cache.getPackage(cat('a'), 'foo');
      client.calls[0]?.reject(new MetasNotServedError());
      await settle();
      client.calls[1]?.resolve(allContent('1'));
      await first;
      void cache.getPackage({ ...cat('b'), baseURL: 'https://elsewhere.test/catalogs/ops' }, 'foo');
      expect(client.calls.at(-1)?.method).toBe('getPackage');
      cache.forget('ops');
      void cache.getPackage(cat('c'), 'foo');
      expect(client.calls.at(-1)?.method).toBe('getPackage');
    });

    it('does not take a plain 404 for a missing /metas route', async () => {
      const pending = cache.getPackage(cat('a'), 'foo');
      client.calls[0]?.reject(new Error('error: received unexpected response status code 404'));
      await expect(pending).rejects.toThrow('error: received unexpected response status code 404');
      expect(client.calls.map((c) => c.method)).toEqual(['getPackage']);
    });
  });
});
