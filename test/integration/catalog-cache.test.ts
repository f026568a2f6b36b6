// operator-controller's catalog content cache against a real catalogd (the composition of
// cmd/catalogd, in this process) serving catalog images pushed to a real registry, with
// ClusterCatalogs on a real kube-apiserver. Requests reaching catalogd are counted from its
// own `catalogd_http_request_duration_seconds` histogram. The `/api/v1/all` fallback runs
// against a loopback node:http server that, like upstream catalogd with the metas handler
// off, serves only `/catalogs/<name>/api/v1/all` (the real catalogd's bytes) and answers
// `404 page not found` to anything else.
import { randomBytes } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type CatalogRef, createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { type KubeContext, type KubeObject, connect, isAlreadyExists } from '../../pkg/shared/kube/index.ts';
import { startCatalogd, type TestCatalogd } from '../support/catalogd.ts';
import { condition, pushCatalog, simpleCatalog, waitForCatalog, writeCatalogFiles } from '../support/catalogs.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { withTempDir } from '../support/temp-dir.ts';

const id = randomBytes(3).toString('hex');
const name = `cache-${id}`;
let kube: KubeContext;
let catalogd: TestCatalogd;
let anon: string;
const client = createCatalogClient({ timeoutMs: 30_000 });

/** The content-relevant part of a ClusterCatalog's status. */
function refOf(cc: KubeObject): CatalogRef {
  const status = cc.status as { urls: { base: string }; resolvedSource: { image: { ref: string } } };
  return { name: cc.metadata.name ?? '', baseURL: status.urls.base, digestRef: status.resolvedSource.image.ref };
}

/** Requests catalogd's catalog server has answered so far. */
async function catalogdRequests(): Promise<number> {
  const text = await (await fetch(`${catalogd.healthUrl}/metrics`)).text();
  let total = 0;
  for (const m of text.matchAll(/^catalogd_http_request_duration_seconds_count\{[^}]*\} (\d+)$/gm)) total += Number(m[1]);
  return total;
}

/** Metric value from a prom-client registry, 0 when absent. */
async function value(registry: Registry, metric: string, labels: Record<string, string>): Promise<number> {
  const values = (await registry.getSingleMetric(metric)?.get())?.values ?? [];
  return values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
}

beforeAll(async () => {
  const cp = inject('envtestControlPlane');
  anon = inject('envtestRegistries').anonymous.host;
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } }).catch(() => undefined);
  catalogd = await startCatalogd(cp, { pollMinuteMs: 1000 });
});

afterAll(async () => {
  client.close();
  for (const catalog of [name, `${name}-fallback`]) {
    await kube?.client.delete({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: catalog }).catch(() => undefined);
  }
  await catalogd?.destroy();
  kube?.close();
});

/** The first image: foo 1.0.0 and 1.1.0, bar 0.1.0. */
const FIRST = { ...simpleCatalog('foo', ['1.0.0', '1.1.0']), ...simpleCatalog('bar', ['0.1.0']) };
/** The next image: foo 1.0.0 to 1.2.0. */
const NEXT = simpleCatalog('foo', ['1.0.0', '1.1.0', '1.2.0']);
const tagOf = (catalog: string): string => `${anon}/catalogs/${catalog}:latest`;

/** Pushes `files` to the tag of ClusterCatalog `catalog` (created, polled, when missing) and waits until it serves them. */
async function serve(catalog: string, files: Record<string, string>): Promise<CatalogRef> {
  const digest = await withTempDir('fbc-', async (dir) => pushCatalog(await writeCatalogFiles(dir, files), tagOf(catalog)));
  await kube.client
    .create({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name: catalog },
      spec: { source: { type: 'Image', image: { ref: tagOf(catalog), pollIntervalMinutes: 1 } } },
    })
    .catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
  const served = (cc: KubeObject): boolean => condition(cc, 'Serving')?.status === 'True' && refOf(cc).digestRef.endsWith(`@${digest}`);
  return refOf(await waitForCatalog(kube.client, catalog, served, 60_000));
}

