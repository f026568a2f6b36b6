// operator-controller end to end: real kube-apiserver + etcd, real registry, catalogd and
// operator-controller (their real compositions) in this process. Bundles and catalogs are
// generated per run and pushed as images; ClusterExtensions are created as a user would and
// only their status, the cluster's objects and the release records are inspected.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLUSTER_EXTENSION, OWNER_NAME_LABEL } from '../../pkg/shared/api/index.ts';
import type { KubeContext, KubeObject } from '../../pkg/shared/kube/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import { waitForEvent } from '../support/events.ts';
import {
  bundleFiles,
  clusterExtension,
  groupOf,
  installedAs,
  packageCatalog,
  installerFor as installer,
  objectExists,
  publishCatalog as publish,
  pushBundle,
  requestRefusedVersion,
  startExtensionStack,
  waitForExtension,
  type BundleSpec,
  type ExtensionStack,
} from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
let stack: ExtensionStack;
let kube: KubeContext;
let registry: string;
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };

beforeAll(async () => {
  stack = await startExtensionStack(inject('envtestControlPlane'), inject('envtestRegistries').anonymous.host);
  ({ kube, registry } = stack);
});

afterAll(async () => {
  await stack?.stop();
});

/** Pushes one bundle image per spec; returns the digest references by version. */
async function pushBundles(specs: BundleSpec[]): Promise<Record<string, string>> {
  const images: Record<string, string> = {};
  for (const s of specs) images[s.version] = await pushBundle(bundleFiles(s), `${registry}/bundles/${s.pkg}:v${s.version}`);
  return images;
}

const publishCatalog = (name: string, files: Record<string, string>): Promise<void> => publish(stack, name, files);
const installerFor = (ns: string, sa: string, bundles: BundleSpec[]): Promise<void> => installer(kube.client, ns, sa, bundles);

async function createExtension(obj: KubeObject): Promise<void> {
  await kube.client.create(obj);
}

const exists = (ref: { apiVersion: string; kind: string; name: string; namespace?: string }): Promise<boolean> => objectExists(kube.client, ref);

/** The versions every generated package offers: stable 1.0.0 -> 1.1.0, fast adds 2.0.0. */
const VERSIONS = ['1.0.0', '1.1.0', '2.0.0'];

function specsOf(pkg: string): BundleSpec[] {
  return VERSIONS.map((version) => ({ pkg, version }));
}

/** The catalog documents of a generated package, with its pushed images. */
function channelsOf(pkg: string, images: Record<string, string>): Record<string, string> {
  return packageCatalog(pkg, {
    defaultChannel: 'stable',
    channels: [
      { name: 'stable', entries: [{ version: '1.0.0' }, { version: '1.1.0', replaces: '1.0.0' }] },
      { name: 'fast', entries: [{ version: '1.0.0' }, { version: '1.1.0', replaces: '1.0.0' }, { version: '2.0.0', replaces: '1.1.0' }] },
    ],
    bundles: VERSIONS.map((version) => ({ version, image: images[version] ?? '' })),
  });
}

