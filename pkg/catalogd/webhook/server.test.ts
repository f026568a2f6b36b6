import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSelfSignedCertificate } from '../../olmv1/localstack/index.ts';
import { CATALOG_NAME_LABEL } from '../../shared/api/index.ts';
import { CLUSTER_CATALOG_MUTATE_PATH } from './label-defaulter.ts';
import { buildWebhookServer } from './server.ts';

let dir: string;
let server: ReturnType<typeof buildWebhookServer>;
let port: number;
/** A second server with the shipped body bound (7 MiB). */
let shipped: ReturnType<typeof buildWebhookServer>;
let shippedPort: number;
let ca: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'webhook-server-'));
  await createSelfSignedCertificate(dir, { name: 'tls', commonName: 'webhook', ipAddresses: ['127.0.0.1'] });
  ca = await readFile(join(dir, 'tls.crt'), 'utf8');
  const tls = { cert: ca, key: await readFile(join(dir, 'tls.key'), 'utf8') };
  server = buildWebhookServer({ tls, log: pino({ level: 'silent' }), maxBodyBytes: 64 << 10 });
  port = await server.listen({ host: '127.0.0.1', port: 0 });
  shipped = buildWebhookServer({ tls, log: pino({ level: 'silent' }) });
  shippedPort = await shipped.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await server?.close();
  await shipped?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: string;
  contentType: string;
}

function post(body: string | Buffer, o: { path?: string; method?: string; contentType?: string; port?: number } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: o.port ?? port,
        path: o.path ?? CLUSTER_CATALOG_MUTATE_PATH,
        method: o.method ?? 'POST',
        ca,
        headers: { 'Content-Type': o.contentType ?? 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), contentType: res.headers['content-type'] ?? '' }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const review = (object: unknown) =>
  JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'abc', operation: 'CREATE', object } });

describe('buildWebhookServer', () => {
  it('answers an AdmissionReview over HTTPS with the label patch', async () => {
    const a = await post(review({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', metadata: { name: 'c' } }));
    expect(a.status).toBe(200);
    expect(a.contentType).toBe('application/json');
    const { response } = JSON.parse(a.body) as { response: { uid: string; allowed: boolean; patch: string } };
    expect(response).toMatchObject({ uid: 'abc', allowed: true, patchType: 'JSONPatch' });
    expect(JSON.parse(Buffer.from(response.patch, 'base64').toString())).toEqual([
      { op: 'add', path: '/metadata/labels', value: { [CATALOG_NAME_LABEL]: 'c' } },
    ]);
  });

  it('refuses other paths, methods, content types, non-JSON, non-reviews and oversized bodies', async () => {
    expect((await post('{}', { path: '/mutate' })).status).toBe(404);
    expect((await post('{}', { path: `${CLUSTER_CATALOG_MUTATE_PATH}/x` })).status).toBe(404);
    expect((await post('', { method: 'GET' })).status).toBe(405);
    expect((await post('{}', { contentType: 'text/plain' })).status).toBe(415);
    expect((await post('{"apiVersion":')).status).toBe(400);
    expect((await post('{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}')).status).toBe(400);
    const huge = review({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name: 'c', annotations: { a: 'x'.repeat(70 << 10) } },
    });
    expect((await post(huge)).status).toBe(413);
  });

  it('refuses 7 MiB of [ or of [], with 400 while the client is still sending, and answers the next review at once', async () => {
    // Before the bounds, JSON.parse of the first held catalogd's event loop for 9.4 s (issue 60).
    const hostile = [Buffer.alloc(7 << 20, '['), Buffer.from(`[${'[],'.repeat((7 << 20) / 3 - 1)}1]`)];
    const expected = [/^the request body nests deeper than 64 levels\n$/, /^the request body holds more than 100000 arrays and objects\n$/];
    for (const [i, body] of hostile.entries()) {
      const started = performance.now();
      const a = await post(body, { port: shippedPort });
      expect(a.status).toBe(400);
      expect(a.body).toMatch(expected[i] as RegExp);
      expect(performance.now() - started).toBeLessThan(2_000);
    }
    const started = performance.now();
    const a = await post(review({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', metadata: { name: 'e' } }), {
      port: shippedPort,
    });
    expect(a.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('keeps answering after hostile requests', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => post(i % 2 === 0 ? '\u0000\xff{' : '[[[[[[[[[[')));
    const a = await post(
      review({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', metadata: { name: 'd', labels: { [CATALOG_NAME_LABEL]: 'd' } } }),
    );
    expect(a.status).toBe(200);
    expect(JSON.parse(a.body)).toEqual({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'abc', allowed: true } });
  });
});
