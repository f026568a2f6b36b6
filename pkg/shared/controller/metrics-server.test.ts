import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import pino from 'pino';
import { Counter, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSelfSignedCertificate } from '../../olmv1/localstack/index.ts';
import type { MetricsAccess } from './metrics-auth.ts';
import { MetricsServer, type ProfileOptions } from './metrics-server.ts';

const log = pino({ level: 'silent' });
const MODERN: ProfileOptions = { minVersion: 'TLSv1.3', ciphers: 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384', ecdhCurve: 'X25519:prime256v1' };

let dir: string;
let pair: { cert: Buffer; key: Buffer };
let server: MetricsServer;
const seen: Array<[string | undefined, string, string]> = [];

/** A hand-written decision table standing in for MetricsAuth (tested on its own). */
async function check(authorization: string | undefined, method: string, path: string): Promise<MetricsAccess> {
  seen.push([authorization, method, path]);
  if (authorization === 'Bearer good') return { status: 200, user: 'u' };
  if (authorization === 'Bearer other') return { status: 403, message: 'Authorization denied for user other' };
  return { status: 401, message: 'Unauthorized' };
}

function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; type: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, headers, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type']) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The negotiated protocol and ALPN protocol, or the handshake error's code. */
function handshake(maxVersion: 'TLSv1.2' | 'TLSv1.3'): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port: server.port, rejectUnauthorized: false, maxVersion, ALPNProtocols: ['h2', 'http/1.1'] }, () => {
      resolve(`${s.getProtocol()} ${s.alpnProtocol}`);
      s.end();
    });
    s.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'metrics-server-'));
  const c = await createSelfSignedCertificate(dir, { name: 'tls', commonName: 'metrics', ipAddresses: ['127.0.0.1'] });
  pair = { cert: await readFile(c.certPath), key: await readFile(c.keyPath) };
  const registry = new Registry();
  new Counter({ name: 'scraped_total', help: 'demo', registers: [registry] }).inc(2);
  server = new MetricsServer({ port: 0, host: '127.0.0.1', registry, log, tls: { ...pair, ...MODERN }, auth: { check } });
  await server.start();
});

afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('MetricsServer', () => {
  it('serves /metrics to a caller the filter lets through, with the registry content type', async () => {
    const res = await get('/metrics?x=1', { Authorization: 'Bearer good' });
    expect(res.status).toBe(200);
    expect(res.body).toContain('scraped_total 2');
    expect(seen.at(-1)).toEqual(['Bearer good', 'GET', '/metrics']);
  });

  it("answers the filter's refusals as Go's http.Error does, and other paths 404 without asking it", async () => {
    expect(await get('/metrics')).toEqual({ status: 401, body: 'Unauthorized\n', type: 'text/plain; charset=utf-8' });
    expect(await get('/metrics', { Authorization: 'Bearer other' })).toMatchObject({ status: 403, body: 'Authorization denied for user other\n' });
    const before = seen.length;
    expect(await get('/healthz', { Authorization: 'Bearer good' })).toMatchObject({ status: 404, body: '404 page not found\n' });
    expect(seen.length).toBe(before);
  });

  it('speaks HTTP/1.1 only and refuses TLS versions below the profile, also after a certificate reload', async () => {
    expect(await handshake('TLSv1.3')).toBe('TLSv1.3 http/1.1');
    expect(await handshake('TLSv1.2')).toBe('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION');
    server.setSecureContext(pair);
    expect(await handshake('TLSv1.2')).toBe('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION');
    expect(await handshake('TLSv1.3')).toBe('TLSv1.3 http/1.1');
  });
});
