// containers-registries.conf end to end, with two real registries: the catalog image exists
// only on the run's plain-HTTP registry and the bundle image only on a TLS registry whose
// certificate nobody trusts (an `insecure` mirror, by digest only), while every reference
// names an original registry that does not answer. catalogd serves the catalog,
// operator-controller installs the bundle and `olmv1 render bundle` renders it, all through the
// mirrors and under the original names; a blocked registry fails with its name and the file.
// `olmv1 catalog mirror` copies a catalog, its bundle (with its sigstore signature) and a related
// image from a registry of this file's own to the mirror; with that registry stopped, its
// registries.conf lets catalogd serve and operator-controller install from the original names.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCatalogMirror } from '../../cmd/olmv1/catalog-mirror.ts';
import { CLUSTER_CATALOG } from '../../pkg/shared/api/index.ts';
import { buildImage, createImageClient, type RegistriesConfPaths } from '../../pkg/shared/image/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { createCertificateAuthority, freePorts, issueCertificate, startRegistry, type Registry } from '../envtest/index.ts';
import { condition, waitForCatalog } from '../support/catalogs.ts';
import {
  SUITE_LABEL,
  bundleFiles,
  clusterExtension,
  installedAs,
  installerFor,
  packageCatalog,
  pushCatalogFiles,
  startExtensionStack,
  waitForExtension,
  type ExtensionStack,
} from '../support/extensions.ts';

const exec = promisify(execFile);
const run = randomBytes(3).toString('hex');
const mirror = inject('envtestRegistries').anonymous.host;
const pkg = `mirrored-${run}`;
const blockedPkg = `blocked-${run}`;
const catalogName = `mirrored-${run}`;

let work: string;
let tls: Registry;
let caPem: string;
let confFile: string;
let paths: RegistriesConfPaths;
/** `127.0.0.1:<port>` where nothing listens: the registry every reference names. */
let origin: string;
let stack: ExtensionStack;
let bundleRef: string;

/** Pushes the bundle of `spec` to the TLS registry; returns its digest. */
async function pushTlsBundle(spec: { pkg: string; version: string }, repo: string): Promise<string> {
  const files = bundleFiles(spec);
  const image = buildImage({
    files: new Map(files),
    labels: { 'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1', 'operators.operatorframework.io.bundle.package.v1': spec.pkg },
  });
  const client = createImageClient({ caPem });
  try {
    return await client.push(`${tls.host}/${repo}:v${spec.version}`, image);
  } finally {
    client.close();
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'olmv1-mirrors-e2e-'));
  const ca = await createCertificateAuthority(work, 'mirror-ca', 'olmv1 mirror test CA');
  const cert = await issueCertificate(ca, work, { name: 'mirror', commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], usage: 'server' });
  caPem = ca.certPem;
  tls = await startRegistry({ binaries: inject('envtestBinaries'), tls: { certPath: cert.certPath, keyPath: cert.keyPath } });
  const [closed = 0] = await freePorts(1);
  origin = `127.0.0.1:${closed}`;
  confFile = join(work, 'registries.conf');
  await writeFile(
    confFile,
    `# catalogs: only on the plain-HTTP registry
[[registry]]
location = "${origin}/olm-${run}/catalogs"
[[registry.mirror]]
location = "${mirror}/mirror-${run}/catalogs"

# bundles: only on the TLS registry, by digest
[[registry]]
location = "${origin}/olm-${run}/bundles"
mirror-by-digest-only = true
[[registry.mirror]]
location = "${tls.host}/mirror-${run}/bundles"
insecure = true

[[registry]]
location = "${origin}/olm-${run}/forbidden"
blocked = true
`,
  );
  paths = { file: confFile, system: { file: join(work, 'none.conf'), dir: join(work, 'none.d') } };
  const digest = await pushTlsBundle({ pkg, version: '1.0.0' }, `mirror-${run}/bundles/${pkg}`);
  bundleRef = `${origin}/olm-${run}/bundles/${pkg}@${digest}`;
  stack = await startExtensionStack(inject('envtestControlPlane'), mirror, {
    catalogd: { registriesConf: paths },
    controller: { registriesConf: paths },
  });
});

