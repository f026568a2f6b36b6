// operator-controller end to end, when things are not right: ambiguous catalogs, deprecations,
// a ServiceAccount without permissions or missing, a bundle the renderer refuses, and one
// failing extension next to healthy ones. Real API server, registry, catalogd and
// operator-controller, as in operator-controller-install.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { KubeContext } from '../../pkg/kube/index.ts';
import { createReleaseStore } from '../../pkg/release/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import { waitForCatalog } from '../support/catalogs.ts';
import {
  applyAsAdmin,
  bundleFiles,
  clusterExtension,
  installedAs,
  packageCatalog,
  publishCatalog as publish,
  pushBundle,
  pushCatalogFiles,
  rbacFor,
  startExtensionStack,
  waitForExtension,
  type BundleSpec,
  type ExtensionStack,
} from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
let stack: ExtensionStack;
let kube: KubeContext;
let registry: string;

beforeAll(async () => {
  stack = await startExtensionStack(inject('envtestControlPlane'), inject('envtestRegistries').anonymous.host);
  ({ kube, registry } = stack);
});

afterAll(async () => {
  await stack?.stop();
});

async function image(spec: BundleSpec): Promise<string> {
  return pushBundle(bundleFiles(spec), `${registry}/bundles/${spec.pkg}:v${spec.version}`);
}

const publishCatalog = (name: string, files: Record<string, string>): Promise<void> => publish(stack, name, files);

async function namespace(name: string): Promise<void> {
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }).catch(() => undefined);
}

function oneVersion(pkg: string, img: string, extra: { deprecations?: object[]; channel?: string } = {}): Record<string, string> {
  const channel = extra.channel ?? 'stable';
  return packageCatalog(pkg, {
    defaultChannel: channel,
    channels: [{ name: channel, entries: [{ version: '1.0.0' }] }],
    bundles: [{ version: '1.0.0', image: img }],
    ...(extra.deprecations === undefined ? {} : { deprecations: extra.deprecations }),
  });
}