describe('catalog content cache against catalogd', () => {
  const registry = new Registry();
  const cache = createCatalogContentCache({ client, registry });
  // The catalog serving the first image: made by whichever test needs it first, so each runs alone.
  let firstServed: Promise<CatalogRef> | undefined;
  const firstImage = (): Promise<CatalogRef> => (firstServed ??= serve(name, FIRST));

  it('fetches a package partition once per digest and lists the packages', async () => {
    const first = await firstImage();
    expect(first.baseURL).toBe(`${catalogd.url}/catalogs/${name}`);

    const before = await catalogdRequests();
    const foo = await cache.getPackage(first, 'foo');
    expect(foo.packages.map((p) => [p.name, p.defaultChannel])).toEqual([['foo', 'stable']]);
    expect(foo.channels.map((c) => c.entries.map((e) => e.name))).toEqual([['foo.v1.0.0', 'foo.v1.1.0']]);
    expect(foo.bundles.map((b) => [b.name, b.image])).toEqual([
      ['foo.v1.0.0', 'registry.test/foo-bundle:v1.0.0'],
      ['foo.v1.1.0', 'registry.test/foo-bundle:v1.1.0'],
    ]);
    // The two /metas queries of one partition.
    expect((await catalogdRequests()) - before).toBe(2);

    expect(await cache.getPackage(first, 'foo')).toEqual(foo);
    expect(await catalogdRequests()).toBe(before + 2);
    expect(await value(registry, 'operator_controller_catalog_content_cache_hits_total', { query: 'package', served: 'content' })).toBe(1);

    expect([...(await cache.packageNames(first))].sort()).toEqual(['bar', 'foo']);
    expect(await catalogdRequests()).toBe(before + 3);
    await cache.packageNames(first);
    expect(await cache.getPackage(first, 'missing')).toEqual({ packages: [], channels: [], bundles: [], deprecations: [], others: [] });
    expect(await catalogdRequests()).toBe(before + 5);
    expect(await value(registry, 'operator_controller_catalog_content_fetches_total', { query: 'package', outcome: 'success' })).toBe(2);
  });

  it('fetches a new catalog image (new digest) once, concurrent callers sharing the request', async () => {
    const first = await firstImage();
    await cache.getPackage(first, 'foo'); // cached, as the first test leaves it
    const next = await serve(name, NEXT);
    expect(next.digestRef).not.toBe(first.digestRef);
    expect(next.digestRef).toMatch(/@sha256:[0-9a-f]{64}$/);

    const before = await catalogdRequests();
    const [a, b] = await Promise.all([cache.getPackage(next, 'foo'), cache.getPackage(next, 'foo')]);
    expect(b).toBe(a);
    expect(a.bundles.map((x) => x.name)).toEqual(['foo.v1.0.0', 'foo.v1.1.0', 'foo.v1.2.0']);
    expect((await catalogdRequests()) - before).toBe(2);
    await cache.getPackage(next, 'foo');
    expect([...(await cache.packageNames(next))]).toEqual(['foo']);
    expect((await catalogdRequests()) - before).toBe(3);

    // The old digest's entries stay until forgotten.
    expect((await cache.getPackage(first, 'foo')).bundles).toHaveLength(2);
    expect((await catalogdRequests()) - before).toBe(3);
    cache.forget(name, next.digestRef);
    await cache.getPackage(next, 'foo');
    expect((await catalogdRequests()) - before).toBe(3);
    // The forgotten old digest is asked for again, but catalogd serves the new one now: its
    // answers name that digest and are not taken (nor cached) for the old (decision 0131).
    const old = `sha256:${first.digestRef.split('@sha256:')[1] ?? ''}`;
    await expect(cache.getPackage(first, 'foo')).rejects.toThrow(
      `error: catalogd served content of digest ${next.digestRef.split('@')[1] ?? ''}, not ${old}`,
    );
    await expect(cache.getPackage(first, 'foo')).rejects.toThrow('error: catalogd served content of digest');
    expect(await value(registry, 'operator_controller_catalog_content_fetches_total', { query: 'package', outcome: 'stale' })).toBe(2);
  });

  describe('a catalog server without /api/v1/metas', () => {
    let server: Server;
    let base = '';
    const requests: string[] = [];
    let body = '';

    beforeAll(async () => {
      server = createServer((req, res) => {
        requests.push(req.url ?? '');
        if (req.method === 'GET' && req.url === `/catalogs/${name}/api/v1/all`) {
          res.writeHead(200, { 'content-type': 'application/jsonl' });
          res.end(body);
          return;
        }
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('404 page not found\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/catalogs/${name}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('downloads /all once per digest and reads every package from it', async () => {
      // The real catalogd's bytes of both images, from a catalog of this test's own.
      const all = async (ref: CatalogRef): Promise<string> => (await fetch(`${ref.baseURL}/api/v1/all`)).text();
      const firstBody = await all(await serve(`${name}-fallback`, FIRST));
      const nextBody = await all(await serve(`${name}-fallback`, NEXT));
      const fallback = createCatalogContentCache({ client, registry: new Registry() });
      body = firstBody;
      expect(body).toContain('"name":"bar"');
      const ref: CatalogRef = { name, baseURL: base, digestRef: `${name}@sha256:first` };

      const foo = await fallback.getPackage(ref, 'foo');
      expect(foo.bundles.map((b) => b.name)).toEqual(['foo.v1.0.0', 'foo.v1.1.0']);
      expect(requests.filter((u) => u.endsWith('/api/v1/all'))).toHaveLength(1);
      expect(requests.every((u) => u.startsWith(`/catalogs/${name}/api/v1/metas?`) || u === `/catalogs/${name}/api/v1/all`)).toBe(true);

      const seen = requests.length;
      expect((await fallback.getPackage(ref, 'bar')).bundles.map((b) => b.name)).toEqual(['bar.v0.1.0']);
      expect([...(await fallback.packageNames(ref))].sort()).toEqual(['bar', 'foo']);
      expect(await fallback.getPackage(ref, 'missing')).toEqual({ packages: [], channels: [], bundles: [], deprecations: [], others: [] });
      expect(requests).toHaveLength(seen);

      // A new digest: straight to /all, once.
      body = nextBody;
      const next: CatalogRef = { ...ref, digestRef: `${ref.digestRef}-next` };
      const [foo2, names2] = await Promise.all([fallback.getPackage(next, 'foo'), fallback.packageNames(next)]);
      expect(foo2.bundles.map((b) => b.name)).toEqual(['foo.v1.0.0', 'foo.v1.1.0', 'foo.v1.2.0']);
      expect([...names2]).toEqual(['foo']);
      expect(requests.slice(seen)).toEqual([`/catalogs/${name}/api/v1/all`]);
    });
  });
});
