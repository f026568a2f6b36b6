import { mkdtemp, rm } from 'node:fs/promises';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSelfSignedCertificate } from '../../olmv1/localstack/index.ts';
import { createCatalogClient } from './index.ts';
import { MetasNotServedError, StaleContentError, digestOfRef, servesExpected } from './client.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const line = (o: Record<string, unknown>): string => `${JSON.stringify(o)}\n`;
const PACKAGE = line({ schema: 'olm.package', name: 'foo', defaultChannel: 'stable' });
const CHANNEL = line({ schema: 'olm.channel', package: 'foo', name: 'stable', entries: [{ name: 'foo.v1' }] });
const BUNDLE = (v: string, image = `r.test/foo:${v}`): string =>
  line({
    schema: 'olm.bundle',
    package: 'foo',
    name: `foo.v${v}`,
    image,
    properties: [{ type: 'olm.package', value: { packageName: 'foo', version: `${v}.0.0` } }],
  });

/** Answers like catalogd's /api/v1/metas for package "foo"; records every request. */
function catalogdLike(requests: Array<{ url: string; encoding: string | undefined }>, gzip: boolean): Handler {
  return (req, res) => {
    requests.push({ url: req.url ?? '', encoding: req.headers['accept-encoding'] });
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    let body = '';
    if (q.get('schema') === 'olm.package' && q.get('name') === 'foo') body = PACKAGE;
    else if (q.get('package') === 'foo') body = CHANNEL + BUNDLE('1') + BUNDLE('2', 'r.test/old') + BUNDLE('2');
    res.setHeader('content-type', 'application/jsonl');
    if (gzip && req.headers['accept-encoding'] === 'gzip') {
      res.setHeader('content-encoding', 'gzip');
      res.end(gzipSync(body));
    } else {
      res.end(body);
    }
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('catalog client', () => {
  let server: Server;
  let url: string;
  let handler: Handler = (_req, res) => res.end();
  let connections = 0;
  const client = createCatalogClient({ timeoutMs: 2_000 });

  beforeAll(async () => {
    server = createServer((req, res) => handler(req, res));
    server.on('connection', () => connections++);
    url = await listen(server);
  });
  afterEach(() => {
    server.closeAllConnections();
    client.close();
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it.each([true, false])('returns the package partition from both queries (gzip=%s)', async (gzip) => {
    const requests: Array<{ url: string; encoding: string | undefined }> = [];
    handler = catalogdLike(requests, gzip);
    const cfg = await client.getPackage(`${url}/catalogs/ops/`, 'foo');
    expect(requests.map((r) => r.url).sort()).toEqual([
      '/catalogs/ops/api/v1/metas?package=foo',
      '/catalogs/ops/api/v1/metas?schema=olm.package&name=foo',
    ]);
    expect(requests.every((r) => r.encoding === 'gzip')).toBe(true);
    expect(cfg.packages.map((p) => p.name)).toEqual(['foo']);
    expect(cfg.channels.map((c) => c.name)).toEqual(['stable']);
    // Two blobs in the foo.v2 slot: the later one wins, as in the catalog cache.
    expect(cfg.bundles.map((b) => [b.name, b.image])).toEqual([
      ['foo.v1', 'r.test/foo:1'],
      ['foo.v2', 'r.test/foo:2'],
    ]);
  });

  it('URL-encodes the package name', async () => {
    const requests: Array<{ url: string; encoding: string | undefined }> = [];
    handler = catalogdLike(requests, false);
    const cfg = await client.getPackage(`${url}/catalogs/ops`, 'a b&c=d');
    expect(requests.map((r) => r.url).sort()).toEqual([
      '/catalogs/ops/api/v1/metas?package=a%20b%26c%3Dd',
      '/catalogs/ops/api/v1/metas?schema=olm.package&name=a%20b%26c%3Dd',
    ]);
    expect(cfg).toEqual({ packages: [], channels: [], bundles: [], deprecations: [], others: [] });
  });

  it('keeps only the requested package when the server sends more', async () => {
    handler = (_req, res) =>
      res.end(PACKAGE + line({ schema: 'olm.package', name: 'bar' }) + line({ schema: 'olm.channel', package: 'bar', name: 'x', entries: [] }));
    const cfg = await client.getPackage(`${url}/catalogs/ops`, 'foo');
    expect(cfg.packages.map((p) => p.name)).toEqual(['foo']);
    expect(cfg.channels).toEqual([]);
  });

  it('reuses keep-alive connections across calls', async () => {
    handler = catalogdLike([], true);
    const before = connections;
    for (let i = 0; i < 5; i++) await client.getPackage(`${url}/catalogs/ops`, 'foo');
    expect(connections - before).toBeLessThanOrEqual(2);
  });

  it.each([404, 500, 503])('reports status %i with upstream text', async (status) => {
    handler = (req, res) => {
      res.statusCode = req.url?.includes('package=') === true ? status : 200;
      res.end(req.url?.includes('package=') === true ? 'Not Found\n' : PACKAGE);
    };
    await expect(client.getPackage(`${url}/catalogs/ops`, 'foo')).rejects.toThrow(
      new Error(`error: received unexpected response status code ${status}`),
    );
  });

  it('wraps transport errors', async () => {
    const closed = createServer();
    const closedUrl = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const err = await client.getPackage(`${closedUrl}/catalogs/ops`, 'foo').catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(
      /^error performing request: Get "http:\/\/127\.0\.0\.1:\d+\/catalogs\/ops\/api\/v1\/metas\?\S+": connect ECONNREFUSED/,
    );
    expect((err as Error).cause).toBeInstanceOf(Error);
  });

  it('gives up after timeoutMs when no response comes', async () => {
    handler = () => undefined; // never answers
    const quick = createCatalogClient({ timeoutMs: 200 });
    await expect(quick.getPackage(`${url}/catalogs/ops`, 'foo')).rejects.toThrow(/^error performing request: Get ".*": context deadline exceeded$/);
    quick.close();
  });

  it('stops when the caller aborts', async () => {
    const ac = new AbortController();
    handler = () => ac.abort(new Error('reconcile cancelled')); // once the request is in flight; never answers
    const pending = client.getPackage(`${url}/catalogs/ops`, 'foo', ac.signal);
    await expect(pending).rejects.toThrow(/^error performing request: Get ".*": reconcile cancelled$/);
  });

  it('reports bodies that do not decode', async () => {
    handler = (_req, res) => res.end('{"schema": nope\n');
    await expect(client.getPackage(`${url}/catalogs/ops`, 'foo')).rejects.toThrow(/^error parsing catalog contents: .*invalid character 'o'/);
  });

  it('reports a body that breaks off', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-length': '100000' });
      res.write(PACKAGE, () => res.destroy());
    };
    await expect(client.getPackage(`${url}/catalogs/ops`, 'foo')).rejects.toThrow(/^error parsing catalog contents: /);
  });

  it('lists the olm.package names through /metas?schema=olm.package', async () => {
    const requests: string[] = [];
    handler = (req, res) => {
      requests.push(req.url ?? '');
      res.end(PACKAGE + line({ schema: 'olm.package', name: 'bar' }));
    };
    expect([...(await client.packageNames(`${url}/catalogs/ops/`))]).toEqual(['foo', 'bar']);
    expect(requests).toEqual(['/catalogs/ops/api/v1/metas?schema=olm.package']);
  });

  it.each([true, false])('downloads /all grouped per package (gzip=%s)', async (gzip) => {
    const requests: string[] = [];
    const body =
      PACKAGE +
      CHANNEL +
      BUNDLE('1') +
      line({ schema: 'olm.package', name: 'bar' }) +
      line({ schema: 'olm.bundle', package: 'bar', name: 'bar.v1', image: 'r.test/bar:1', properties: [] }) +
      line({ schema: 'custom.thing', name: 'loose' });
    handler = (req, res) => {
      requests.push(req.url ?? '');
      res.setHeader('content-type', 'application/jsonl');
      if (gzip) res.setHeader('content-encoding', 'gzip');
      res.end(gzip ? gzipSync(body) : body);
    };
    const content = await client.getAll(`${url}/catalogs/ops`);
    expect(requests).toEqual(['/catalogs/ops/api/v1/all']);
    expect([...content.packageNames]).toEqual(['foo', 'bar']);
    const foo = content.loadPackage('foo');
    expect([foo.packages.map((p) => p.name), foo.channels.map((c) => c.name), foo.bundles.map((b) => b.name)]).toEqual([
      ['foo'],
      ['stable'],
      ['foo.v1'],
    ]);
    expect(content.loadPackage('bar').bundles.map((b) => b.image)).toEqual(['r.test/bar:1']);
    expect(content.loadPackage('none')).toEqual({ packages: [], channels: [], bundles: [], deprecations: [], others: [] });
  });

  it('streams /all one package at a time, with load errors per package and scattered packages named', async () => {
    const requests: string[] = [];
    const body =
      PACKAGE +
      CHANNEL +
      BUNDLE('1') +
      line({ schema: 'olm.package', name: 'bad' }) +
      line({ schema: 'olm.channel', package: 'bad', name: 'c', entries: 'x' }) +
      line({ schema: 'olm.package', name: 'bar' }) +
      line({ schema: 'olm.bundle', package: 'foo', name: 'foo.v2', image: 'r.test/foo:2', properties: [] });
    handler = (req, res) => {
      requests.push(req.url ?? '');
      res.setHeader('content-encoding', 'gzip');
      res.end(gzipSync(body));
    };
    const seen: string[] = [];
    const end = await client.eachPackage(`${url}/catalogs/ops`, (pkg, p) =>
      seen.push(p instanceof Error ? `${pkg}: ${p.message.split(':')[0]}` : `${pkg}: ${p.bundles.map((b) => b.name).join(',')}`),
    );
    expect(requests).toEqual(['/catalogs/ops/api/v1/all']);
    expect(seen).toEqual(['foo: foo.v1', 'bad: error loading package "bad"', 'bar: ']);
    expect(end).toEqual({ packageNames: new Set(['foo', 'bad', 'bar']), scattered: new Set(['foo']) });
  });

  it('reports /all errors with the same texts', async () => {
    handler = (_req, res) => {
      res.statusCode = 404;
      res.end('404 page not found\n');
    };
    const err = await client.getAll(`${url}/catalogs/ops`).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(MetasNotServedError);
    expect((err as Error).message).toBe('error: received unexpected response status code 404');
    handler = (_req, res) => res.end(line({ schema: 'olm.channel', package: 'foo', name: 'c', entries: 'x' }));
    const content = await client.getAll(`${url}/catalogs/ops`);
    expect(() => content.loadPackage('foo')).toThrow(/^error loading package "foo": parse channel: /);
    handler = (_req, res) => res.end('{"schema": nope\n');
    await expect(client.getAll(`${url}/catalogs/ops`)).rejects.toThrow(/^error parsing catalog contents: /);
  });

  it.each([
    ['404 page not found\n', 404, false, true],
    ['404 page not found\n', 404, true, true],
    ['404 Not Found\n', 404, false, false],
    ['404 page not found\n', 500, false, false],
  ])('tells a missing /metas route (%j, status %i, gzip=%s) from other failures', async (text, status, gzip, notServed) => {
    handler = (_req, res) => {
      res.statusCode = status;
      if (gzip) res.setHeader('content-encoding', 'gzip');
      res.end(gzip ? gzipSync(text) : text);
    };
    for (const call of [() => client.getPackage(`${url}/catalogs/ops`, 'foo'), () => client.packageNames(`${url}/catalogs/ops`)]) {
      const err = await call().catch((e: unknown) => e);
      expect(err instanceof MetasNotServedError).toBe(notServed);
      expect((err as Error).message).toBe(`error: received unexpected response status code ${status}`);
    }
  });

  it('inflates a gzip body only as far as the catalog limit: a bomb of 1 GiB of documents stops there', async () => {
    // 16 MiB of small documents, one gzip member (~50 KB), 64 times: ~3 MB that inflate to 1 GiB.
    const doc = line({ schema: 'olm.other', name: 'x' });
    const member = gzipSync(doc.repeat(Math.floor((16 << 20) / doc.length)));
    const bomb = Buffer.concat(Array<Buffer>(64).fill(member));
    handler = (_req, res) => {
      res.setHeader('content-encoding', 'gzip');
      res.end(bomb);
    };
    const bounded = createCatalogClient({ timeoutMs: 10_000, decodeLimits: { maxCatalogBytes: 4 << 20 } });
    try {
      for (const call of [() => bounded.packageNames(`${url}/catalogs/ops`), () => bounded.getAll(`${url}/catalogs/ops`)]) {
        await expect(call()).rejects.toThrow(
          /^error parsing catalog contents: \/catalogs\/ops\/api\/v1\/(metas|all): catalog exceeds the limit of 4194304 bytes$/,
        );
      }
    } finally {
      bounded.close();
    }
  });

  describe('content of the digest asked for', () => {
    const NEW = 'sha256:' + 'b'.repeat(64);
    const OLD = 'sha256:' + 'a'.repeat(64);
    /** Answers like catalogdLike, naming `digestOf(connection number)` in the digest header. */
    function replicas(digestOf: (connection: number) => string | undefined, seen: Array<{ url: string; connection: number }>): Handler {
      const inner = catalogdLike([], true);
      const numbers = new WeakMap<object, number>();
      let count = 0;
      return (req, res) => {
        let n = numbers.get(req.socket);
        if (n === undefined) numbers.set(req.socket, (n = ++count));
        seen.push({ url: req.url ?? '', connection: n });
        const digest = digestOf(n);
        if (digest !== undefined) res.setHeader('olmv1-catalog-digest', digest);
        inner(req, res);
      };
    }

    it.each([
      [undefined, undefined, true],
      [undefined, OLD, true],
      [NEW, undefined, true],
      [NEW, NEW, true],
      [NEW, OLD, false],
    ])('takes an answer for %s naming %s: %s', (expected, served, taken) => {
      expect(servesExpected(expected, served)).toBe(taken);
    });

    it.each([
      ['r.test/ops@sha256:abc', 'sha256:abc'],
      ['r.test:5000/a/b@sha256:abc', 'sha256:abc'],
      ['r.test/ops:latest', undefined],
      ['r.test/ops@', undefined],
    ])('the digest of %s is %s', (ref, digest) => {
      expect(digestOfRef(ref)).toBe(digest);
    });

    it('drops an answer of another digest unread and asks again on a new connection', async () => {
      const seen: Array<{ url: string; connection: number }> = [];
      // The first two connections reach a replica still at the old digest.
      handler = replicas((n) => (n <= 2 ? OLD : NEW), seen);
      const cfg = await client.getPackage(`${url}/catalogs/ops`, 'foo', undefined, NEW);
      expect(cfg.bundles.map((b) => b.name)).toEqual(['foo.v1', 'foo.v2']);
      // Each query whose answer was stale was sent again on a connection of its own.
      const byUrl = Map.groupBy(seen, (r) => r.url);
      for (const requests of byUrl.values()) {
        expect(new Set(requests.map((r) => r.connection)).size).toBe(requests.length);
        expect(requests.at(-1)!.connection).toBeGreaterThan(2);
      }
      expect(seen.length).toBe(4);
    });

    it('fails with StaleContentError after three answers of another digest, for every query', async () => {
      const seen: Array<{ url: string; connection: number }> = [];
      handler = replicas(() => OLD, seen);
      const base = `${url}/catalogs/ops`;
      for (const call of [
        () => client.getPackage(base, 'foo', undefined, NEW),
        () => client.packageNames(base, undefined, NEW),
        () => client.getAll(base, undefined, NEW),
      ]) {
        seen.length = 0;
        const err = await call().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StaleContentError);
        expect((err as StaleContentError).message).toBe(`error: catalogd served content of digest ${OLD}, not ${NEW}`);
        // Three attempts of the query that failed first (getPackage's other query is then cancelled).
        expect(Math.max(...[...Map.groupBy(seen, (r) => r.url).values()].map((requests) => requests.length))).toBe(3);
      }
    });

    it('takes answers that name no digest (upstream catalogd) or when no digest is asked for', async () => {
      handler = replicas(() => undefined, []);
      expect((await client.getPackage(`${url}/catalogs/ops`, 'foo', undefined, NEW)).bundles).toHaveLength(2);
      handler = replicas(() => OLD, []);
      expect((await client.getPackage(`${url}/catalogs/ops`, 'foo')).bundles).toHaveLength(2);
    });
  });

  it('reports blobs that do not load', async () => {
    handler = (req, res) =>
      res.end(req.url?.includes('package=') === true ? line({ schema: 'olm.channel', package: 'foo', name: 'c', entries: 'x' }) : '');
    await expect(client.getPackage(`${url}/catalogs/ops`, 'foo')).rejects.toThrow(
      /^error loading package "foo": parse channel: json: cannot unmarshal string into Go struct field Channel.entries/,
    );
  });
});

describe('catalog client over HTTPS', () => {
  let dir: string;
  let server: Server;
  let url: string;
  let ca: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'catalogclient-tls-'));
    const cert = await createSelfSignedCertificate(dir, { name: 'tls', commonName: 'catalogd', ipAddresses: ['127.0.0.1'] });
    ca = cert.certPem;
    server = createHttpsServer({ key: cert.keyPem, cert: ca }, catalogdLike([], true)) as unknown as Server;
    url = (await listen(server)).replace('http:', 'https:');
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('trusts caPem in addition to the system roots', async () => {
    const client = createCatalogClient({ caPem: () => ca });
    const cfg = await client.getPackage(`${url}/catalogs/ops`, 'foo');
    expect(cfg.bundles).toHaveLength(2);
    client.close();
  });

  it('rejects an untrusted certificate as a transport error', async () => {
    const client = createCatalogClient();
    await expect(client.getPackage(`${url}/catalogs/ops`, 'foo')).rejects.toThrow(
      /^error performing request: Get "https:.*": self-signed certificate/,
    );
    client.close();
  });
});
