import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSelfSignedCertificate } from '../../localstack/index.ts';
import { buildCatalogServer } from './server.ts';
import { loadCertificate, watchCertificate } from './tls.ts';

/** Writes `<dir>/tls.crt|.key`, a self-signed certificate for `cn`. */
async function selfSigned(dir: string, cn: string): Promise<void> {
  await createSelfSignedCertificate(dir, { name: 'tls', commonName: cn });
}

function peerCN(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const cn = s.getPeerCertificate().subject.CN;
      s.end();
      resolve(Array.isArray(cn) ? cn.join(',') : (cn ?? ''));
    });
    s.on('error', reject);
  });
}

describe('catalog server TLS', () => {
  let dir: string;
  let app: FastifyInstance;
  let port: number;
  let stop: () => void;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tls-test-'));
    await selfSigned(dir, 'first');
    const paths = { certPath: join(dir, 'tls.crt'), keyPath: join(dir, 'tls.key') };
    app = buildCatalogServer({
      content: { get: () => undefined },
      logger: pino({ level: 'silent' }),
      registry: new Registry(),
      https: loadCertificate(paths),
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
    stop = watchCertificate(app.server as never, paths, pino({ level: 'silent' }), 50);
  });
  afterAll(async () => {
    stop();
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves HTTPS and picks up a rotated certificate without restarting', async () => {
    expect(await peerCN(port)).toBe('first');
    await selfSigned(dir, 'second');
    await expect.poll(() => peerCN(port), { timeout: 5000, interval: 100 }).toBe('second');
  });

  it('rejects a key that does not match the certificate', async () => {
    const other = join(dir, 'other');
    await mkdir(other, { recursive: true });
    await selfSigned(other, 'other');
    expect(() => loadCertificate({ certPath: join(dir, 'tls.crt'), keyPath: join(other, 'tls.key') })).toThrow(/invalid TLS certificate/);
  });
});
