import dns from 'node:dns';
import { rm, truncate } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Meta } from '../../shared/fbc/types.ts';
import { LocalDirStore } from '../storage/index.ts';
import { AnswerBuffers } from './answer-buffers.ts';
import { type CatalogServer, buildCatalogServer } from './server.ts';
import { storeWith } from '../../../test/support/catalog-store.ts';
import { type ExchangeRequest, exchange } from '../../../test/support/http-exchange.ts';

function meta(schema: string, pkg: string, name: string, pad = 0): Meta {
  const obj: Record<string, unknown> = { name, schema };
  if (pkg !== '') obj.package = pkg;
  if (pad > 0) obj.pad = 'p'.repeat(pad);
  return { schema, package: pkg, name, blob: `${JSON.stringify(obj)}\n` };
}

const BLOBS = [
  meta('olm.package', '', 'foo', 600),
  meta('olm.channel', 'foo', 'stable'),
  meta('olm.bundle', 'foo', 'foo.v1', 800),
  meta('olm.bundle', 'foo', 'foo.v2', 800),
  meta('olm.package', '', 'bar'),
  // Larger than the bound up to which /metas answers are read whole: this one streams.
  meta('olm.bundle', 'big', 'big.v1', 300_000),
];
const ALL = BLOBS.map((b) => b.blob).join('');

