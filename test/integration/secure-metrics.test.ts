// Metrics over HTTPS with the API server deciding who may read them, and the TLS profile of every
// TLS server (decision 0068), on a control plane of this file's own (no other suite's objects
// for the components to reconcile).
//
// operator-controller (custom profile: TLS 1.2 and up, two ECDSA suites) and catalogd (modern
// profile: TLS 1.3 only) run in this process with a serving certificate from a throw-away CA and
// their secure metrics servers on. The shipped metrics-reader ClusterRoles (config/rbac/metrics.yaml)
// are applied; ServiceAccount `reader` is bound to both, `nobody` to neither.
//   Authn/authz: reader's token 200 with the metrics; no token 401; a forged token and a token
//   for another audience 401; nobody's token 403 naming the user; other paths 404.
//   TLS: a TLS 1.2 client is refused by catalogd's catalog server and metrics server (modern);
//   operator-controller's accepts TLS 1.2 only with a suite of its custom list.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { servingOptions } from '../../cmd/shared/serving.ts';
import { type KubeContext, connect } from '../../pkg/shared/kube/index.ts';
import { type ControlPlane, ensureServiceAccount, freePorts, requestServiceAccountToken, startControlPlane } from '../envtest/index.ts';
import { startCatalogd, type TestCatalogd } from '../support/catalogd.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { startOperatorController, type TestOperatorController } from '../support/operator-controller.ts';
import { type ServingCertificate, handshake, scrape, servingCertificate } from '../support/secure-metrics.ts';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const repo = (p: string): string => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const NS = `metrics-${randomBytes(3).toString('hex')}`;

let cp: ControlPlane;
let kube: KubeContext;
let dir: string;
let cert: ServingCertificate;
let controller: TestOperatorController | undefined;
let catalogd: TestCatalogd | undefined;
let controllerMetrics: number;
let catalogdMetrics: number;
const tokens: Record<'reader' | 'nobody', string> = { reader: '', nobody: '' };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'secure-metrics-'));
  cert = await servingCertificate(dir);
  cp = await startControlPlane({ binaries: inject('envtestBinaries') });
  kube = await connect({ kind: 'file', path: cp.info.kubeconfigPath });
  await installOlmConfig(cp.info);
  await exec(cp.info.kubectl, ['--kubeconfig', cp.info.kubeconfigPath, 'apply', '--server-side', '-f', repo('config/rbac/metrics.yaml')]);
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } });
  for (const sa of ['reader', 'nobody'] as const) await ensureServiceAccount(cp.info, NS, sa);
  for (const role of ['catalogd-metrics-reader', 'operator-controller-metrics-reader']) {
    await kube.client.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${NS}-${role}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: NS }],
    });
  }
  for (const sa of ['reader', 'nobody'] as const) tokens[sa] = await requestServiceAccountToken(cp.info, NS, sa);

  const tls = { certPath: cert.certPath, keyPath: cert.keyPath };
  [controllerMetrics = 0, catalogdMetrics = 0] = await freePorts(2);
  controller = await startOperatorController(cp.info, {
    ...servingOptions(
      {
        'tls-profile': 'custom',
        'tls-custom-version': 'TLSv1.2',
        'tls-custom-ciphers': 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
      },
      ':8443',
    ),
    tls,
    metrics: { host: '127.0.0.1', port: controllerMetrics },
  });
  catalogd = await startCatalogd(cp.info, {
    ...servingOptions({ 'tls-profile': 'modern' }, ':7443'),
    tls,
    metrics: { host: '127.0.0.1', port: catalogdMetrics },
  });
});

afterAll(async () => {
  await controller?.destroy();
  await catalogd?.destroy();
  kube?.close();
  await cp?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('secure metrics', () => {
  it('serve a token bound to metrics-reader, on both components', async () => {
    for (const port of [controllerMetrics, catalogdMetrics]) {
      const res = await scrape(port, cert.caPem, tokens.reader);
      expect(res.status).toBe(200);
      expect(res.contentType).toContain('text/plain');
      expect(res.body).toMatch(/^process_resident_memory_bytes \d+/m);
    }
  });

  it('answer no token and a token the API server refuses 401, a token without the grant 403', async () => {
    const otherAudience = await requestServiceAccountToken(cp.info, NS, 'reader', { audiences: ['not-the-api-server'] });
    for (const port of [controllerMetrics, catalogdMetrics]) {
      expect(await scrape(port, cert.caPem)).toMatchObject({ status: 401, body: 'Unauthorized\n' });
      expect(await scrape(port, cert.caPem, 'not-a-token')).toMatchObject({ status: 401, body: 'Unauthorized\n' });
      expect(await scrape(port, cert.caPem, otherAudience)).toMatchObject({ status: 401, body: 'Unauthorized\n' });
      expect(await scrape(port, cert.caPem, tokens.nobody)).toMatchObject({
        status: 403,
        body: `Authorization denied for user system:serviceaccount:${NS}:nobody\n`,
      });
      expect(await scrape(port, cert.caPem, tokens.reader, '/healthz')).toMatchObject({ status: 404, body: '404 page not found\n' });
    }
  });

  it('refuse a TLS 1.2 client on every server under the modern profile', async () => {
    const catalogServer = catalogd?.options.catalogServer.port ?? 0;
    for (const port of [catalogServer, catalogdMetrics]) {
      expect(await handshake(port, cert.caPem, { maxVersion: 'TLSv1.2' })).toBe('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION');
      expect(await handshake(port, cert.caPem)).toMatch(/^TLSv1\.3 /);
    }
    // The catalog API itself answers over HTTPS (404: no such catalog).
    expect((await scrape(catalogServer, cert.caPem, undefined, '/catalogs/none/api/v1/all')).status).toBe(404);
  });

  it('refuse a TLS 1.2 cipher outside a custom list and accept one in it', async () => {
    const tls12 = { maxVersion: 'TLSv1.2', minVersion: 'TLSv1.2' } as const;
    expect(await handshake(controllerMetrics, cert.caPem, { ...tls12, ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384' })).toMatch(
      /_ALERT_HANDSHAKE_FAILURE$/,
    );
    expect(await handshake(controllerMetrics, cert.caPem, { ...tls12, ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' })).toBe(
      'TLSv1.2 ECDHE-ECDSA-AES128-GCM-SHA256',
    );
    // TLS 1.3 stays on with all three suites, as in Go, for a list naming none.
    expect(await handshake(controllerMetrics, cert.caPem, { ciphers: 'TLS_AES_256_GCM_SHA384' })).toBe('TLSv1.3 TLS_AES_256_GCM_SHA384');
  });
});
