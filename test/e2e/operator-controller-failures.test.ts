// operator-controller end to end, when things are not right: ambiguous catalogs, deprecations,
// a ServiceAccount without permissions or missing, a bundle the renderer refuses, one failing
// extension next to healthy ones, a catalog that stops offering the installed package, an
// upgrade the API server refuses (found by the dry run before anything is applied). Real API
// server, registry, catalogd and operator-controller, as in operator-controller-install.test.ts.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import type { KubeContext } from '../../pkg/shared/kube/index.ts';
import { createReleaseStore, releaseKey } from '../../pkg/operator-controller/release/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import { waitForEvent } from '../support/events.ts';
import { waitForCatalog } from '../support/catalogs.ts';
import {
  applyAsAdmin,
  bundleFiles,
  clusterExtension,
  installedAs,
  installerFor,
  objectExists,
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
import { expectSettled } from '../support/release-invariants.ts';

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

/** The envtest kubectl as the admin; resolves with its stdout. */
function kubectl(args: readonly string[]): Promise<string> {
  const cp = inject('envtestControlPlane');
  return new Promise((resolve, reject) => {
    execFile(cp.kubectl, ['--kubeconfig', cp.kubeconfigPath, ...args], (err, stdout, stderr) =>
      err === null ? resolve(stdout) : reject(new Error(`kubectl ${args.join(' ')}: ${stderr}`, { cause: err })),
    );
  });
}

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

  it("says which packages exist when the package name has a typo, and the package's channels for a wrong channel", async () => {
    const pkg = `typo-${run}`;
    const spec = { pkg, version: '1.0.0' };
    await namespace(pkg);
    await applyAsAdmin(kube.client, await rbacFor(bundleFiles(spec), pkg, 'installer'));
    const catalog = `typo-${run}`;
    await publishCatalog(catalog, oneVersion(pkg, await image(spec)));
    const selector = { matchLabels: { 'olm.operatorframework.io/metadata.name': catalog } };
    const typo = `${pkg}x`;
    await kube.client.create(clusterExtension(typo, { namespace: pkg, serviceAccount: 'installer', packageName: typo, selector }));
    const ext = await waitForExtension(kube.client, typo, 'not found', (e) => (e.cond('Progressing')?.message ?? '').includes('no bundles found'));
    expect(ext.cond('Progressing')?.message).toBe(`no bundles found for package "${typo}"`);
    const typoEvent = await waitForEvent(kube.client, 'ClusterExtension', typo, 'ResolutionFailed');
    expect(typoEvent).toMatchObject({
      type: 'Warning',
      note: `no bundles found for package "${typo}"\nthe selected catalogs have no package "${typo}"; packages with similar names: "${pkg}"`,
    });
    const channel = `${pkg}-channel`;
    await kube.client.create(
      clusterExtension(channel, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, channels: ['stabel'], selector }),
    );
    const wrong = await waitForExtension(kube.client, channel, 'not found', (e) =>
      (e.cond('Progressing')?.message ?? '').includes('no bundles found'),
    );
    expect(wrong.cond('Progressing')?.message).toBe(`no bundles found for package "${pkg}" in channels [stabel]`);
    const channelEvent = await waitForEvent(kube.client, 'ClusterExtension', channel, 'ResolutionFailed');
    expect(channelEvent).toMatchObject({
      type: 'Warning',
      note: `no bundles found for package "${pkg}" in channels [stabel]\npackage "${pkg}" has no channel "stabel"; its channels: "stable" (default "stable")`,
    });
  });

  it('lists every missing permission in one message and installs by itself once they are granted', async () => {
    const pkg = `locked-${run}`;
    const spec = { pkg, version: '1.0.0', configMaps: ['settings'] };
    await namespace(pkg);
    const img = await image(spec);
    await publishCatalog(`locked-${run}`, oneVersion(pkg, img));
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    const noSa = await waitForExtension(kube.client, pkg, 'missing service account', (e) =>
      (e.cond('Progressing')?.message ?? '').includes('not found'),
    );
    // Upstream v1.10's message exactly; the commands that create it are in a Warning Event.
    expect(noSa.cond('Progressing')?.message).toBe(
      `operation cannot proceed due to the following validation error(s): service account "installer" not found in namespace "${pkg}"`,
    );
    const noSaEvent = await waitForEvent(kube.client, 'ClusterExtension', pkg, 'InstallerMissing');
    expect(noSaEvent.note).toBe(
      `service account "installer" not found in namespace "${pkg}"\ncreate it (kubectl create serviceaccount installer -n ${pkg}) and grant it the RBAC that "olmv1 rbac" prints`,
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
    // Upstream's text exactly: nothing after the permissions; the command that prints the RBAC is in the Event.
    expect(message).not.toContain('olmv1 rbac');
    const deniedEvent = await waitForEvent(kube.client, 'ClusterExtension', pkg, 'PreAuthorizationFailed');
    expect(deniedEvent.note).toContain(`olmv1 rbac ${img} --install-namespace ${pkg} --service-account installer`);
    // Nothing was applied.
    const cms = await kube.client.list(
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { namespace: pkg, labelSelector: `olm.operatorframework.io/owner-name=${pkg}` },
    );
    expect(cms.items).toEqual([]);
    // kubectl shows the reason at a glance, and the message with -o wide.
    const wide = await kubectl(['get', 'clusterextension', pkg, '-o', 'wide']);
    expect(wide.split('\n')[0]).toMatch(/PROGRESSING\s+REASON\s+MESSAGE\s+AGE/);
    expect(wide.split('\n')[1]).toMatch(/\sRetrying\s+error for resolved bundle .*pre-authorization failed/);
    await applyAsAdmin(kube.client, await rbacFor(bundleFiles(spec), pkg, 'installer'));
    await waitForExtension(kube.client, pkg, 'installed after the grant', installedAs(`${pkg}.v1.0.0`), 30_000);
    expect((await kubectl(['get', 'clusterextension', pkg])).split('\n')[1]).toMatch(/\sTrue\s+True\s+Succeeded\s/);
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
    await Promise.all(healthy.map((pkg) => waitForExtension(kube.client, pkg, 'installed', installedAs(`${pkg}.v1.0.0`))));
    const ext = await waitForExtension(kube.client, broken, 'refused', (e) => (e.cond('Progressing')?.message ?? '').includes('watchNamespace'));
    const upstream = 'invalid ClusterExtension configuration: invalid configuration: required field "watchNamespace" is missing';
    expect(ext.cond('Progressing')).toMatchObject({
      status: 'False',
      reason: 'InvalidConfiguration',
      message: `error for resolved bundle "${broken}.v1.0.0" with version "1.0.0": ${upstream}`,
    });
    // What to set is in a Warning Event.
    const hint = await waitForEvent(kube.client, 'ClusterExtension', broken, 'WatchNamespaceRequired');
    expect(hint.note).toBe(
      `${upstream}\nthe bundle supports only the OwnNamespace install mode: set spec.config.inline.watchNamespace: ${broken}, the install namespace`,
    );
  });

  it('keeps an extension whose ServiceAccount lost its permissions until the orphan annotation lets it go', async () => {
    const pkg = `orphan-${run}`;
    const spec = { pkg, version: '1.0.0', configMaps: ['settings'] };
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    const noNs = await waitForExtension(kube.client, pkg, 'missing namespace', (e) => (e.cond('Progressing')?.message ?? '').includes('not found'));
    expect(noNs.cond('Progressing')?.message).toBe(
      `operation cannot proceed due to the following validation error(s): service account "installer" not found in namespace "${pkg}"`,
    );
    const noNsEvent = await waitForEvent(kube.client, 'ClusterExtension', pkg, 'InstallerMissing');
    expect(noNsEvent.note).toContain(`namespace "${pkg}" not found: create it (kubectl create namespace ${pkg})`);
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

  it('deletes an extension whose ServiceAccount never existed, with or without the orphan annotation (issue 69)', async () => {
    const names = [`ghost-${run}`, `ghost-orphan-${run}`];
    await namespace(names[0]!);
    for (const name of names) {
      const ce = clusterExtension(name, { namespace: names[0]!, serviceAccount: 'never-created', packageName: name });
      if (name === names[1]) ce.metadata.annotations = { 'olm.operatorframework.io/orphan-objects': 'true' };
      await kube.client.create(ce);
    }
    // Its finalizers are on once the installer is found missing.
    for (const name of names) {
      await waitForExtension(kube.client, name, 'missing service account', (e) => (e.cond('Progressing')?.message ?? '').includes('not found'));
    }
    for (const name of names) await kube.client.delete({ ...CE, name });
    // Before, the uninstall finalizer failed on the missing ServiceAccount, the annotation's too.
    await waitUntil('both deleted', async () => !(await exists({ ...CE, name: names[0]! })) && !(await exists({ ...CE, name: names[1]! })), 30_000);
  });

  it("admits upstream's YAML without a serviceAccount and, with no default install ServiceAccount, says both ways out", async () => {
    const pkg = `nosa-${run}`;
    await namespace(pkg);
    const ce = clusterExtension(pkg, { namespace: pkg, serviceAccount: 'unused', packageName: pkg });
    delete (ce.spec as { serviceAccount?: unknown }).serviceAccount;
    await kube.client.create(ce);
    const ext = await waitForExtension(kube.client, pkg, 'blocked', (e) => e.cond('Progressing')?.reason === 'Blocked');
    expect(ext.cond('Progressing')).toMatchObject({
      status: 'True',
      message:
        'operation cannot proceed due to the following validation error(s): spec.serviceAccount is not set and operator-controller has no default install service account: ' +
        `set spec.serviceAccount.name to a ServiceAccount in namespace "${pkg}" with the RBAC that "olmv1 rbac" prints, ` +
        'or deploy operator-controller with --default-install-service-account NAMESPACE/NAME (the config/default-installer component)',
    });
    await kube.client.delete({ ...CE, name: pkg });
    await waitUntil('deleted', async () => !(await exists({ ...CE, name: pkg })), 30_000);
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
    const failed = await waitForExtension(kube.client, pkg, 'apply refused', (e) => (e.cond('Progressing')?.message ?? '').includes('is invalid'));
    expect(failed.cond('Progressing')?.reason).toBe('Retrying');
    expect(failed.cond('Progressing')?.message).toBe(
      `error for resolved bundle "${pkg}.v1.0.0" with version "1.0.0": failed to get release state using server-side dry-run: Service "${pkg}-metrics" is invalid: spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive`,
    );
    expect(failed.cond('Installed')).toMatchObject({ status: 'False', message: 'No bundle installed' });
    const store = createReleaseStore({ client: kube.client, namespace: 'olmv1-system' });
    const [first] = await store.history(pkg);
    expect(first).toMatchObject({ revision: 1, status: 'failed' });
    expect(first?.description).toContain(`Release "${pkg}" failed: failed to get release state using server-side dry-run: Service`);

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

const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };
const CC = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog' };
const cm = (pkg: string, name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: pkg, name: `${pkg}-${name}` });
const exists = (ref: { apiVersion: string; kind: string; name: string; namespace?: string }): Promise<boolean> => objectExists(kube.client, ref);

/** Deletes a managed ConfigMap and waits until it is back (drift repair). */
async function expectRepaired(pkg: string, name: string): Promise<void> {
  await kube.client.delete(cm(pkg, name));
  await waitUntil(`${pkg}-${name} is put back`, () => exists(cm(pkg, name)), 60_000);
}

async function setVersion(pkg: string, version: string | null): Promise<void> {
  await kube.client.patch({ ...CE, name: pkg }, { spec: { source: { catalog: { version } } } }, 'merge');
}

/** Pushes `specs` and grants the package's installer what each needs; returns the images by version. */
async function preparePackage(pkg: string, specs: BundleSpec[]): Promise<Record<string, string>> {
  const images: Record<string, string> = {};
  for (const s of specs) images[s.version] = await image(s);
  await installerFor(kube.client, pkg, 'installer', specs);
  return images;
}

function chain(pkg: string, images: Record<string, string>, entries: { version: string; replaces?: string; skips?: string[] }[]) {
  return packageCatalog(pkg, {
    defaultChannel: 'stable',
    channels: [{ name: 'stable', entries }],
    bundles: entries.map((e) => ({ version: e.version, image: images[e.version] ?? '' })),
  });
}

async function install(pkg: string, catalog: string, files: Record<string, string>, version: string): Promise<void> {
  await publishCatalog(catalog, files);
  await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
  await waitForExtension(kube.client, pkg, `installed ${version}`, installedAs(`${pkg}.v${version}`));
}

/**
 * Installed=True at `version`, Progressing Retrying for the current generation with exactly
 * `message` as its first line (upstream's; what the catalogs offer follows).
 */
async function expectKeptWith(pkg: string, version: string, message: string): Promise<void> {
  const ext = await waitForExtension(
    kube.client,
    pkg,
    `retrying with ${message}`,
    (e) => e.cond('Progressing')?.message.split('\n')[0] === message && e.cond('Progressing')?.observedGeneration === e.obj.metadata.generation,
  );
  expect(ext.cond('Progressing')?.reason).toBe('Retrying');
  expect(ext.cond('Installed')).toMatchObject({ status: 'True', reason: 'Succeeded' });
  expect(ext.install?.bundle.version).toBe(version);
}

describe('operator-controller when catalogs fail', () => {
  it('keeps an extension installed and repaired while its catalog is Unavailable or lacks the package', async () => {
    const pkg = `unserved-${run}`;
    const other = `other-${run}`;
    const images = await preparePackage(pkg, [{ pkg, version: '1.0.0', configMaps: ['settings'] }]);
    const otherImages = await preparePackage(other, [{ pkg: other, version: '1.0.0' }]);
    const catalog = `unserved-${run}`;
    const files = chain(pkg, images, [{ version: '1.0.0' }]);
    await install(pkg, catalog, files, '1.0.0');
    const notFound = `error upgrading from currently installed version "1.0.0": no bundles found for package "${pkg}"`;

    // Unavailable: resolution skips the catalog; the installed bundle stays applied.
    await kube.client.patch({ ...CC, name: catalog }, { spec: { availabilityMode: 'Unavailable' } }, 'merge');
    await expectKeptWith(pkg, '1.0.0', notFound);
    await expectRepaired(pkg, 'settings');
    await setVersion(pkg, '1.0.1');
    await expectKeptWith(pkg, '1.0.0', `${notFound} matching version "1.0.1"`);
    await setVersion(pkg, null);
    await kube.client.patch({ ...CC, name: catalog }, { spec: { availabilityMode: 'Available' } }, 'merge');
    await waitForExtension(kube.client, pkg, 'Succeeded once available', installedAs(`${pkg}.v1.0.0`));

    // New content without the package.
    await publishCatalog(catalog, chain(other, otherImages, [{ version: '1.0.0' }]));
    await expectKeptWith(pkg, '1.0.0', notFound);
    await expectRepaired(pkg, 'settings');
    await publishCatalog(catalog, files);
    await waitForExtension(kube.client, pkg, 'Succeeded once offered again', installedAs(`${pkg}.v1.0.0`));
    await expectSettled(kube.client, pkg, [[1, 'deployed']]);
  });
});

describe('operator-controller when the API server refuses an upgrade', () => {
  it('records it failed with nothing applied, leaves the deployed objects, retries the same revision, and a fixed catalog clears it', async () => {
    const pkg = `halfway-${run}`;
    const v100: BundleSpec = { pkg, version: '1.0.0', configMaps: ['settings', 'legacy'] };
    const v200: BundleSpec = { pkg, version: '2.0.0', configMaps: ['settings', 'extra'], invalidService: true };
    const v201: BundleSpec = { pkg, version: '2.0.1', configMaps: ['settings'] };
    const images = await preparePackage(pkg, [v100, v200, v201]);
    const catalog = `halfway-${run}`;
    await install(pkg, catalog, chain(pkg, images, [{ version: '1.0.0' }]), '1.0.0');

    await publishCatalog(catalog, chain(pkg, images, [{ version: '1.0.0' }, { version: '2.0.0', replaces: '1.0.0' }]));
    const refused = `error for resolved bundle "${pkg}.v2.0.0" with version "2.0.0": failed to get release state using server-side dry-run: Service "${pkg}-metrics" is invalid: spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive`;
    const ext = await waitForExtension(kube.client, pkg, 'upgrade refused', (e) => e.cond('Progressing')?.message === refused);
    expect(ext.cond('Progressing')?.reason).toBe('Retrying');
    expect(ext.cond('Installed')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    expect(ext.install?.bundle.version).toBe('1.0.0');
    const store = createReleaseStore({ client: kube.client, namespace: 'olmv1-system' });
    const history = await store.history(pkg);
    expect(history.map((r) => [r.revision, r.status])).toEqual([
      [2, 'failed'],
      [1, 'deployed'],
    ]);
    expect(history[0]?.description).toBe(`Upgrade "${pkg}" failed: ${refused.slice(refused.indexOf('failed to get release state'))}`);
    // The deployed revision's objects stay: nothing it has is deleted, its Deployment is not touched.
    expect(await exists(cm(pkg, 'legacy'))).toBe(true);
    // The dry run found the refused Service before the first write: nothing of 2.0.0 was applied.
    expect(await exists(cm(pkg, 'extra'))).toBe(false);
    const deploy = await kube.client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: pkg, name: `${pkg}-controller` });
    expect(JSON.stringify(deploy.spec)).toContain(`registry.invalid/${pkg}:v1.0.0`);

    // Retried with backoff: the failed revision is rewritten, never a new one.
    const index = { apiVersion: 'v1', kind: 'Secret', namespace: 'olmv1-system', name: releaseKey(pkg, 2) };
    const before = (await kube.client.get(index)).metadata.resourceVersion;
    await waitUntil('a retry rewrites revision 2', async () => (await kube.client.get(index)).metadata.resourceVersion !== before, 60_000);
    expect((await store.history(pkg)).map((r) => r.revision)).toEqual([2, 1]);

    // 2.0.1 replaces 1.0.0 and skips the broken 2.0.0.
    const fixed = chain(pkg, images, [
      { version: '1.0.0' },
      { version: '2.0.0', replaces: '1.0.0' },
      { version: '2.0.1', replaces: '1.0.0', skips: ['2.0.0'] },
    ]);
    const digest = await pushCatalogFiles(fixed, `${registry}/catalogs/${catalog}:latest`);
    await waitForCatalog(kube.client, catalog, (cc) => JSON.stringify(cc.status).includes(digest), 90_000);
    await waitForExtension(kube.client, pkg, 'installed the fixed bundle', installedAs(`${pkg}.v2.0.1`), 90_000);
    await expectSettled(kube.client, pkg, [
      [3, 'deployed'],
      [2, 'failed'],
      [1, 'superseded'],
    ]);
    // What 1.0.0 had is gone with the upgrade.
    expect(await exists(cm(pkg, 'legacy'))).toBe(false);
    expect(await exists(cm(pkg, 'extra'))).toBe(false);
  });
});