describe('catalog server', () => {
  let remove: () => Promise<void>;
  let store: LocalDirStore;
  let app: CatalogServer;
  let origin: string;
  let registry: Registry;
  const inject = (req: ExchangeRequest): ReturnType<typeof exchange> => exchange(origin, req);

  beforeAll(async () => {
    ({ store, remove } = await storeWith('server-test-', 'test-catalog', BLOBS));
    registry = new Registry();
    app = buildCatalogServer({ content: store, logger: pino({ level: 'silent' }), registry });
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app.close();
    await remove();
  });

  const lastModified = (): string => store.get('test-catalog')!.modTime.toUTCString();

  describe('routing', () => {
    it.each([
      '/',
      '/catalogs/',
      '/catalogs/test-catalog/',
      '/catalogs/test-catalog/api/v1c',
      '/catalogs/test-catalog/api/v1/all/',
      '/catalogs/test-catalog/api/v1/graphql',
    ])('404 page not found for %s', async (url) => {
      const res = await inject({ url });
      expect(res.statusCode).toBe(404);
      expect(res.body).toBe('404 page not found\n');
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers.vary).toBe('Accept-Encoding');
    });

    it('answers 405 without an Allow header for other methods', async () => {
      const res = await inject({
        method: 'POST',
        url: '/catalogs/test-catalog/api/v1/all',
        payload: 'x',
        headers: { 'content-type': 'application/x-anything' },
      });
      expect(res.statusCode).toBe(405);
      expect(res.body).toBe('Method Not Allowed\n');
      expect(res.headers.allow).toBeUndefined();
    });

    it('redirects non-clean paths', async () => {
      const res = await inject({ url: '/catalogs//test-catalog/./api/v1/all?x=1' });
      expect(res.statusCode).toBe(301);
      expect(res.headers.location).toBe('/catalogs/test-catalog/api/v1/all?x=1');
    });

    it('validates the catalog name before looking at storage', async () => {
      const res = await inject({ url: '/catalogs/Not_Valid/api/v1/all' });
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(/^invalid catalog name: a lowercase RFC 1123 subdomain must consist of/);
      const encoded = await inject({ url: '/catalogs/a%2Fb/api/v1/all' });
      expect(encoded.statusCode).toBe(400);
    });

    it('answers 404 Not Found for a catalog without content', async () => {
      const res = await inject({ url: '/catalogs/missing/api/v1/all' });
      expect(res.statusCode).toBe(404);
      expect(res.body).toBe('404 Not Found\n');
      expect(res.headers['olmv1-catalog-digest']).toBeUndefined();
    });

    it('names the digest of the content it serves on every answer about that catalog, bodies unchanged', async () => {
      const digest = store.get('test-catalog')!.info.digest;
      const base = '/catalogs/test-catalog/api/v1';
      const answers = await Promise.all([
        inject({ url: `${base}/all` }),
        inject({ url: `${base}/all`, headers: { 'accept-encoding': 'gzip' } }),
        inject({ url: `${base}/all`, headers: { 'if-modified-since': lastModified() } }),
        inject({ url: `${base}/metas?package=foo` }),
        inject({ url: `${base}/metas?schema=olm.package`, method: 'HEAD' }),
      ]);
      expect(answers.map((r) => [r.statusCode, r.headers['olmv1-catalog-digest']])).toEqual([
        [200, digest],
        [200, digest],
        [304, digest],
        [200, digest],
        [200, digest],
      ]);
      expect(answers[0]?.body).toBe(ALL);
    });
  });

  describe('/api/v1/all', () => {
    const url = '/catalogs/test-catalog/api/v1/all';

    it('serves the whole catalog as JSON lines with caching headers', async () => {
      const res = await inject({ url });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(ALL);
      expect(res.headers['content-type']).toBe('application/jsonl');
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(ALL)));
      expect(res.headers['accept-ranges']).toBe('bytes');
      expect(res.headers['last-modified']).toBe(lastModified());
    });

    it('answers HEAD with the same headers and no body', async () => {
      const res = await inject({ method: 'HEAD', url, headers: { 'accept-encoding': 'gzip' } });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('');
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(ALL)));
    });

    it('serves the precompressed gzip copy, and only gzip', async () => {
      const gz = await inject({ url, headers: { 'accept-encoding': 'gzip' } });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gz.headers['accept-ranges']).toBeUndefined();
      expect(gunzipSync(gz.rawPayload).toString()).toBe(ALL);
      const zs = await inject({ url, headers: { 'accept-encoding': 'zstd, br' } });
      expect(zs.headers['content-encoding']).toBeUndefined();
      expect(zs.body).toBe(ALL);
    });

    it('answers conditional requests', async () => {
      const notModified = await inject({ url, headers: { 'if-modified-since': lastModified() } });
      expect(notModified.statusCode).toBe(304);
      expect(notModified.body).toBe('');
      expect(notModified.headers['content-type']).toBeUndefined();
      expect(notModified.headers['last-modified']).toBe(lastModified());
      const old = new Date(Date.parse(lastModified()) - 1000).toUTCString();
      expect((await inject({ url, headers: { 'if-modified-since': old } })).statusCode).toBe(200);
      expect((await inject({ url, headers: { 'if-unmodified-since': old } })).statusCode).toBe(412);
      expect((await inject({ url, headers: { 'if-modified-since': 'not a date' } })).statusCode).toBe(200);
    });

    it('serves byte ranges uncompressed', async () => {
      const one = await inject({ url, headers: { range: 'bytes=0-9', 'accept-encoding': 'gzip' } });
      expect(one.statusCode).toBe(206);
      expect(one.body).toBe(ALL.slice(0, 10));
      expect(one.headers['content-range']).toBe(`bytes 0-9/${ALL.length}`);
      expect(one.headers['content-encoding']).toBeUndefined();
      const multi = await inject({ url, headers: { range: 'bytes=0-1,-3' } });
      expect(multi.statusCode).toBe(206);
      expect(multi.headers['content-type']).toMatch(/^multipart\/byteranges; boundary=/);
      expect(multi.body).toContain(`Content-Range: bytes 0-1/${ALL.length}`);
      expect(multi.body).toContain(ALL.slice(-3));
      expect(Number(multi.headers['content-length'])).toBe(multi.rawPayload.length);
      const bad = await inject({ url, headers: { range: `bytes=${ALL.length}-` } });
      expect(bad.statusCode).toBe(416);
      expect(bad.headers['content-range']).toBe(`bytes */${ALL.length}`);
    });
  });

  describe('/api/v1/metas', () => {
    const url = '/catalogs/test-catalog/api/v1/metas';

    it('filters by schema, package and name with upstream semantics', async () => {
      expect((await inject({ url: `${url}?package=foo` })).body).toBe(BLOBS[1]!.blob + BLOBS[2]!.blob + BLOBS[3]!.blob);
      expect((await inject({ url: `${url}?schema=olm.package&name=bar` })).body).toBe(BLOBS[4]!.blob);
      expect((await inject({ url: `${url}?schema=olm.bundle&package=foo&name=foo.v2` })).body).toBe(BLOBS[3]!.blob);
      expect((await inject({ url: `${url}?schema=olm.bundle&schema=olm.package` })).body).toBe(BLOBS[2]!.blob + BLOBS[3]!.blob + BLOBS[5]!.blob);
      const none = await inject({ url: `${url}?package=nope` });
      expect(none.statusCode).toBe(200);
      expect(none.body).toBe('');
      expect(none.headers['content-type']).toBe('application/jsonl');
    });

    it('treats empty parameters as no filter', async () => {
      expect((await inject({ url: `${url}?schema=` })).body).toBe(ALL);
      expect((await inject({ url })).body).toBe(ALL);
    });

    it('rejects unknown parameters before checking the catalog exists', async () => {
      const res = await inject({ url: '/catalogs/missing/api/v1/metas?Schema=x' });
      expect(res.statusCode).toBe(400);
      expect(res.body).toBe('400 Bad Request\n');
      expect((await inject({ url: '/catalogs/missing/api/v1/metas?schema=x' })).statusCode).toBe(404);
    });

    it('compresses large results and supports conditional requests', async () => {
      const res = await inject({ url: `${url}?package=foo`, headers: { 'accept-encoding': 'gzip' } });
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(res.rawPayload).toString()).toBe(BLOBS[1]!.blob + BLOBS[2]!.blob + BLOBS[3]!.blob);
      const small = await inject({ url: `${url}?schema=olm.package&name=bar`, headers: { 'accept-encoding': 'gzip' } });
      expect(small.headers['content-encoding']).toBeUndefined();
      const nm = await inject({ url: `${url}?package=foo`, headers: { 'if-modified-since': lastModified() } });
      expect(nm.statusCode).toBe(304);
      expect(nm.headers['last-modified']).toBe(lastModified());
      expect(nm.headers['content-encoding']).toBeUndefined();
    });

    it('sends small answers whole with a Content-Length and streams large ones', async () => {
      const foo = BLOBS[1]!.blob + BLOBS[2]!.blob + BLOBS[3]!.blob;
      const small = await inject({ url: `${url}?package=foo` });
      expect(small.headers['content-length']).toBe(String(Buffer.byteLength(foo)));
      expect(small.headers['transfer-encoding']).toBeUndefined();
      // From the segments compressed at ingest: foo's blobs are one run.
      const gz = await inject({ url: `${url}?package=foo`, headers: { 'accept-encoding': 'gzip' } });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.rawPayload).toString()).toBe(foo);
      expect(gz.headers['content-length']).toBe(String(gz.rawPayload.length));
      const stored = (await store.get('test-catalog')!.index()).packageGzip('foo')!;
      expect(gz.rawPayload.length).toBe(stored.length + 20);
      // Compressed per request: a schema filter makes it another answer than the member's.
      const perRequest = await inject({ url: `${url}?package=foo&schema=olm.bundle`, headers: { 'accept-encoding': 'gzip' } });
      expect(gunzipSync(perRequest.rawPayload).toString()).toBe(BLOBS[2]!.blob + BLOBS[3]!.blob);
      expect(perRequest.headers['content-length']).toBe(String(perRequest.rawPayload.length));

      const big = await inject({ url: `${url}?package=big` });
      expect(big.body).toBe(BLOBS[5]!.blob);
      expect(big.headers['content-length']).toBeUndefined();
      expect(big.headers['transfer-encoding']).toBe('chunked');
      const bigGzip = await inject({ url: `${url}?package=big`, headers: { 'accept-encoding': 'gzip' } });
      expect(bigGzip.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(bigGzip.rawPayload).toString()).toBe(BLOBS[5]!.blob);
    });

    it('answers HEAD with headers only', async () => {
      const res = await inject({ method: 'HEAD', url: `${url}?package=foo` });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('');
      expect(res.headers['content-type']).toBe('application/jsonl');
    });
  });

  it('records request durations by status code', async () => {
    await inject({ url: '/catalogs/test-catalog/api/v1/all' });
    const metric = await registry.getSingleMetricAsString('catalogd_http_request_duration_seconds');
    expect(metric).toMatch(/catalogd_http_request_duration_seconds_count\{code="200"\} \d+/);
    expect(metric).toMatch(/catalogd_http_request_duration_seconds_count\{code="404"\} \d+/);
  });
});