describe('operator-controller reports what stops an install', () => {
  it('reports ambiguity between catalogs of equal priority and resolves by priority', async () => {
    const pkg = `twice-${run}`;
    const spec = { pkg, version: '1.0.0' };
    const img = await image(spec);
    await namespace(pkg);
    await applyAsAdmin(kube.client, await rbacFor(bundleFiles(spec), pkg, 'installer'));
    const [a, b] = [`twice-a-${run}`, `twice-b-${run}`];
    await publishCatalog(a, oneVersion(pkg, img));
    await publishCatalog(b, oneVersion(pkg, img));
    const selector = { matchExpressions: [{ key: 'olm.operatorframework.io/metadata.name', operator: 'In', values: [a, b] }] };
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, selector }));
    const ext = await waitForExtension(kube.client, pkg, 'ambiguous', (e) => e.cond('Progressing')?.reason === 'Retrying');
    expect(ext.cond('Progressing')?.message).toBe(`found bundles for package "${pkg}" in multiple catalogs with the same priority [${a} ${b}]`);
    expect(ext.cond('Installed')).toMatchObject({ status: 'False', reason: 'Failed', message: 'No bundle installed' });
    expect(ext.cond('BundleDeprecated')).toMatchObject({ status: 'Unknown', reason: 'Absent' });
    await kube.client.patch({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: b }, { spec: { priority: 10 } }, 'merge');
    await waitForExtension(kube.client, pkg, 'installed from the higher priority catalog', installedAs(`${pkg}.v1.0.0`));
  });

  it('sets the package, channel and bundle deprecation conditions', async () => {
    const pkg = `old-${run}`;
    const spec = { pkg, version: '1.0.0' };
    await namespace(pkg);
    await applyAsAdmin(kube.client, await rbacFor(bundleFiles(spec), pkg, 'installer'));
    const deprecations = [
      { reference: { schema: 'olm.package' }, message: 'package old is end of life' },
      { reference: { schema: 'olm.channel', name: 'stable' }, message: 'channel stable is frozen' },
      { reference: { schema: 'olm.bundle', name: `${pkg}.v1.0.0` }, message: 'bundle 1.0.0 has a CVE' },
    ];
    await publishCatalog(`old-${run}`, oneVersion(pkg, await image(spec), { deprecations }));
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    const ext = await waitForExtension(kube.client, pkg, 'installed', installedAs(`${pkg}.v1.0.0`));
    expect(ext.cond('PackageDeprecated')).toMatchObject({ status: 'True', reason: 'Deprecated', message: 'package old is end of life' });
    expect(ext.cond('ChannelDeprecated')).toMatchObject({ status: 'True', reason: 'Deprecated', message: 'channel stable is frozen' });
    expect(ext.cond('BundleDeprecated')).toMatchObject({ status: 'True', reason: 'Deprecated', message: 'bundle 1.0.0 has a CVE' });
    expect(ext.cond('Deprecated')).toMatchObject({
      status: 'True',
      message: 'package old is end of life\nchannel stable is frozen\nbundle 1.0.0 has a CVE',
    });
  });

  it('lists every missing permission in one message and installs by itself once they are granted', async () => {
    const pkg = `locked-${run}`;
    const spec = { pkg, version: '1.0.0', configMaps: ['settings'] };
    await namespace(pkg);
    await publishCatalog(`locked-${run}`, oneVersion(pkg, await image(spec)));
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    const noSa = await waitForExtension(kube.client, pkg, 'missing service account', (e) =>
      (e.cond('Progressing')?.message ?? '').includes('not found'),
    );
    expect(noSa.cond('Progressing')?.message).toBe(
      `operation cannot proceed due to the following validation error(s): service account "installer" not found in namespace "${pkg}": create it (kubectl create serviceaccount installer -n ${pkg}) and grant it the RBAC that "olmv1 rbac" prints`,
    );
    await kube.client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: pkg } });
    const denied = await waitForExtension(kube.client, pkg, 'pre-authorization failed', (e) =>
      (e.cond('Progressing')?.message ?? '').includes('pre-authorization failed'),
    );
    const message = denied.cond('Progressing')?.message ?? '';
    expect(denied.cond('Progressing')?.reason).toBe('Retrying');
    expect(message).toContain(
      `error for resolved bundle "${pkg}.v1.0.0" with version "1.0.0": pre-authorization failed: service account requires the following permissions to manage cluster extension:`,
    );
    expect(message).toContain(`Namespace:"${pkg}" APIGroups:[] Resources:[configmaps] ResourceNames:[${pkg}-settings]`);
    expect(message).toContain(`Resources:[customresourcedefinitions] ResourceNames:[widgets.${pkg}.e2e.test]`);
    expect(message).toContain('olmv1 rbac');
    // Nothing was applied.
    const cms = await kube.client.list(
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { namespace: pkg, labelSelector: `olm.operatorframework.io/owner-name=${pkg}` },
    );
    expect(cms.items).toEqual([]);
    await applyAsAdmin(kube.client, await rbacFor(bundleFiles(spec), pkg, 'installer'));
    await waitForExtension(kube.client, pkg, 'installed after the grant', installedAs(`${pkg}.v1.0.0`), 30_000);
  });

  it("shows the renderer's message for a bundle it refuses, while other extensions install in parallel", async () => {
    const broken = `ownonly-${run}`;
    const brokenSpec: BundleSpec = { pkg: broken, version: '1.0.0', installModes: ['OwnNamespace'] };
    const healthy = [`para-a-${run}`, `para-b-${run}`];
    const specs = [brokenSpec, ...healthy.map((pkg) => ({ pkg, version: '1.0.0' }))];
    let files: Record<string, string> = {};
    for (const s of specs) {
      await namespace(s.pkg);
      // `olmv1 rbac` refuses the broken bundle as the controller will; its installer gets only a ServiceAccount.
      const rbac =
        s === brokenSpec
          ? [{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: s.pkg } }]
          : await rbacFor(bundleFiles(s), s.pkg, 'installer');
      await applyAsAdmin(kube.client, rbac);
      files = { ...files, ...oneVersion(s.pkg, await image(s)) };
    }
    await publishCatalog(`mixed-${run}`, files);
    for (const s of specs) await kube.client.create(clusterExtension(s.pkg, { namespace: s.pkg, serviceAccount: 'installer', packageName: s.pkg }));
    const started = Date.now();
    await Promise.all(healthy.map((pkg) => waitForExtension(kube.client, pkg, 'installed', installedAs(`${pkg}.v1.0.0`))));
    const elapsed = Date.now() - started;
    const ext = await waitForExtension(kube.client, broken, 'refused', (e) => (e.cond('Progressing')?.message ?? '').includes('watchNamespace'));
    expect(ext.cond('Progressing')).toMatchObject({
      status: 'False',
      reason: 'InvalidConfiguration',
      message: `error for resolved bundle "${broken}.v1.0.0" with version "1.0.0": invalid ClusterExtension configuration: invalid configuration: required field "watchNamespace" is missing`,
    });
    expect(elapsed).toBeLessThan(30_000);
  });

  it('keeps an extension whose ServiceAccount lost its permissions until the orphan annotation lets it go', async () => {
    const pkg = `orphan-${run}`;
    const spec = { pkg, version: '1.0.0', configMaps: ['settings'] };
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    const noNs = await waitForExtension(kube.client, pkg, 'missing namespace', (e) => (e.cond('Progressing')?.message ?? '').includes('namespace'));
    expect(noNs.cond('Progressing')?.message).toContain(`namespace "${pkg}" not found: create it (kubectl create namespace ${pkg})`);
    expect(noNs.cond('Installed')?.status).toBe('Unknown');
    await namespace(pkg);
    const rbac = await rbacFor(bundleFiles(spec), pkg, 'installer');
    await applyAsAdmin(kube.client, rbac);
    await publishCatalog(`orphan-${run}`, oneVersion(pkg, await image(spec)));
    await waitForExtension(kube.client, pkg, 'installed', installedAs(`${pkg}.v1.0.0`));

    // The administrator removes the installer's RBAC, then deletes the extension.
    for (const obj of rbac.filter((o) => o.kind !== 'ServiceAccount'))
      await kube.client.delete({ apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? '', namespace: obj.metadata.namespace });
    const ce = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name: pkg };
    await kube.client.delete(ce);
    const stuck = await waitForExtension(kube.client, pkg, 'uninstall refused', (e) => (e.cond('Progressing')?.message ?? '').includes('finalizer'));
    expect(stuck.cond('Progressing')?.message).toMatch(
      /^finalizer "olm.operatorframework.io\/uninstall" failed: error deleting .* is forbidden: .*annotate the ClusterExtension with olm.operatorframework.io\/orphan-objects=true/s,
    );
    await kube.client.patch(ce, { metadata: { annotations: { 'olm.operatorframework.io/orphan-objects': 'true' } } }, 'merge');
    await waitUntil(
      'the ClusterExtension is gone',
      () =>
        kube.client.get(ce).then(
          () => false,
          () => true,
        ),
      30_000,
    );
    // Its objects stay; its records are gone.
    await kube.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: pkg, name: `${pkg}-settings` });
    const secrets = await kube.client.list({ apiVersion: 'v1', kind: 'Secret' }, { namespace: 'olmv1-system', labelSelector: `name=${pkg}` });
    expect(secrets.items).toEqual([]);
  });

  it('installs a bundle whose objects carry fields the API server does not declare, and records what it dropped', async () => {
    const pkg = `stray-${run}`;
    const spec: BundleSpec = { pkg, version: '1.0.0', configMaps: ['settings'], strayFields: true };
    await namespace(pkg);
    await applyAsAdmin(kube.client, await rbacFor(bundleFiles(spec), pkg, 'installer'));
    await publishCatalog(`stray-${run}`, oneVersion(pkg, await image(spec)));
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    await waitForExtension(kube.client, pkg, 'installed', installedAs(`${pkg}.v1.0.0`));
    const [release] = await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(pkg);
    expect(release?.notes?.droppedFields).toEqual(
      expect.arrayContaining([
        { object: `ConfigMap ${pkg}/${pkg}-settings`, paths: ['.junk'] },
        { object: `Deployment ${pkg}/${pkg}-controller`, paths: ['.spec.x'] },
      ]),
    );
  });

  it('records a failed revision with the API server message and recovers when the catalog offers a fixed bundle', async () => {
    const pkg = `refused-${run}`;
    const bad: BundleSpec = { pkg, version: '1.0.0', configMaps: ['settings'], invalidService: true };
    const good: BundleSpec = { pkg, version: '1.0.1', configMaps: ['settings'] };
    await namespace(pkg);
    for (const s of [bad, good]) await applyAsAdmin(kube.client, await rbacFor(bundleFiles(s), pkg, 'installer'));
    const [badImage, goodImage] = [await image(bad), await image(good)];
    const catalog = `refused-${run}`;
    await publishCatalog(catalog, oneVersion(pkg, badImage));
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    const failed = await waitForExtension(kube.client, pkg, 'apply refused', (e) =>
      (e.cond('Progressing')?.message ?? '').includes('error applying Service'),
    );
    expect(failed.cond('Progressing')?.reason).toBe('Retrying');
    expect(failed.cond('Progressing')?.message).toBe(
      `error for resolved bundle "${pkg}.v1.0.0" with version "1.0.0": error applying Service ${pkg}/${pkg}-metrics: Service "${pkg}-metrics" is invalid: spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive`,
    );
    expect(failed.cond('Installed')).toMatchObject({ status: 'False', message: 'No bundle installed' });
    const store = createReleaseStore({ client: kube.client, namespace: 'olmv1-system' });
    const [first] = await store.history(pkg);
    expect(first).toMatchObject({ revision: 1, status: 'failed' });
    expect(first?.description).toContain(`Release "${pkg}" failed: error applying Service`);

    // The catalog image is replaced by one whose 1.0.1 replaces the broken bundle.
    const files = packageCatalog(pkg, {
      defaultChannel: 'stable',
      channels: [{ name: 'stable', entries: [{ version: '1.0.0' }, { version: '1.0.1', replaces: '1.0.0' }] }],
      bundles: [
        { version: '1.0.0', image: badImage },
        { version: '1.0.1', image: goodImage },
      ],
    });
    const digest = await pushCatalogFiles(files, `${registry}/catalogs/${catalog}:latest`);
    await kube.client.patch(
      { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: catalog },
      { spec: { source: { image: { pollIntervalMinutes: 1 } } } },
      'merge',
    );
    await waitForCatalog(kube.client, catalog, (cc) => JSON.stringify(cc.status).includes(digest), 90_000);
    await waitForExtension(kube.client, pkg, 'installed the fixed bundle', installedAs(`${pkg}.v1.0.1`), 90_000);
    expect((await store.history(pkg)).map((r) => [r.revision, r.status])).toEqual([
      [2, 'deployed'],
      [1, 'failed'],
    ]);
  });
});
