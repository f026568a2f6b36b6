// A fresh cluster gets the product from the release artifacts alone (issue 72, first 'Done
// when'). `npm run release` (scripts/release.ts) makes two releases of HEAD into a registry on
// the node's bridge address (plain HTTP, which the node's containerd is told): one signed with
// a cosign key pair made here, one unsigned in another repository (the same image digest,
// without a signature attachment there). On a control plane with a real node and cert-manager,
// and nothing of OLM, only the release directory, kubectl, cosign and KUBECONFIG are used:
// `sha256sum --check SHA256SUMS && ./install.sh` with OLMV1_VERIFY_KEY refuses the unsigned
// release and the signed one under a key that did not sign it, applying nothing; the signed
// release installs with OLMV1_INSECURE_REGISTRIES naming the release registry (written into the
// registries.conf ConfigMap both components mount), its Pods running the release image by
// digest, pulled from the release registry. install.sh adds the example catalog
// (OLMV1_CATALOG_IMAGE) and config/samples' ClusterExtension installs Installed and Healthy, its
// operator Pod Running on the node. Last, a disconnected install (issue 72's 'Done when'): the
// example pushed to a registry A, `olmv1 catalog mirror` to a registry B, the written
// registries.conf added to that ConfigMap and a containerd mirror (hosts.toml) for A on the
// node, A stopped; with the earlier case's operator image removed from the node's containerd and
// both components restarted (empty caches), so that nothing but B can serve the example, the
// written ClusterCatalog serves and the example installs Healthy, its Pod running an image named
// under A that the node pulled again. One node start; 150 to 210 s with the project image cached
// before the mirror case.
//
// Where the signature is verified: by install.sh (cosign), before anything is applied. The
// node's containerd (1.6) has no signature policy for CRI pulls; it pulls what the manifest pins
// by digest, which is the verified image. Needs root and the node's prerequisites, like
// on-node.test.ts; the project image comes from the cache the other node tests fill.
import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { dump, loadAll } from 'js-yaml';
import { EXAMPLE_REGISTRY, pushExample } from '../../cmd/olmv1/up-example.ts';
import { buildCatalogImage, createImageClient } from '../../pkg/shared/image/index.ts';
import { buildProjectImage, defaultImageCacheDir } from '../../pkg/olmv1/images/index.ts';
import { deployCertManager, DEPLOYMENTS, startNodeRegistry, SYSTEM_NAMESPACE, type Kubectl } from '../../pkg/olmv1/in-cluster/index.ts';
import { mirrorRegistry, runCommand, startControlPlane, type ControlPlane, type Registry } from '../../pkg/olmv1/localstack/index.ts';
import { envtestCertManager, envtestCosign, envtestNodeBinaries } from '../envtest/deferred-tools.ts';
import { makeSigstoreKey, type SigstoreKey } from '../support/image-signing.ts';
import { condition, kube, nodeEnv, nodeUnavailable, REPO, timed as timedBy, type Obj } from '../support/on-node.ts';

const exec = promisify(execFile);
const missing = nodeUnavailable();
if (missing !== undefined) console.warn(`release-install-on-node.test.ts skipped: ${missing}`);