afterAll(async () => {
  await stack?.stop();
  await tls?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/** A ClusterCatalog of `ref`, labelled for this suite so that the stack deletes it when it stops. */
function clusterCatalog(name: string, ref: string): KubeObject {
  const labels = clusterExtension('x', { namespace: 'x', serviceAccount: 'x', packageName: 'x' }).metadata.labels ?? {};
  return {
    apiVersion: CLUSTER_CATALOG.apiVersion,
    kind: CLUSTER_CATALOG.kind,
    metadata: { name, labels: { [SUITE_LABEL]: labels[SUITE_LABEL] ?? '' } },
    spec: { source: { type: 'Image', image: { ref } } },
  };
}

/**
 * The catalog the tests resolve from, pushed to the mirror only and created under its original
 * name, once: the first test that needs it creates it, so any one of them runs alone. Resolves
 * with the catalog image's digest once the ClusterCatalog serves.
 */
let mirrored: Promise<{ digest: string; cc: KubeObject }> | undefined;
function mirroredCatalog(): Promise<{ digest: string; cc: KubeObject }> {
  mirrored ??= (async () => {
    const files = {
      ...packageCatalog(pkg, {
        defaultChannel: 'stable',
        channels: [{ name: 'stable', entries: [{ version: '1.0.0' }] }],
        bundles: [{ version: '1.0.0', image: bundleRef }],
      }),
      ...packageCatalog(blockedPkg, {
        defaultChannel: 'stable',
        channels: [{ name: 'stable', entries: [{ version: '1.0.0' }] }],
        bundles: [{ version: '1.0.0', image: `${origin}/olm-${run}/forbidden/${blockedPkg}@sha256:${'0'.repeat(64)}` }],
      }),
    };
    const digest = await pushCatalogFiles(files, `${mirror}/mirror-${run}/catalogs/operators:v1`);
    await stack.kube.client.create(clusterCatalog(catalogName, `${origin}/olm-${run}/catalogs/operators:v1`));
    const cc = await waitForCatalog(stack.kube.client, catalogName, (c) => condition(c, 'Serving')?.status === 'True', 90_000);
    return { digest, cc };
  })();
  return mirrored;
}

describe('registries.conf mirrors', () => {
  it('catalogd serves a catalog found only on the mirror, under its original name', async () => {
    const { digest, cc } = await mirroredCatalog();
    expect((cc.status as { resolvedSource: unknown }).resolvedSource).toEqual({
      type: 'Image',
      image: { ref: `${origin}/olm-${run}/catalogs/operators@${digest}` },
    });
    const all = await (await fetch(`${stack.catalogd.url}/catalogs/${catalogName}/api/v1/all`)).text();
    expect(all).toContain(bundleRef);
  });

  it('operator-controller installs a bundle found only on an insecure TLS mirror, recording the original name', async () => {
    await mirroredCatalog();
    await installerFor(stack.kube.client, pkg, 'installer', [{ pkg, version: '1.0.0' }]);
    const selector = { matchLabels: { 'olm.operatorframework.io/metadata.name': catalogName } };
    await stack.kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, selector }));
    const ext = await waitForExtension(stack.kube.client, pkg, 'installed', installedAs(`${pkg}.v1.0.0`), 90_000);
    expect(ext.cond('Installed')?.message).toContain(bundleRef);
  });

  it('olmv1 render bundle pulls through $CONTAINERS_REGISTRIES_CONF', async () => {
    const env = { ...process.env, CONTAINERS_REGISTRIES_CONF: confFile, HOME: work };
    const { stdout } = await exec(process.execPath, ['cmd/olmv1/main.ts', 'render', 'bundle', bundleRef, '--install-namespace', 'demo'], { env });
    expect(stdout).toContain(`name: ${pkg}`);
  });

  it('without insecure, the untrusted mirror fails and the original is tried last', async () => {
    const secure = join(work, 'secure.conf');
    await writeFile(
      secure,
      `[[registry]]\nlocation = "${origin}/olm-${run}/bundles"\n[[registry.mirror]]\nlocation = "${tls.host}/mirror-${run}/bundles"\n`,
    );
    const client = createImageClient({ registriesConf: { ...paths, file: secure } });
    try {
      await expect(client.readImageFiles(bundleRef)).rejects.toThrow(
        new RegExp(
          `^error copying image: \\(Mirrors also failed: \\[${tls.host}/mirror-${run}/bundles/${pkg}@sha256:[0-9a-f]+: .*certificate[^]*\\]\\): ${origin}/olm-${run}/bundles/${pkg}@sha256:[0-9a-f]+: .*ECONNREFUSED`,
        ),
      );
    } finally {
      client.close();
    }
  });

  it('a blocked registry fails the catalog and the bundle pull, naming the registry and the file', async () => {
    const blocked = `blocked-${run}`;
    await stack.kube.client.create(clusterCatalog(blocked, `${origin}/olm-${run}/forbidden/catalog:v1`));
    const message = `registry ${origin}/olm-${run}/forbidden is blocked in ${confFile}`;
    const cc = await waitForCatalog(stack.kube.client, blocked, (c) => condition(c, 'Progressing')?.message?.includes(message) === true, 60_000);
    expect(condition(cc, 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'Retrying',
      message: `source catalog content: error getting manifest: ${message}`,
    });

    await mirroredCatalog();
    await installerFor(stack.kube.client, blockedPkg, 'installer', [{ pkg: blockedPkg, version: '1.0.0' }]);
    const selector = { matchLabels: { 'olm.operatorframework.io/metadata.name': catalogName } };
    await stack.kube.client.create(
      clusterExtension(blockedPkg, { namespace: blockedPkg, serviceAccount: 'installer', packageName: blockedPkg, selector }),
    );
    const ext = await waitForExtension(
      stack.kube.client,
      blockedPkg,
      'blocked',
      (e) => e.cond('Progressing')?.message.includes(message) === true,
      60_000,
    );
    expect(ext.cond('Installed')?.status).toBe('False');
  });
});

