// Outgoing traffic of catalogd and operator-controller (issue #26): a forward proxy chosen from
// HTTPS_PROXY/HTTP_PROXY/NO_PROXY as Go chooses it, and certificates from --pull-cas-dir and
// --catalogd-cas-dir. Real kube-apiserver, real registries (one serving HTTPS with a
// certificate of a test CA, as catalogd does here), the real compositions of both components in
// this process, and a forward proxy (test/support/forward-proxy.ts) that alone knows the names
// `registry.proxy.test` and `catalogd.proxy.test`: what reached a server by those names went
// through the proxy.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { componentImages } from '../../cmd/shared/component.ts';
import { CLUSTER_CATALOG } from '../../pkg/shared/api/index.ts';
import { BUNDLE_IMAGE_LIMITS, buildCatalogImage, createImageClient } from '../../pkg/shared/image/index.ts';
import { connect } from '../../pkg/shared/kube/index.ts';
import type { ProxyEnvironment } from '../../pkg/shared/nodehttp/index.ts';
import {
  type CertificateAuthority,
  type Registry,
  createCertificateAuthority,
  freePorts,
  issueCertificate,
  startRegistry,
} from '../envtest/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import { condition, waitForCatalog, writeCatalogFiles } from '../support/catalogs.ts';
import {
  type ExtensionStack,
  bundleFiles,
  clusterExtension,
  installedAs,
  installerFor,
  packageCatalog,
  pushBundle,
  startExtensionStack,
  waitForExtension,
} from '../support/extensions.ts';
import { type ForwardProxy, startForwardProxy } from '../support/forward-proxy.ts';

const RUN = randomBytes(3).toString('hex');
const log = pino({ level: 'silent' });
let work: string;
let ca: CertificateAuthority;
let tlsRegistry: Registry;
let proxy: ForwardProxy;
let stack: ExtensionStack | undefined;
const catalogs: string[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'outgoing-traffic-'));
  ca = await createCertificateAuthority(work, 'ca', 'outgoing-traffic-ca');
  const cert = await issueCertificate(ca, work, {
    name: 'registry',
    commonName: 'registry',
    dnsNames: ['registry.proxy.test', 'registry.direct.test'],
    ipAddresses: ['127.0.0.1'],
    usage: 'server',
  });
  tlsRegistry = await startRegistry({ binaries: inject('envtestBinaries'), tls: { certPath: cert.certPath, keyPath: cert.keyPath } });
  proxy = await startForwardProxy({ hosts: { '*.proxy.test': '127.0.0.1' } });
});