/** Writes `raw` on a new connection to `port` and resolves with what is read until `done(text)` holds or the server closes. */
function rawExchange(port: number, raw: string, done: (text: string) => boolean = () => false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(raw));
    let text = '';
    socket.on('data', (c: Buffer) => {
      text += c.toString('latin1');
      if (done(text)) socket.destroy();
    });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('catalog server connections', () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  let app: CatalogServer;
  let port: number;

  beforeAll(async () => {
    const content = {
      get: (name: string) => {
        if (name === 'broken') throw new Error('storage exploded');
        return undefined;
      },
    };
    app = buildCatalogServer({ content, logger, registry: new Registry() });
    const origin = await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
    expect(origin).toBe(`http://127.0.0.1:${port}`);
  });
  afterAll(() => app.close());

  it('keeps connections alive and says for how long', async () => {
    const head = await rawExchange(port, 'GET / HTTP/1.1\r\nhost: x\r\n\r\n', (t) => t.includes('\r\n\r\n'));
    expect(head).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
    expect(head).toContain('\r\nConnection: keep-alive\r\nKeep-Alive: timeout=72\r\n');
  });

  it('answers what is not an HTTP request with a JSON error and closes the connection', async () => {
    expect(await rawExchange(port, 'NOT HTTP\r\n\r\n')).toBe(
      'HTTP/1.1 400 Bad Request\r\nContent-Length: 65\r\nContent-Type: application/json\r\n\r\n{"error":"Bad Request","message":"Client Error","statusCode":400}',
    );
    const oversized = await rawExchange(port, `GET / HTTP/1.1\r\nhost: x\r\nx-big: ${'b'.repeat(20_000)}\r\n\r\n`);
    expect(oversized).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(oversized).toContain('{"error":"Request Header Fields Too Large","message":"Exceeded maximum allowed HTTP header size","statusCode":431}');
  });

  it('answers 408 and closes a connection whose request does not arrive whole in time', async () => {
    // A client trickling header lines (slowloris): one every 250 ms for up to 15 s. The server
    // must cut it off at its 5 s request timeout, well before the client runs out of lines.
    const socket = net.createConnection({ host: '127.0.0.1', port });
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /catalogs/c/api/v1/all HTTP/1.1\r\nhost: x\r\n');
    let sent = 0;
    const trickle = setInterval(() => {
      if (socket.writable && sent < 60) socket.write(`x-slow-${sent++}: y\r\n`);
    }, 250);
    await closed;
    clearInterval(trickle);
    expect(sent).toBeLessThan(60);
    expect(Buffer.concat(received).toString()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  }, 20_000);

  it('routes every request, whatever its body, Content-Type or path encoding', async () => {
    const post = await exchange(`http://127.0.0.1:${port}`, {
      method: 'POST',
      url: '/catalogs/c/api/v1/all',
      payload: 'x',
      headers: { 'content-type': ';;' },
    });
    expect([post.statusCode, post.body]).toEqual([405, 'Method Not Allowed\n']);
    const undecodable = await exchange(`http://127.0.0.1:${port}`, { url: '/catalogs/%zz/api/v1/all' });
    expect([undecodable.statusCode, undecodable.body, undecodable.headers.vary]).toEqual([400, '400 Bad Request\n', 'Accept-Encoding']);
  });

  it('answers 500 and logs the error when serving a request fails', async () => {
    const res = await exchange(`http://127.0.0.1:${port}`, { url: '/catalogs/broken/api/v1/all' });
    expect([res.statusCode, res.body, res.headers['content-type']]).toEqual([500, '500 Internal Server Error\n', 'text/plain; charset=utf-8']);
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'catalog request failed',
        component: 'catalog-server',
        err: expect.objectContaining({ message: 'storage exploded' }),
      }),
    );
  });

  it('listens on every address localhost resolves to', async () => {
    // The first address is the one the system resolves; the others come from the resolver's full list.
    const lookup = vi.spyOn(dns.promises, 'lookup').mockResolvedValue([
      { address: '127.0.0.1', family: 4 },
      { address: '127.0.0.2', family: 4 },
    ] as never);
    const local = buildCatalogServer({ content: { get: () => undefined }, logger, registry: new Registry() });
    try {
      const origin = await local.listen({ host: 'localhost', port: 0 });
      const localPort = Number(new URL(origin).port);
      for (const host of ['127.0.0.1', '127.0.0.2']) {
        expect((await exchange(`http://${host}:${localPort}`, { url: '/' })).statusCode, host).toBe(404);
      }
    } finally {
      lookup.mockRestore();
      await local.close();
    }
  });
});