const VERSION = 'v0.0.0-e2e';
// One commit for the image built here and both releases: others may commit while this runs.
const revision = execFileSync('git', ['-C', REPO, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
const log = (line: string): void => console.error(`release-install-on-node: ${line}`);
const timed = (name: string, started: number): void => timedBy(log, name, started);
// The node's binaries, cert-manager's and cosign (deferred-tools.ts), at the top level, where
// no hook timeout cuts a build still in progress.
const tools =
  missing === undefined
    ? { node: await envtestNodeBinaries(log), certManager: await envtestCertManager(log), cosign: await envtestCosign(log) }
    : undefined;

interface MadeRelease {
  imageRef: string;
  dir: string;
  signed: boolean;
}

let cp: ControlPlane | undefined;
let registry: Registry | undefined;
/** The mirror case's registries: A, the source (stopped in that case), and B, the mirror. */
let sourceRegistry: Registry | undefined;
let mirrorRegistryB: Registry | undefined;
let work = '';
let kubectl: Kubectl;
let k: ReturnType<typeof kube>;
let key: SigstoreKey;
let otherKey: SigstoreKey;
let signed: MadeRelease;
let unsigned: MadeRelease;
/** Only kubectl and cosign, first on PATH for install.sh. */
let binDir = '';

/** `npm run release` of `revision` into `repository`, signed with `signWith` (by `cosign`) when given. */
async function release(repository: string, out: string, cosign: string, signWith?: SigstoreKey): Promise<MadeRelease> {
  const { stdout } = await exec(
    join(REPO, 'node_modules/.bin/node'),
    [
      join(REPO, 'scripts/release.ts'),
      '--version',
      VERSION,
      '--registry',
      repository,
      '--plain-http',
      '--revision',
      revision,
      '--out',
      out,
      ...(signWith === undefined ? [] : ['--key', signWith.privateKeyPath]),
    ],
    {
      env: { ...nodeEnv, COSIGN: cosign, ...(signWith === undefined ? {} : { COSIGN_PASSWORD: signWith.passphrase }) },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return JSON.parse(stdout) as MadeRelease;
}

/** `sha256sum --check SHA256SUMS && ./install.sh` in `dir`, with kubectl, cosign, KUBECONFIG and `env` alone. */
async function install(dir: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = exec('bash', ['-c', 'sha256sum --check SHA256SUMS && ./install.sh'], {
    cwd: dir,
    env: { PATH: `${binDir}:/usr/bin:/bin`, HOME: work, KUBECONFIG: cp?.info.kubeconfigPath ?? '', ...env },
    maxBuffer: 16 * 1024 * 1024,
  });
  return run.then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
}

/**
 * Pushes the example catalog, its references under `registry`, with each bundle's related images
 * (the bundle and its operator image by digest, `operatorImages` by version) to
 * `<registry>/olmv1/example-catalog:related`; returns that reference.
 */
async function pushCatalogWithRelatedImages(registry: string, operatorImages: Record<string, string>, dir: string): Promise<string> {
  const committed = await readFile(join(REPO, 'examples/example-operator/catalog/example-operator/catalog.yaml'), 'utf8');
  const docs = loadAll(committed.replaceAll(`image: ${EXAMPLE_REGISTRY}/`, `image: ${registry}/`)) as Array<Record<string, unknown>>;
  for (const doc of docs) {
    if (doc['schema'] !== 'olm.bundle') continue;
    const version = String(doc['name']).replace(/^example-operator\.v/, '');
    const operator = operatorImages[version];
    if (operator === undefined) throw new Error(`no operator image for ${String(doc['name'])}`);
    doc['relatedImages'] = [
      { name: '', image: doc['image'] },
      { name: 'operator', image: operator },
    ];
  }
  await mkdir(join(dir, 'example-operator'), { recursive: true });
  await writeFile(join(dir, 'example-operator', 'catalog.yaml'), docs.map((d) => dump(d, { lineWidth: -1 })).join('---\n'));
  const ref = `${registry}/olmv1/example-catalog:related`;
  const client = createImageClient({ insecureRegistries: [registry] });
  try {
    await client.push(ref, await buildCatalogImage(dir));
  } finally {
    client.close();
  }
  return ref;
}

/** What OLM objects the cluster holds: the system namespace and the two CRDs. */
async function olmObjects(): Promise<string[]> {
  const out = await kubectl(['get', 'namespaces,crds', '-o', 'name']);
  return out.split('\n').filter((l) => l === `namespace/${SYSTEM_NAMESPACE}` || l.endsWith('.olm.operatorframework.io'));
}

beforeAll(async () => {
  if (tools === undefined) return;
  const started = Date.now();
  work = await mkdtemp(join(tmpdir(), 'olmv1-release-e2e-'));
  // Before the node takes the machine's lock: the image (cached per tree) and the key pairs.
  const image = await buildProjectImage({
    repoRoot: REPO,
    revision,
    cacheDir: defaultImageCacheDir(nodeEnv),
    env: nodeEnv,
    log,
    extraCaFile: process.env['NODE_EXTRA_CA_CERTS'] || undefined,
  });
  log(`project image ${image.tag} ${image.cached ? 'found in the cache' : 'built'} in ${image.seconds} s`);
  const cosign = tools.cosign;
  key = await makeSigstoreKey(cosign, work, 'release');
  otherKey = await makeSigstoreKey(cosign, work, 'other');
  binDir = join(work, 'bin');
  await mkdir(binDir);
  await symlink(inject('envtestBinaries').kubectl, join(binDir, 'kubectl'));
  await symlink(cosign, join(binDir, 'cosign'));

  cp = await startControlPlane({ binaries: { ...inject('envtestBinaries'), node: tools.node }, node: { log } });
  const info = cp.info;
  kubectl = async (args, input) =>
    (await runCommand(info.kubectl, ['--kubeconfig', info.kubeconfigPath, ...args], input === undefined ? {} : { input })).stdout;
  k = kube(kubectl);
  timed('control plane and node', started);
  registry = await startNodeRegistry(cp, inject('envtestBinaries'), work);
  const releaseRegistry = registry.host;
  // cert-manager's Pods start while the releases are made (its wait is mostly idle).
  const certManager = deployCertManager({ kubectl, registry: releaseRegistry, binaries: tools.certManager, log }).then(() =>
    timed('cert-manager', started),
  );
  const releases = (async () => {
    signed = await release(`${releaseRegistry}/olmv1/olmv1`, join(work, 'signed'), cosign, key);
    timed('signed release', started);
    unsigned = await release(`${releaseRegistry}/unsigned/olmv1`, join(work, 'unsigned'), cosign);
    timed('unsigned release', started);
  })();
  await Promise.all([certManager, releases]);
}, 1_800_000);

afterAll(async () => {
  await sourceRegistry?.stop();
  await mirrorRegistryB?.stop();
  await registry?.stop();
  await cp?.stop();
  if (work !== '') await rm(work, { recursive: true, force: true });
}, 120_000);

describe.skipIf(missing !== undefined)('a release installed on a fresh cluster from its artifacts alone', () => {
  it('made two releases of one image, by digest in the release registry, one signed and one not', () => {
    expect(signed.signed).toBe(true);
    expect(unsigned.signed).toBe(false);
    const digest = signed.imageRef.slice(signed.imageRef.indexOf('@'));
    expect(signed.imageRef).toBe(`${registry?.host}/olmv1/olmv1${digest}`);
    expect(unsigned.imageRef).toBe(`${registry?.host}/unsigned/olmv1${digest}`);
  });

  it('refuses the unsigned release, and the signed one under a key that did not sign it, applying nothing', async () => {
    const started = Date.now();
    const noSignature = await install(unsigned.dir, { OLMV1_VERIFY_KEY: key.publicKeyPath, OLMV1_VERIFY_PLAIN_HTTP: 'true' });
    expect(noSignature.stdout).toContain('install.sh: OK');
    expect(noSignature.code).toBe(1);
    expect(noSignature.stderr).toContain(
      `install.sh: ${unsigned.imageRef} has no signature that verifies with ${key.publicKeyPath}: nothing was applied\n`,
    );
    expect(noSignature.stderr).toMatch(/no (matching )?signatures/i);

    const wrongKey = await install(signed.dir, { OLMV1_VERIFY_KEY: otherKey.publicKeyPath, OLMV1_VERIFY_PLAIN_HTTP: 'true' });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain(
      `install.sh: ${signed.imageRef} has no signature that verifies with ${otherKey.publicKeyPath}: nothing was applied\n`,
    );
    expect(await olmObjects()).toEqual([]);
    timed('two refusals', started);
  }, 120_000);

  it('installs the signed release: both components run the release image by digest, pulled from the release registry', async () => {
    const started = Date.now();
    // The release registry speaks plain HTTP: OLMV1_INSECURE_REGISTRIES says so to both components
    // and, for the image's registry, to the signature check (no OLMV1_VERIFY_PLAIN_HTTP).
    const r = await install(signed.dir, { OLMV1_VERIFY_KEY: key.publicKeyPath, OLMV1_INSECURE_REGISTRIES: registry?.host ?? '' });
    expect(r.stderr.split('\n').filter((l) => l.startsWith('install.sh:'))).toEqual([]);
    expect(r.code).toBe(0);
    const conf = await k.get(['configmap', '-n', SYSTEM_NAMESPACE, 'olmv1-registries-conf']);
    expect((conf as Obj & { data: Record<string, string> }).data['50-insecure-registries.conf']).toContain(
      `[[registry]]\nlocation = "${registry?.host}"\ninsecure = true\n`,
    );
    expect(r.stdout).toContain(`The signature of ${signed.imageRef} verifies with ${key.publicKeyPath}`);
    expect(r.stdout).toContain(`olmv1 ${VERSION} is installed`);
    expect((await olmObjects()).sort()).toEqual([
      'customresourcedefinition.apiextensions.k8s.io/clustercatalogs.olm.operatorframework.io',
      'customresourcedefinition.apiextensions.k8s.io/clusterextensions.olm.operatorframework.io',
      `namespace/${SYSTEM_NAMESPACE}`,
    ]);
    for (const deployment of DEPLOYMENTS) {
      const d = (await k.get(['deployment', '-n', SYSTEM_NAMESPACE, deployment])) as Obj & {
        spec: { template: { spec: { volumes: Array<{ name: string; configMap?: { name: string } }> } } };
      };
      expect(condition(d, 'Available')).toBe('True');
      expect(d.spec.template.spec.volumes.find((v) => v.name === 'registries-conf')?.configMap?.name).toBe('olmv1-registries-conf');
    }
    const pods = (await k.list(['pods', '-n', SYSTEM_NAMESPACE])) as Array<
      Obj & { spec: { nodeName: string; containers: Array<{ image: string }> }; status: { containerStatuses: Array<{ imageID: string }> } }
    >;
    expect(pods.length).toBeGreaterThanOrEqual(DEPLOYMENTS.length);
    for (const pod of pods) {
      expect(pod.spec.nodeName).toBe('olmv1-node');
      expect(pod.spec.containers.map((c) => c.image)).toEqual([signed.imageRef]);
      // containerd's record of what it pulled: the release registry's repository, by digest.
      expect(pod.status.containerStatuses.map((c) => c.imageID)).toEqual([signed.imageRef]);
    }
    timed('signed release installed', started);
  }, 600_000);

  it("adds the example catalog with install.sh, and config/samples' extension installs Healthy, its Pod Running on the node", async () => {
    const started = Date.now();
    await mkdir(join(work, 'example'));
    const example = await pushExample(REPO, registry?.host ?? '', [registry?.host ?? ''], join(work, 'example'), nodeEnv);
    timed('example pushed', started);

    const r = await install(signed.dir, {
      OLMV1_VERIFY_KEY: key.publicKeyPath,
      OLMV1_INSECURE_REGISTRIES: registry?.host ?? '',
      OLMV1_CATALOG_IMAGE: example.catalogRef,
      OLMV1_CATALOG_NAME: 'example-catalog',
    });
    expect(r.stderr.split('\n').filter((l) => l.startsWith('install.sh:'))).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Adding ClusterCatalog example-catalog (${example.catalogRef})`);
    expect(condition(await k.get(['clustercatalog', 'example-catalog']), 'Serving')).toBe('True');
    timed('catalog Serving', started);

    for (const sample of ['example-operator-installer.yaml', 'olm_v1_clusterextension.yaml'])
      await kubectl(['apply', '-f', join(REPO, 'config/samples', sample)]);
    await kubectl(['wait', '--for=condition=Installed', 'clusterextension/example-operator', '--timeout=300s']);
    await kubectl(['wait', '--for=condition=Healthy', 'clusterextension/example-operator', '--timeout=300s']);
    const ext = await k.get(['clusterextension', 'example-operator']);
    expect(condition(ext, 'Installed')).toBe('True');
    expect(condition(ext, 'Healthy')).toBe('True');
    const pods = (await k.list(['pods', '-n', 'example-operator'])) as Array<
      Obj & { spec: { nodeName: string; containers: Array<{ image: string }> } }
    >;
    expect(pods.map((p) => [p.spec.nodeName, (p.status as { phase?: string } | undefined)?.phase])).toEqual([['olmv1-node', 'Running']]);
    expect(pods[0]?.spec.containers[0]?.image).toMatch(
      new RegExp(`^${registry?.host.replaceAll('.', '\\.')}/olmv1/example-operator@sha256:[0-9a-f]{64}$`),
    );
    timed('example-operator Installed and Healthy', started);
  }, 900_000);
  it('installs from a catalog mirrored to a second registry with the first stopped: catalog, bundle and operator Pod image all through the mirror', async () => {
    const started = Date.now();
    const node = cp?.node;
    if (cp === undefined || node === undefined) throw new Error('no node');
    sourceRegistry = await startNodeRegistry(cp, inject('envtestBinaries'), work);
    mirrorRegistryB = await startNodeRegistry(cp, inject('envtestBinaries'), work);
    const [a, b] = [sourceRegistry.host, mirrorRegistryB.host];
    await mkdir(join(work, 'source'));
    const example = await pushExample(REPO, a, [a], join(work, 'source'), nodeEnv);
    // The catalog as `opm render` writes one: each bundle lists its related images (itself and its
    // operator image), which is how a mirror learns of the operator image. The committed example
    // catalog lists none, so the catalog pushed to A is that one with them added.
    const catalogRef = await pushCatalogWithRelatedImages(a, example.operatorImages, join(work, 'source-catalog'));
    timed('mirror case: example pushed to registry A', started);

    // As a user runs it: the catalog, its bundles and the operator images copied to B by digest
    // (the repository paths kept: containerd 1.6's hosts.toml mirrors a whole host, no path rewrite).
    const out = join(work, 'mirror-out');
    const mirrored = await exec(
      join(REPO, 'node_modules/.bin/node'),
      [join(REPO, 'cmd/olmv1/main.ts'), 'catalog', 'mirror', catalogRef, b, '--to-dir', out, '--name', 'mirrored-catalog'],
      { env: { ...nodeEnv, OLMV1_INSECURE_REGISTRIES: `${a},${b}` } },
    );
    expect(mirrored.stdout).toContain(`to ${b}\n`);
    const mapping = await readFile(join(out, 'mapping.txt'), 'utf8');
    for (const operator of Object.values(example.operatorImages)) expect(mapping).toContain(`${operator}=${b}/`);
    timed('mirror case: olmv1 catalog mirror', started);

    // catalogd and operator-controller: the written registries.conf as a drop-in of the ConfigMap
    // they mount at /etc/containers/registries.conf.d (they re-read it at each pull).
    const configMap = await kubectl([
      'create',
      'configmap',
      'olmv1-registries-conf',
      '-n',
      SYSTEM_NAMESPACE,
      '--dry-run=client',
      '-o',
      'json',
      `--from-file=60-mirror.conf=${join(out, 'registries.conf')}`,
    ]);
    await kubectl(['apply', '--server-side', '--field-manager=catalog-mirror-e2e', '-f', '-'], configMap);
    // The kubelet refreshes a ConfigMap volume when it syncs the Pod: an annotation makes it now,
    // not at its next periodic sync (up to a minute later).
    const system = await k.list(['pods', '-n', SYSTEM_NAMESPACE]);
    await kubectl(['annotate', 'pods', '-n', SYSTEM_NAMESPACE, '--all', '--overwrite', `olmv1.e2e/registries-conf=${Date.now()}`]);
    const written = await readFile(join(out, 'registries.conf'), 'utf8');
    const mounted = async (): Promise<string[]> => {
      const seen: string[] = [];
      for (const pod of system) {
        const dir = join(node.dir, 'kubelet/root/pods', pod.metadata.uid ?? '', 'volumes/kubernetes.io~configmap/registries-conf');
        seen.push(
          await readFile(join(dir, '60-mirror.conf'), 'utf8').then(
            (t) => (t === written ? 'current' : 'other'),
            () => 'missing',
          ),
        );
      }
      return seen;
    };
    await expect.poll(mounted, { timeout: 90_000, interval: 500 }).toEqual(system.map(() => 'current'));
    timed('mirror case: registries.conf in every Pod of the product', started);

    // The node: containerd pulls images named under A from B (A's hosts.toml, read at each pull).
    await mirrorRegistry(node, a, b);
    await sourceRegistry.stop();
    sourceRegistry = undefined;
    await expect(fetch(`http://${a}/v2/`)).rejects.toThrow();

    // The extension of the earlier case goes, so that the package installs again, from the mirror.
    await kubectl(['delete', 'clusterextension', 'example-operator', '--wait=true', '--timeout=120s']);
    // Nothing of the example left to serve it but B: the earlier case's operator image (the same
    // digest, pushExample being deterministic) removed from the node's containerd, once its Pod is
    // gone, and both components' Pods replaced, so that their caches (emptyDirs: unpacked
    // catalogs and bundles) start empty. A pull from the node or a component must then reach a
    // registry, and A is stopped.
    await expect.poll(async () => (await k.list(['pods', '-n', 'example-operator'])).length, { timeout: 120_000, interval: 500 }).toBe(0);
    const operatorImagesOnNode = async (): Promise<string[]> =>
      (await runCommand('ctr', ['--address', node.containerdSocket, '--namespace', 'k8s.io', 'images', 'ls', '-q'], { env: nodeEnv })).stdout
        .split('\n')
        .filter((ref) => ref.includes('/olmv1/example-operator'));
    const earlier = await operatorImagesOnNode();
    log(`mirror case: the earlier operator image on the node, removed: ${earlier.join(', ')}`);
    if (earlier.length > 0)
      await runCommand('ctr', ['--address', node.containerdSocket, '--namespace', 'k8s.io', 'images', 'rm', '--sync', ...earlier], { env: nodeEnv });
    expect(await operatorImagesOnNode()).toEqual([]);
    await kubectl(['delete', 'pods', '-n', SYSTEM_NAMESPACE, '--all', '--wait=true', '--timeout=120s']);
    for (const d of DEPLOYMENTS) await kubectl(['rollout', 'status', '-n', SYSTEM_NAMESPACE, '--timeout=180s', `deployment/${d}`]);
    timed('mirror case: operator image off the node, components restarted with empty caches', started);
    // `rollout status` may pass on the Deployments' status from before the Pods were deleted, and
    // kube-proxy takes the new endpoint a moment after the Pod is Ready: until catalogd's webhook
    // answers, the API server refuses the apply (connection refused), and it is sent again.
    await vi.waitFor(() => kubectl(['apply', '--server-side', '-f', join(out, 'clustercatalog.yaml')]), { timeout: 120_000, interval: 1_000 });
    await kubectl(['wait', '--for=condition=Serving', 'clustercatalog/mirrored-catalog', '--timeout=120s']);
    const catalog = await k.get(['clustercatalog', 'mirrored-catalog']);
    expect((catalog.spec?.['source'] as { image: { ref: string } }).image.ref).toMatch(
      new RegExp(`^${b.replaceAll('.', '\\.')}/olmv1/example-catalog@sha256:`),
    );
    timed('mirror case: mirrored catalog Serving with A stopped', started);

    await k.apply({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterExtension',
      metadata: { name: 'example-operator' },
      spec: {
        namespace: 'example-operator',
        serviceAccount: { name: 'example-operator-installer' },
        source: {
          sourceType: 'Catalog',
          catalog: {
            packageName: 'example-operator',
            version: '>=1.0.0 <2.0.0',
            channels: ['stable'],
            selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': 'mirrored-catalog' } },
          },
        },
      },
    });
    await kubectl(['wait', '--for=condition=Installed', 'clusterextension/example-operator', '--timeout=180s']);
    await kubectl(['wait', '--for=condition=Healthy', 'clusterextension/example-operator', '--timeout=180s']);
    const ext = await k.get(['clusterextension', 'example-operator']);
    const bundle = (ext.status?.['install'] as { bundle?: { name: string } } | undefined)?.bundle?.name ?? '';
    log(`mirror case: installed ${bundle}`);
    const pods = (await k.list(['pods', '-n', 'example-operator'])) as Array<
      Obj & {
        spec: { nodeName: string; containers: Array<{ image: string }> };
        status: { phase: string; containerStatuses: Array<{ imageID: string }> };
      }
    >;
    // Named under A (the bundle as mirrored, unchanged), which is stopped: containerd pulled it from B.
    const running = pods.filter((p) => p.metadata.deletionTimestamp === undefined);
    expect(running.map((p) => [p.spec.nodeName, p.status.phase])).toEqual([['olmv1-node', 'Running']]);
    expect(running[0]?.spec.containers[0]?.image).toMatch(new RegExp(`^${a.replaceAll('.', '\\.')}/olmv1/example-operator@sha256:[0-9a-f]{64}$`));
    log(`mirror case: operator Pod image ${running[0]?.spec.containers[0]?.image}, imageID ${running[0]?.status.containerStatuses[0]?.imageID}`);
    // Pulled again, with A stopped: from B, the only registry that could serve it.
    expect(await operatorImagesOnNode()).toContain(running[0]?.spec.containers[0]?.image);
    log(`mirror case: node hosts.toml for ${a}: ${JSON.stringify(await readdir(join(node.dir, 'containerd/hosts', a)))}`);
    timed('mirror case: example-operator Installed and Healthy from the mirror', started);
  }, 600_000);
});
