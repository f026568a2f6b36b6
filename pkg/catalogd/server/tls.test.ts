import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSelfSignedCertificate } from '../../olmv1/localstack/index.ts';
import { type CatalogServer, buildCatalogServer } from './server.ts';
import { keepingOptions, loadCertificate, watchCertificate } from '../../shared/controller/index.ts';

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

/** Resolves the negotiated protocol, or the handshake error's code. */
function handshake(port: number, maxVersion: 'TLSv1.2' | 'TLSv1.3'): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, maxVersion }, () => {
      resolve(s.getProtocol() ?? '');
      s.end();
    });
    s.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

// The modern TLS profile (pkg/shared/tlsprofile): TLS 1.3 only.
const MODERN = { minVersion: 'TLSv1.3', ciphers: 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384', ecdhCurve: 'X25519:prime256v1' } as const;

describe('catalog server TLS', () => {
  let dir: string;
  let app: CatalogServer;
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
      https: { ...loadCertificate(paths), ...MODERN },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
    stop = watchCertificate(keepingOptions(app, MODERN), paths, pino({ level: 'silent' }), 50);
  });
  afterAll(async () => {
    stop();
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves HTTPS with the TLS profile and picks up a rotated certificate without restarting, profile kept', async () => {
    expect(await peerCN(port)).toBe('first');
    expect(await handshake(port, 'TLSv1.2')).toBe('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION');
    await selfSigned(dir, 'second');
    await expect.poll(() => peerCN(port), { timeout: 5000, interval: 100 }).toBe('second');
    expect(await handshake(port, 'TLSv1.2')).toBe('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION');
    expect(await handshake(port, 'TLSv1.3')).toBe('TLSv1.3');
  });

  it('rejects a key that does not match the certificate', async () => {
    const other = join(dir, 'other');
    await mkdir(other, { recursive: true });
    await selfSigned(other, 'other');
    expect(() => loadCertificate({ certPath: join(dir, 'tls.crt'), keyPath: join(other, 'tls.key') })).toThrow(/invalid TLS certificate/);
  });
});