/** A complete chunked body at the start of `buf` (no trailers), or undefined when incomplete. */
function dechunk(buf: Buffer): { body: Buffer; consumed: number } | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) return undefined;
    const size = Number.parseInt(buf.toString('latin1', at, eol), 16);
    if (buf.length < eol + 2 + size + 2) return undefined;
    if (size === 0) return { body: Buffer.concat(parts), consumed: eol + 4 };
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

describe('catalog server answer buffers', () => {
  // Answers of 120-190 KB to readers that do not read yet cannot all be written out at once:
  // their buffers stay on loan while other answers are read. A buffer reused before its answer was
  // written out would send another package's bytes.
  const PACKAGES = 24;
  const blobs = Array.from({ length: PACKAGES }, (_, i) => meta('olm.bundle', `p${i}`, `p${i}.v1`, 120_000 + i * 3_000));
  let remove: () => Promise<void>;
  let store: LocalDirStore;
  let app: CatalogServer;
  /** The server's side of each connection, and how many answers it finished, by the client's port. */
  const serverSide = new Map<number, net.Socket>();
  const finished = new Map<number, number>();

  beforeAll(async () => {
    // Each package's padding is its own letter, so a mixed-up answer cannot pass as right.
    const metas = blobs.map((b, i) => ({ ...b, blob: b.blob.replace(/p{20,}/, (pad) => String.fromCharCode(97 + (i % 26)).repeat(pad.length)) }));
    ({ store, remove } = await storeWith('server-buffers-', 'c', metas));
    blobs.splice(0, PACKAGES, ...metas);
    // Every released buffer is kept, so the next answers are read into the latest released.
    const answerBuffers = new AnswerBuffers([{ size: 256 * 1024 + 20, keep: 1_000 }]);
    app = buildCatalogServer({ content: store, logger: pino({ level: 'silent' }), registry: new Registry(), answerBuffers });
    await app.listen({ host: '127.0.0.1', port: 0 });
    app.server.on('connection', (s: net.Socket) => serverSide.set(s.remotePort ?? 0, s));
    app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const client = req.socket.remotePort ?? 0;
      res.once('finish', () => finished.set(client, (finished.get(client) ?? 0) + 1));
    });
  });
  afterAll(async () => {
    await app.close();
    await remove();
  });

  /**
   * Sends a GET of each of `paths` on one connection once `sendAfter` resolves, reading
   * nothing until `readAfter` resolves. `stalled` resolves once the server has answered as far
   * as the socket takes: its side of the connection waits for a drain, or (answers small
   * enough for the kernel's buffers) every answer is finished. `bodies` are the answers' bodies.
   */
  function pausedClient(
    port: number,
    paths: string[],
    sendAfter: Promise<void>,
    readAfter: Promise<void>,
    headers = '',
  ): { stalled: Promise<void>; bodies: Promise<Buffer[]> } {
    let sentFrom!: (localPort: number) => void;
    const sent = new Promise<number>((resolve) => (sentFrom = resolve));
    const stalled = sent.then((local) =>
      vi.waitFor(
        () => {
          const waiting = serverSide.get(local)?.writableNeedDrain === true || finished.get(local) === paths.length;
          if (!waiting) throw new Error(`the answers to port ${local} neither wait for a drain nor are finished`);
        },
        { timeout: 10_000, interval: 10 },
      ),
    );
    return { stalled, bodies: read() };

    async function read(): Promise<Buffer[]> {
      const socket = net.connect({ host: '127.0.0.1', port });
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.pause();
      await sendAfter;
      socket.write(paths.map((p) => `GET ${p} HTTP/1.1\r\nhost: x\r\n${headers}\r\n`).join(''));
      sentFrom(socket.localPort ?? 0);
      await readAfter;
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.resume();
      const want = paths.length;
      let all = Buffer.alloc(0);
      const bodies: Buffer[] = [];
      await new Promise<void>((resolve, reject) => {
        const parse = (): void => {
          all = Buffer.concat([all, ...chunks.splice(0)]);
          while (bodies.length < want) {
            const end = all.indexOf('\r\n\r\n');
            if (end < 0) return;
            const head = all.toString('latin1', 0, end);
            if (/transfer-encoding: chunked/i.test(head)) {
              const body = dechunk(all.subarray(end + 4));
              if (body === undefined) return;
              bodies.push(body.body);
              all = all.subarray(end + 4 + body.consumed);
              continue;
            }
            const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? Number.NaN);
            if (Number.isNaN(length)) return reject(new Error(`no framing: ${head}`));
            if (all.length < end + 4 + length) return;
            bodies.push(all.subarray(end + 4, end + 4 + length));
            all = all.subarray(end + 4 + length);
          }
          resolve();
        };
        socket.on('data', parse);
        socket.once('error', reject);
        parse();
      });
      socket.destroy();
      return bodies;
    }
  }

  /** A pausedClient per request, each connecting once the one before has stalled; resolves when the last has. */
  async function inTurn(
    port: number,
    requests: { paths: string[]; headers?: string }[],
    readAfter: Promise<void>,
  ): Promise<ReturnType<typeof pausedClient>[]> {
    let previous: Promise<void> = Promise.resolve();
    const clients = requests.map((r) => {
      const client = pausedClient(port, r.paths, previous, readAfter, r.headers);
      previous = client.stalled;
      return client;
    });
    await previous;
    return clients;
  }

  it('lends a buffer again only after its answer was written out, with readers that stall', async () => {
    const port = (app.server.address() as AddressInfo).port;
    let go!: () => void;
    const readAfter = new Promise<void>((resolve) => (go = resolve));
    // Pipelined requests, ~7 MB of answers per connection: more than the kernel buffers for a
    // reader that stalls, so writes stay pending while other connections' answers are read.
    const plans = Array.from({ length: 6 }, (_, c) => Array.from({ length: 2 * PACKAGES }, (_, i) => `p${(i + c * 5) % PACKAGES}`));
    // One connection after the other, each once the one before stalled, so that later answers
    // are read after earlier ones were sent (and stalled), when a buffer released too early
    // would be lent again.
    const clients = await inTurn(
      port,
      plans.map((pkgs) => ({ paths: pkgs.map((p) => `/catalogs/c/api/v1/metas?package=${p}`) })),
      readAfter,
    );
    go();
    const results = await Promise.all(clients.map((c) => c.bodies));
    results.forEach((bodies, i) => {
      expect(bodies.map((b) => b.toString())).toEqual(plans[i]!.map((p) => blobs[Number(p.slice(1))]!.blob));
    });
  });

  it('streams /api/v1/all and large /metas answers through the same buffers, to readers that stall, intact', async () => {
    const port = (app.server.address() as AddressInfo).port;
    const whole = blobs.map((b) => b.blob).join('');
    let go!: () => void;
    const readAfter = new Promise<void>((resolve) => (go = resolve));
    // Whole downloads and ranges, identity and gzip, on connections that start one after the
    // other and read nothing until all have been answered as far as the sockets take.
    // A schema-wide /metas answer is larger than answers sent whole: streamed too (gzip: through
    // a compressor fed from the same buffers).
    const paths = (c: number): string[] => [
      '/catalogs/c/api/v1/all',
      `/catalogs/c/api/v1/metas?package=p${c}`,
      '/catalogs/c/api/v1/metas?schema=olm.bundle',
      '/catalogs/c/api/v1/all',
    ];
    const plans = Array.from({ length: 4 }, (_, c) => ({ paths: paths(c), gzip: c % 2 === 1 }));
    const clients = await inTurn(
      port,
      plans.map((plan) => ({ paths: plan.paths, headers: plan.gzip ? 'accept-encoding: gzip\r\n' : '' })),
      readAfter,
    );
    go();
    const results = await Promise.all(clients.map((c) => c.bodies));
    results.forEach((bodies, i) => {
      const decode = (b: Buffer): string => (plans[i]!.gzip ? gunzipSync(b) : b).toString();
      expect(decode(bodies[0]!)).toBe(whole);
      expect(decode(bodies[1]!)).toBe(blobs[i]!.blob);
      expect(decode(bodies[2]!)).toBe(whole);
      expect(decode(bodies[3]!)).toBe(whole);
    });
  });

  it('answers the next request after a client that went away mid-download, and records it', async () => {
    const registry = new Registry();
    const own = buildCatalogServer({ content: store, logger: pino({ level: 'silent' }), registry });
    await own.listen({ host: '127.0.0.1', port: 0 });
    try {
      const port = (own.server.address() as AddressInfo).port;
      const socket = net.connect({ host: '127.0.0.1', port });
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('GET /catalogs/c/api/v1/all HTTP/1.1\r\nhost: x\r\n\r\n');
      await new Promise((resolve) => socket.once('data', resolve));
      socket.destroy();
      const res = await fetch(`http://127.0.0.1:${port}/catalogs/c/api/v1/all`);
      expect(res.headers.get('vary')).toBe('Accept-Encoding');
      expect(await res.text()).toBe(blobs.map((b) => b.blob).join(''));
      const metric = await registry.getSingleMetricAsString('catalogd_http_request_duration_seconds');
      // The download that completed; the abandoned one never finished (as with a piped stream).
      expect(metric).toMatch(/catalogd_http_request_duration_seconds_count\{code="200"\} 1(\n|$)/);
    } finally {
      await own.close();
    }
  });

  it('cuts a download short when the stored content ends early, and serves the next request', async () => {
    const cut = await storeWith('server-cut-', 'k', blobs);
    const own = buildCatalogServer({ content: cut.store, logger: pino({ level: 'silent' }), registry: new Registry() });
    try {
      const ownOrigin = await own.listen({ host: '127.0.0.1', port: 0 });
      const whole = blobs.map((b) => b.blob).join('');
      // Longer than a few reads, so that the end is met with a read ahead in flight.
      expect(whole.length).toBeGreaterThan(4 * 256 * 1024);
      await truncate(cut.store.get('k')!.path('jsonl'), 700_000);
      const res = await fetch(`${ownOrigin}/catalogs/k/api/v1/all`, { headers: { 'accept-encoding': 'identity' } });
      expect(res.status).toBe(200);
      const outcome = await res.text().then(
        (t) => `read ${t.length} of ${whole.length}`,
        () => 'cut short',
      );
      expect(outcome).toBe('cut short');
      const ok = await exchange(ownOrigin, { url: '/catalogs/k/api/v1/metas?package=p0' });
      expect(ok.statusCode).toBe(200);
    } finally {
      await own.close();
      await cut.remove();
    }
  });

  it('answers 404 when the stored content file is gone before it is opened', async () => {
    const gone = await storeWith('server-gone-', 'g', blobs.slice(0, 2));
    const goneStore = gone.store;
    const own = buildCatalogServer({ content: goneStore, logger: pino({ level: 'silent' }), registry: new Registry() });
    try {
      const ownOrigin = await own.listen({ host: '127.0.0.1', port: 0 });
      await rm(goneStore.get('g')!.path('jsonl'));
      const res = await exchange(ownOrigin, { url: '/catalogs/g/api/v1/all' });
      expect(res.statusCode).toBe(404);
      expect(res.body).toBe('404 Not Found\n');
      expect(res.headers.vary).toBe('Accept-Encoding');
    } finally {
      await own.close();
      await gone.remove();
    }
  });
});