describe('olmv1 catalog mirror', () => {
  it('copies a catalog, its bundle with its signature and a related image; with the source stopped, the mirror serves them', async () => {
    const source = await startRegistry({ binaries: inject('envtestBinaries') });
    const mirrored = `cm-${run}`;
    const client = createImageClient({ insecureRegistries: ['127.0.0.1'] });
    let catalogRef: string;
    let bundleDigest: string;
    try {
      const spec = { pkg: mirrored, version: '1.0.0' };
      const bundle = buildImage({
        files: new Map(bundleFiles(spec)),
        labels: { 'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1', 'operators.operatorframework.io.bundle.package.v1': mirrored },
      });
      bundleDigest = await client.push(`${source.host}/acme/${mirrored}-bundle:v1.0.0`, bundle);
      // A stand-in for cosign's signature manifest, under its tag beside the bundle.
      const signature = buildImage({ files: new Map([['signature', Buffer.from(`signed ${bundleDigest}`)]]) });
      await client.push(`${source.host}/acme/${mirrored}-bundle:${bundleDigest.replace(':', '-')}.sig`, signature);
      // Over 8 MiB of random bytes: its layer goes up in two chunks.
      const operand = buildImage({ files: new Map([['operand', Buffer.from(randomBytes(9 * 1024 * 1024))]]) });
      await client.push(`${source.host}/acme/operand:v1`, operand);
      const files = packageCatalog(mirrored, {
        defaultChannel: 'stable',
        channels: [{ name: 'stable', entries: [{ version: '1.0.0' }] }],
        bundles: [{ version: '1.0.0', image: `${source.host}/acme/${mirrored}-bundle@${bundleDigest}` }],
      });
      const [name, text = ''] = Object.entries(files)[0] ?? [];
      const docs = text.split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      const withRelated = docs.map((d) =>
        d['schema'] === 'olm.bundle' ? { ...d, relatedImages: [{ name: 'operand', image: `${source.host}/acme/operand:v1` }] } : d,
      );
      const catalogDigest = await pushCatalogFiles(
        { [name ?? 'c/catalog.json']: withRelated.map((d) => JSON.stringify(d)).join('\n') },
        `${source.host}/acme/catalog:v1`,
      );
      catalogRef = `${source.host}/acme/catalog@${catalogDigest}`;

      const out = join(work, 'mirror-out');
      let stdout = '';
      let stderr = '';
      const code = await runCatalogMirror(
        [`${source.host}/acme/catalog:v1`, `${mirror}/mirror-${run}`, '--to-dir', out, '--name', `mirrored-${run}`],
        { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } },
        { insecureRegistries: ['127.0.0.1'], defaultAuthFile: undefined },
      );
      expect({ code, stderr }).toMatchObject({ code: 0 });
      expect(stdout).toContain('mirrored 3 image(s) (1 with signatures');
      expect(await readFile(join(out, 'mapping.txt'), 'utf8')).toContain(
        `${source.host}/acme/${mirrored}-bundle@${bundleDigest}=${mirror}/mirror-${run}/acme/${mirrored}-bundle@${bundleDigest}`,
      );
      expect(await readFile(join(out, 'imagedigestmirrorset.yaml'), 'utf8')).toContain(`- source: ${source.host}/acme/operand`);
      // The pulls of the original names go to the mirror from now on.
      await writeFile(confFile, `${await readFile(confFile, 'utf8')}\n${await readFile(join(out, 'registries.conf'), 'utf8')}`);
    } finally {
      await source.stop();
    }
    const signed = await client.readImageFiles(`${mirror}/mirror-${run}/acme/${mirrored}-bundle:${bundleDigest.replace(':', '-')}.sig`);
    expect(signed.files.get('signature')?.toString()).toBe(`signed ${bundleDigest}`);
    client.close();

    const catalog = `cm-${run}`;
    await stack.kube.client.create(clusterCatalog(catalog, catalogRef));
    await waitForCatalog(stack.kube.client, catalog, (c) => condition(c, 'Serving')?.status === 'True', 90_000);
    await installerFor(stack.kube.client, mirrored, 'installer', [{ pkg: mirrored, version: '1.0.0' }]);
    const selector = { matchLabels: { 'olm.operatorframework.io/metadata.name': catalog } };
    await stack.kube.client.create(clusterExtension(mirrored, { namespace: mirrored, serviceAccount: 'installer', packageName: mirrored, selector }));
    await waitForExtension(stack.kube.client, mirrored, 'installed from the mirror', installedAs(`${mirrored}.v1.0.0`), 90_000);
  });
});