describe('operator-controller installs from catalogs', () => {
  const catalog = `installs-${run}`;
  const pkgs = { plain: `plain-${run}`, channel: `channel-${run}`, pinned: `pinned-${run}`, range: `range-${run}` };
  const images: Record<string, Record<string, string>> = {};

  beforeAll(async () => {
    let files: Record<string, string> = {};
    for (const pkg of Object.values(pkgs)) {
      images[pkg] = await pushBundles(specsOf(pkg));
      await installerFor(pkg, 'installer', specsOf(pkg));
      files = { ...files, ...channelsOf(pkg, images[pkg] ?? {}) };
    }
    await publishCatalog(catalog, files);
  });

  // Without `channels`, upstream resolves over every channel (the package's defaultChannel plays
  // no part in OLM v1 resolution), so the highest version of any channel is installed.
  it('installs the highest version of any channel, as the ServiceAccount, and records a release', async () => {
    const pkg = pkgs.plain;
    await createExtension(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    const ext = await waitForExtension(kube.client, pkg, 'installed', installedAs(`${pkg}.v2.0.0`));
    expect(ext.install?.bundle).toEqual({ name: `${pkg}.v2.0.0`, version: '2.0.0' });
    expect(ext.cond('Installed')).toMatchObject({
      status: 'True',
      reason: 'Succeeded',
      message: `Installed bundle ${images[pkg]?.['2.0.0']} successfully`,
    });
    expect(ext.cond('Progressing')).toMatchObject({ status: 'True', reason: 'Succeeded', message: 'Desired state reached' });
    for (const type of ['Deprecated', 'PackageDeprecated', 'ChannelDeprecated', 'BundleDeprecated']) expect(ext.cond(type)?.status).toBe('False');
    expect(ext.cond('Installed')?.observedGeneration).toBe(ext.obj.metadata.generation);
    // The bundle's objects exist with the owner labels, applied by our field manager as the ServiceAccount.
    const deploy = await kube.client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: pkg, name: `${pkg}-controller` });
    expect(deploy.metadata.labels?.[OWNER_NAME_LABEL]).toBe(pkg);
    expect((deploy.metadata.managedFields as { manager: string }[]).map((m) => m.manager)).toContain(
      'olm.operatorframework.io/clusterextension-controller',
    );
    expect(await exists({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: `widgets.${groupOf(pkg)}` })).toBe(true);
    const history = await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(pkg);
    expect(history.map((r) => [r.revision, r.status, r.bundle.name, r.bundle.image])).toEqual([
      [1, 'deployed', `${pkg}.v2.0.0`, images[pkg]?.['2.0.0']],
    ]);
    expect(history[0]?.bundle.digestRef).toBe(images[pkg]?.['2.0.0']);
    expect(ext.obj.metadata.finalizers).toEqual(expect.arrayContaining(['olm.operatorframework.io/uninstall']));
  });

  it('installs from a named channel, a pinned version and a version range', async () => {
    const cases: [string, Partial<Parameters<typeof clusterExtension>[1]>, string][] = [
      [pkgs.channel, { channels: ['stable'] }, '1.1.0'],
      [pkgs.pinned, { version: '1.0.0' }, '1.0.0'],
      [pkgs.range, { channels: ['fast'], version: '>=1.0.0 <2.0.0' }, '1.1.0'],
    ];
    for (const [pkg, spec] of cases)
      await createExtension(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, ...spec }));
    for (const [pkg, , version] of cases) await waitForExtension(kube.client, pkg, `installed ${version}`, installedAs(`${pkg}.v${version}`));
  });
});