afterAll(async () => {
  await stack?.stop();
  if (stack !== undefined) {
    for (const name of catalogs) {
      const ref = { apiVersion: CLUSTER_CATALOG.apiVersion, kind: CLUSTER_CATALOG.kind, name };
      await stack.kube.client.patch(ref, { metadata: { finalizers: null } }, 'merge').catch(() => undefined);
      await stack.kube.client.delete(ref).catch(() => undefined);
    }
  }
  await proxy?.close();
  await tlsRegistry?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/** Pushes a catalog image to the HTTPS registry (trusting the test CA); returns the digest. */
async function pushTlsCatalog(files: Record<string, string>, repository: string): Promise<string> {
  const client = createImageClient({ caPem: ca.certPem });
  try {
    const dir = await writeCatalogFiles(await mkdtemp(join(work, 'fbc-')), files);
    return await client.push(`${tlsRegistry.host}/${repository}`, await buildCatalogImage(dir));
  } finally {
    client.close();
  }
}

const tlsPort = (): string => tlsRegistry.host.split(':')[1] ?? '';

describe('--pull-cas-dir', () => {
  it('refuses a directory without certificates at start-up, trusts the CAs it holds, and picks up a CA added later without a restart', async () => {
    const dir = await mkdtemp(join(work, 'certs-'));
    const kube = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
    const images = (pullCasDir: string | undefined) =>
      componentImages(
        { pullSecret: undefined, pullCaFile: undefined, pullCasDir, insecureRegistries: [], imageLimits: BUNDLE_IMAGE_LIMITS },
        kube.client,
        log,
        'test',
      ).images;
    expect(() => images(dir)).toThrow(`no certificates found in ${JSON.stringify(dir)}`);

    const digest = await pushTlsCatalog({ 'a/catalog.json': '{"schema":"olm.package","name":"a"}' }, `cas-dir/${RUN}:v1`);
    const ref = `${tlsRegistry.host}/cas-dir/${RUN}:v1`;
    // A CA that did not sign the registry's certificate: the directory is valid, the registry refused.
    await writeFile(join(dir, 'other.crt'), await readFile(new URL('../fixtures/tls/ca.crt', import.meta.url), 'utf8'));
    const withDir = images(dir);
    const without = images(undefined);
    try {
      await expect(without.resolveDigest(ref)).rejects.toThrow(/certificate/);
      await expect(withDir.resolveDigest(ref)).rejects.toThrow(/certificate/);
      await writeFile(join(dir, 'registry-ca.crt'), ca.certPem);
      // The directory is read again on use, at most once a second (cert-dir.ts): the pull
      // succeeds once it has picked up the change.
      let resolved: string | undefined;
      await waitUntil(
        'a pull through the updated CA directory',
        async () => (resolved = (await withDir.resolveDigest(ref).catch(() => undefined))?.digest) !== undefined,
        10_000,
      );
      expect(resolved).toBe(digest);
      await expect(without.resolveDigest(ref)).rejects.toThrow(/certificate/);
    } finally {
      withDir.close();
      without.close();
      kube.close();
    }
  });
});

describe('HTTPS_PROXY, HTTP_PROXY and NO_PROXY', () => {
  it('send the catalog pull, the bundle pull and the catalog content through the proxy, and NO_PROXY hosts directly', async () => {
    const cp = inject('envtestControlPlane');
    const anon = inject('envtestRegistries').anonymous.host;
    const anonPort = anon.split(':')[1] ?? '';
    const certs = await mkdtemp(join(work, 'pull-certs-'));
    await writeFile(join(certs, 'ca.crt'), ca.certPem);
    const env: ProxyEnvironment = { httpsProxy: proxy.url, httpProxy: proxy.url, noProxy: '.direct.test' };
    const [catalogdPort = 0] = await freePorts(1);
    // catalogd serves its catalogs over HTTPS; operator-controller trusts the CA of --catalogd-cas-dir.
    const serving = await issueCertificate(ca, work, {
      name: 'catalogd',
      commonName: 'catalogd',
      dnsNames: ['catalogd.proxy.test'],
      usage: 'server',
    });
    const catalogdCas = await mkdtemp(join(work, 'catalogd-cas-'));
    await writeFile(join(catalogdCas, 'service-ca.crt'), ca.certPem);
    stack = await startExtensionStack(cp, anon, {
      catalogd: {
        proxy: env,
        pullCasDir: certs,
        tls: { certPath: serving.certPath, keyPath: serving.keyPath },
        catalogServer: { host: '127.0.0.1', port: catalogdPort },
        externalAddress: `catalogd.proxy.test:${catalogdPort}`,
      },
      controller: { proxy: env, catalogdCasDir: catalogdCas, insecureRegistries: ['127.0.0.1', `registry.proxy.test:${anonPort}`] },
    });
    const client = stack.kube.client;

    // A bundle on the plain-HTTP registry, named so that only the proxy can reach it.
    const pkg = `proxied-${RUN}`;
    const spec = { pkg, version: '1.0.0', configMaps: ['settings'] };
    const pushed = await pushBundle(bundleFiles(spec), `${anon}/proxied/${pkg}:v1.0.0`);
    const bundleRef = pushed.replace(anon, `registry.proxy.test:${anonPort}`);
    const catalog = `proxied-${RUN}`;
    const files = packageCatalog(pkg, {
      defaultChannel: 'stable',
      channels: [{ name: 'stable', entries: [{ version: '1.0.0' }] }],
      bundles: [{ version: '1.0.0', image: bundleRef }],
    });
    const digest = await pushTlsCatalog(files, `catalogs/${catalog}:latest`);
    catalogs.push(catalog);
    await client.create({
      apiVersion: CLUSTER_CATALOG.apiVersion,
      kind: CLUSTER_CATALOG.kind,
      metadata: { name: catalog },
      spec: { source: { type: 'Image', image: { ref: `registry.proxy.test:${tlsPort()}/catalogs/${catalog}:latest` } } },
    });
    const served = await waitForCatalog(client, catalog, (cc) => condition(cc, 'Serving')?.status === 'True', 90_000);
    expect(JSON.stringify(served.status)).toContain(digest);
    // The catalog image came through a CONNECT tunnel (HTTPS, checked against --pull-cas-dir).
    expect(
      proxy
        .requestsFor('registry.proxy.test')
        .filter((r) => r.method === 'CONNECT')
        .map((r) => r.target),
    ).toContain(`registry.proxy.test:${tlsPort()}`);

    const ns = `proxied-${RUN}`;
    await installerFor(client, ns, 'installer', [spec]);
    const name = `proxied-${RUN}`;
    await client.create(
      clusterExtension(name, {
        namespace: ns,
        serviceAccount: 'installer',
        packageName: pkg,
        selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': catalog } },
      }),
    );
    await waitForExtension(client, name, 'installed through the proxy', installedAs(`${pkg}.v1.0.0`), 90_000);
    // The bundle in absolute-form HTTP requests, and the catalog content from catalogd (HTTPS,
    // checked against --catalogd-cas-dir) through a tunnel, both through the proxy.
    const targets = proxy.requests.map((r) => `${r.method} ${r.target}`);
    expect(targets.some((t) => t.startsWith(`GET http://registry.proxy.test:${anonPort}/v2/proxied/${pkg}/`))).toBe(true);
    expect(targets).toContain(`CONNECT catalogd.proxy.test:${catalogdPort}`);
    expect(proxy.requests.every((r) => r.status === 200)).toBe(true);

    // NO_PROXY=.direct.test: connected directly, so the name (which only the proxy knows) does not resolve.
    const direct = `direct-${RUN}`;
    catalogs.push(direct);
    await client.create({
      apiVersion: CLUSTER_CATALOG.apiVersion,
      kind: CLUSTER_CATALOG.kind,
      metadata: { name: direct },
      spec: { source: { type: 'Image', image: { ref: `registry.direct.test:${tlsPort()}/catalogs/${catalog}:latest` } } },
    });
    const refused = await waitForCatalog(client, direct, (cc) => condition(cc, 'Progressing')?.reason === 'Retrying', 60_000);
    expect(condition(refused, 'Progressing')?.message).toContain(`Get "https://registry.direct.test:${tlsPort()}/v2/`);
    expect(condition(refused, 'Progressing')?.message).toContain('ENOTFOUND registry.direct.test');
    expect(proxy.requestsFor('.direct.test')).toEqual([]);
    // Loopback is never proxied: the Kubernetes API and 127.0.0.1 registries are reached directly.
    expect(proxy.requestsFor('127.0.0.1')).toEqual([]);
  }, 240_000);
});