describe('operator-controller upgrades and uninstalls', () => {
  // Each test has a package (and catalog) of its own, named `<prefix>-<run>`, and installs it
  // itself. 1.0.0 has ConfigMaps settings+legacy and CRDs widgets+gadgets; 1.5.0 drops legacy
  // and gadgets.
  const bundlesOf = (pkg: string): Record<'v100' | 'v150' | 'v300', BundleSpec> => ({
    v100: { pkg, version: '1.0.0', crds: ['widgets', 'gadgets'], configMaps: ['settings', 'legacy'] },
    v150: { pkg, version: '1.5.0', crds: ['widgets'], configMaps: ['settings'] },
    v300: { pkg, version: '3.0.0', crds: ['widgets'], configMaps: ['settings'] },
  });
  const entries = (pkg: string, images: Record<string, string>, versions: { version: string; skipRange?: string; replaces?: string }[]) =>
    packageCatalog(pkg, {
      defaultChannel: 'stable',
      channels: [{ name: 'stable', entries: versions }],
      bundles: versions.map((e) => ({ version: e.version, image: images[e.version] ?? '' })),
    });
  /** Pushes the package's bundles and grants its installer; returns the images by version. */
  async function prepare(pkg: string): Promise<Record<string, string>> {
    const { v100, v150, v300 } = bundlesOf(pkg);
    const images = await pushBundles([v100, v150, v300]);
    await installerFor(pkg, 'installer', [v100, v150, v300]);
    return images;
  }

  it('upgrades by itself when the catalog offers a successor (skipRange), deleting dropped objects but keeping dropped CRDs', async () => {
    const pkg = `lifecycle-${run}`;
    const catalog = pkg;
    const images = await prepare(pkg);
    await publishCatalog(catalog, entries(pkg, images, [{ version: '1.0.0' }]));
    await createExtension(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    await waitForExtension(kube.client, pkg, 'installed 1.0.0', installedAs(`${pkg}.v1.0.0`));
    const gadgets = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: `gadgets.${groupOf(pkg)}` };
    const legacy = { apiVersion: 'v1', kind: 'ConfigMap', namespace: pkg, name: `${pkg}-legacy` };
    expect(await exists(legacy)).toBe(true);

    // A new catalog image under the same tag: catalogd polls it, operator-controller follows.
    await publishCatalog(catalog, entries(pkg, images, [{ version: '1.0.0' }, { version: '1.5.0', skipRange: '>=1.0.0 <1.5.0' }]));
    const ext = await waitForExtension(kube.client, pkg, 'upgraded to 1.5.0', installedAs(`${pkg}.v1.5.0`), 90_000);
    expect(ext.install?.bundle.version).toBe('1.5.0');
    expect(await exists(legacy)).toBe(false);
    expect(await exists(gadgets)).toBe(true);
    const history = await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(pkg);
    expect(history.map((r) => [r.revision, r.status])).toEqual([
      [2, 'deployed'],
      [1, 'superseded'],
    ]);
    expect(history[0]?.notes?.keptObjects).toEqual([`CustomResourceDefinition gadgets.${groupOf(pkg)}`]);
  });

  it('refuses an upgrade without an edge with upstream message, then takes it (and a downgrade) with SelfCertified', async () => {
    const pkg = `edges-${run}`;
    const images = await prepare(pkg);
    await publishCatalog(pkg, entries(pkg, images, [{ version: '1.0.0' }, { version: '1.5.0', skipRange: '>=1.0.0 <1.5.0' }, { version: '3.0.0' }]));
    await createExtension(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, version: '1.5.0' }));
    await waitForExtension(kube.client, pkg, 'installed 1.5.0', installedAs(`${pkg}.v1.5.0`));
    const refused = await requestRefusedVersion(kube.client, pkg, '3.0.0');
    // Upstream's message alone on the condition; what the catalog offers instead in a Warning Event after it.
    const upstream = `error upgrading from currently installed version "1.5.0": no bundles found for package "${pkg}" matching version "3.0.0"`;
    expect(refused.cond('Progressing')).toMatchObject({ reason: 'Retrying', message: upstream });
    const warning = await waitForEvent(kube.client, 'ClusterExtension', pkg, 'ResolutionFailed');
    expect(warning).toMatchObject({ type: 'Warning', action: 'Resolve' });
    expect(warning.note.split('\n')).toEqual([
      upstream,
      'versions: 3.0.0, 1.5.0, 1.0.0',
      'no successor of the installed version "1.5.0"',
      'upgradeConstraintPolicy: SelfCertified would allow any version of the channel, downgrades too',
    ]);
    expect(refused.cond('Installed')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    expect(refused.install?.bundle.version).toBe('1.5.0');

    await kube.client.patch({ ...CE, name: pkg }, { spec: { source: { catalog: { upgradeConstraintPolicy: 'SelfCertified' } } } }, 'merge');
    await waitForExtension(kube.client, pkg, 'forced to 3.0.0', installedAs(`${pkg}.v3.0.0`));
    await kube.client.patch({ ...CE, name: pkg }, { spec: { source: { catalog: { version: '1.0.0' } } } }, 'merge');
    await waitForExtension(kube.client, pkg, 'downgraded to 1.0.0', installedAs(`${pkg}.v1.0.0`));
  });

  it('uninstalls as the ServiceAccount: objects and release records go, CRDs and their custom resources stay', async () => {
    const pkg = `uninstall-${run}`;
    const images = await prepare(pkg);
    await publishCatalog(pkg, entries(pkg, images, [{ version: '1.0.0' }]));
    await createExtension(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    await waitForExtension(kube.client, pkg, 'installed 1.0.0', installedAs(`${pkg}.v1.0.0`));
    const widget = { apiVersion: `${groupOf(pkg)}/v1`, kind: 'Widget', metadata: { name: 'keep-me', namespace: pkg }, spec: { size: 3 } };
    await waitUntil('the Widget kind is served', () => {
      kube.client.mapper.invalidate();
      return kube.client.create(widget).then(
        () => true,
        () => false,
      );
    });
    await kube.client.delete({ ...CE, name: pkg });
    await waitUntil('the ClusterExtension is gone', async () => !(await exists({ ...CE, name: pkg })), 60_000);
    expect(await exists({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: pkg, name: `${pkg}-controller` })).toBe(false);
    expect(await exists({ apiVersion: 'v1', kind: 'ConfigMap', namespace: pkg, name: `${pkg}-settings` })).toBe(false);
    expect(await exists({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: `widgets.${groupOf(pkg)}` })).toBe(true);
    expect(await exists({ apiVersion: widget.apiVersion, kind: 'Widget', namespace: pkg, name: 'keep-me' })).toBe(true);
    expect(await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(pkg)).toEqual([]);
    const secrets = await kube.client.list({ apiVersion: 'v1', kind: 'Secret' }, { namespace: 'olmv1-system', labelSelector: `name=${pkg}` });
    expect(secrets.items).toEqual([]);
  });
});
