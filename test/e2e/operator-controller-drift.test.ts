// operator-controller drift repair end to end: real kube-apiserver + etcd, registries, catalogd and
// operator-controller in this process. Managed objects are deleted and edited as users and other
// controllers do; the extension's drift watches (as its ServiceAccount) must bring the reconcile
// back, which restores what operator-controller applied and leaves what others own, also while
// the bundle's registry is down or its catalog deleted.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { isNotFound, type KubeContext, type KubeObject, type ObjectRef } from '../../pkg/shared/kube/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import {
  bundleFiles,
  clusterExtension,
  installedAs,
  installerFor,
  packageCatalog,
  publishCatalog,
  pushBundle,
  requestRefusedVersion,
  startExtensionStack,
  waitForExtension,
  type BundleSpec,
  type ExtensionStack,
} from '../support/extensions.ts';
import { readMetric, startOperatorController, type TestOperatorController } from '../support/operator-controller.ts';
import { startRegistry, type Registry } from '../envtest/index.ts';

const run = randomBytes(3).toString('hex');
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };
const WATCHES = 'operator_controller_drift_watches';
let stack: ExtensionStack;
let kube: KubeContext;
// The operator-controller under test; restarts replace it.
let controller: TestOperatorController;
// A registry of this file's own, for the bundle whose registry goes down.
let privateRegistry: Registry;

// Extensions a and b come from catalog `drift-<run>`; c and d (whose bundle image is on the
// private registry) from catalog `outage-<run>`, which they alone select. Every Deployment
// leaves `replicas` to an autoscaler.
const spec = (name: string): BundleSpec => ({ pkg: `drift-${name}-${run}`, version: '1.0.0', configMaps: ['settings'], omitReplicas: true });
const [a, b, c, d] = [spec('a'), spec('b'), spec('c'), spec('d')] as [BundleSpec, BundleSpec, BundleSpec, BundleSpec];
const OUTAGE_CATALOG = `outage-${run}`;

const deployment = (pkg: string): ObjectRef => ({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: pkg, name: `${pkg}-controller` });
const settings = (pkg: string): ObjectRef => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: pkg, name: `${pkg}-settings` });

/** Pushes each bundle to its registry, grants its installer, and publishes them as one catalog. */
async function publish(catalog: string, bundles: [BundleSpec, string][]): Promise<void> {
  let files: Record<string, string> = {};
  for (const [spec, registry] of bundles) {
    const image = await pushBundle(bundleFiles(spec), `${registry}/bundles/${spec.pkg}:v${spec.version}`);
    await installerFor(kube.client, spec.pkg, 'installer', [spec]);
    const channels = [{ name: 'stable', entries: [{ version: spec.version }] }];
    files = { ...files, ...packageCatalog(spec.pkg, { defaultChannel: 'stable', channels, bundles: [{ version: spec.version, image }] }) };
  }
  await publishCatalog(stack, catalog, files);
}

beforeAll(async () => {
  stack = await startExtensionStack(inject('envtestControlPlane'), inject('envtestRegistries').anonymous.host);
  ({ kube, controller } = stack);
  privateRegistry = await startRegistry({ binaries: inject('envtestBinaries') });
  await publish(`drift-${run}`, [
    [a, stack.registry],
    [b, stack.registry],
  ]);
  await publish(OUTAGE_CATALOG, [
    [c, stack.registry],
    [d, privateRegistry.host],
  ]);
  const outage = { matchLabels: { 'olm.operatorframework.io/metadata.name': OUTAGE_CATALOG } };
  for (const spec of [a, b, c, d]) {
    const selector = spec === c || spec === d ? { selector: outage } : {};
    await kube.client.create(clusterExtension(spec.pkg, { namespace: spec.pkg, serviceAccount: 'installer', packageName: spec.pkg, ...selector }));
  }
  for (const spec of [a, b, c, d]) await waitForExtension(kube.client, spec.pkg, 'installed', installedAs(`${spec.pkg}.v1.0.0`));
});

afterAll(async () => {
  if (controller !== stack?.controller) await controller?.destroy();
  await stack?.stop();
  await privateRegistry?.stop();
});

/** Stops the operator-controller under test and starts a new one (another cache directory). */
async function restartController(): Promise<void> {
  await controller.destroy();
  controller = await startOperatorController(stack.cp);
}

async function get(ref: ObjectRef): Promise<KubeObject | undefined> {
  return kube.client.get(ref).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
}

const metric = (name: string, labels: Record<string, string> = {}): Promise<number> => readMetric(controller.healthUrl, name, labels);

/** Cluster-scoped kinds watched once for all extensions (decision 0109): operator-controller runs as the admin here. */
const SHARED = new Set([
  'apiextensions.k8s.io/customresourcedefinitions',
  'rbac.authorization.k8s.io/clusterroles',
  'rbac.authorization.k8s.io/clusterrolebindings',
]);

/**
 * The drift watches the deployed release of `pkg` needs: its own, one per resource and namespace
 * as its ServiceAccount, and the shared kinds it has objects of.
 */
async function watchTargets(pkg: string): Promise<{ own: number; shared: Set<string> }> {
  const [release] = await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(pkg);
  const own = new Set<string>();
  const shared = new Set<string>();
  for (const obj of release?.manifest.objects() ?? []) {
    const info = await kube.client.resourceFor(obj);
    const kind = `${info.group}/${info.resource}`;
    if (!info.namespaced && SHARED.has(kind)) shared.add(kind);
    else own.add(`${kind}/${info.namespaced ? (obj.metadata.namespace ?? pkg) : ''}`);
  }
  return { own: own.size, shared };
}

/** The drift watches the extensions `pkgs` need together: their own, and one per shared kind any of them uses. */
async function watchesOf(pkgs: readonly string[]): Promise<number> {
  let own = 0;
  const shared = new Set<string>();
  for (const pkg of pkgs) {
    const t = await watchTargets(pkg);
    own += t.own;
    for (const kind of t.shared) shared.add(kind);
  }
  return own + shared.size;
}

/** Waits until the drift watches of every extension of this file run (as the first test checks). */
async function watchesRunning(): Promise<void> {
  const expected = await watchesOf([a, b, c, d].map((s) => s.pkg));
  await waitUntil(`${expected} drift watches running`, async () => (await metric(WATCHES)) === expected);
}

/** Resource versions of every object the deployed release of `pkg` holds. */
async function releaseVersions(pkg: string): Promise<Record<string, string | undefined>> {
  const [release] = await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(pkg);
  const out: Record<string, string | undefined> = {};
  for (const obj of release?.manifest.objects() ?? []) {
    const ref = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? '', namespace: obj.metadata.namespace };
    out[`${obj.kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`] = (await get(ref))?.metadata.resourceVersion;
  }
  return out;
}

/**
 * Changes the catalog selector of extension `pkg` to `selector` (the same catalog, so the same
 * release) and waits until the reconcile of that generation has finished.
 */
async function reselect(pkg: string, selector: object): Promise<void> {
  const updated = await kube.client.patch({ ...CE, name: pkg }, { spec: { source: { catalog: { selector } } } }, 'merge');
  await waitForExtension(
    kube.client,
    pkg,
    `generation ${updated.metadata.generation} reconciled`,
    (e) => installedAs(`${pkg}.v1.0.0`)(e) && e.cond('Progressing')?.observedGeneration === updated.metadata.generation,
  );
}

/** Deletes `ref` and waits until it exists again as a new object (another uid). */
async function expectRecreated(ref: ObjectRef): Promise<KubeObject> {
  const before = await get(ref);
  expect(before).toBeDefined();
  await kube.client.delete(ref);
  let after: KubeObject | undefined;
  await waitUntil(`${ref.kind} ${ref.name} put back`, async () => {
    after = await get(ref);
    return after !== undefined && after.metadata.uid !== before?.metadata.uid;
  });
  return after as KubeObject;
}

const data = (cm: KubeObject | undefined): Record<string, string> | undefined => cm?.['data'] as Record<string, string> | undefined;
const image = (d: KubeObject | undefined): string | undefined =>
  (d?.spec as { template: { spec: { containers: { image: string }[] } } } | undefined)?.template.spec.containers[0]?.image;

describe('drift repair', () => {
  it('watches each namespaced resource of every release as its ServiceAccount, and each cluster-scoped kind once for all', async () => {
    const targets = await Promise.all([a, b, c, d].map((s) => watchTargets(s.pkg)));
    // Namespaced (Deployment, ConfigMap, ServiceAccount) kinds per extension; the cluster-scoped
    // ones (CRD, ClusterRole, ClusterRoleBinding) shared.
    for (const t of targets) {
      expect(t.own).toBeGreaterThanOrEqual(3);
      expect(t.shared).toEqual(SHARED);
    }
    const expected = await watchesOf([a, b, c, d].map((s) => s.pkg));
    expect(expected).toBe(targets.reduce((n, t) => n + t.own, 0) + 3);
    await waitUntil('drift watches running', async () => (await metric(WATCHES)) === expected);
    // Not the per-ServiceAccount watches' list errors: an installer's first list can be refused
    // while its fresh RoleBinding reaches the authorizer's cache on a loaded machine (seen once),
    // and the watch retries; that they all run is the assertion above. The shared watches list as
    // operator-controller itself, whose rights are older than the run.
    expect(await metric('informer_list_errors_total', { name: 'drift-shared' })).toBe(0);
  });

  it('puts back a deleted ClusterRole and an edited ClusterRoleBinding through the shared watches, queueing only their owner', async () => {
    await watchesRunning();
    const [release] = await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(b.pkg);
    const objects = release?.manifest.objects() ?? [];
    const ref = (kind: string): ObjectRef => {
      const o = objects.find((x) => x.kind === kind);
      expect(o, `${kind} in the release of ${b.pkg}`).toBeDefined();
      return { apiVersion: 'rbac.authorization.k8s.io/v1', kind, name: o?.metadata.name ?? '' };
    };
    const drifts = (event: string): Promise<number> => metric('operator_controller_drift_events_total', { event });
    const [deletes, updates] = [await drifts('delete'), await drifts('update')];
    const role = await expectRecreated(ref('ClusterRole'));
    expect(role.metadata.labels?.['olm.operatorframework.io/owner-name']).toBe(b.pkg);
    const binding = ref('ClusterRoleBinding');
    const subjects = async (): Promise<string> => JSON.stringify((await get(binding))?.['subjects']);
    const before = await subjects();
    const intruder = { kind: 'User', name: 'intruder', apiGroup: 'rbac.authorization.k8s.io' };
    await kube.client.patch(binding, [{ op: 'add', path: '/subjects/-', value: intruder }], 'json', { fieldManager: 'e2e-user' });
    await waitUntil('binding subjects restored', async () => (await subjects()) === before);
    // One extension queued per change: the watch of all extensions' ClusterRoles handed each event to its owner alone.
    await waitUntil('the update counted', async () => (await drifts('update')) >= updates + 1);
    expect(await drifts('delete')).toBe(deletes + 1);
    expect(await drifts('update')).toBe(updates + 1);
  });

  it('puts back a deleted ConfigMap and Deployment within seconds', async () => {
    await watchesRunning();
    const deletes = await metric('operator_controller_drift_events_total', { event: 'delete' });
    const cm = await expectRecreated(settings(a.pkg));
    expect(data(cm)).toEqual({ version: '1.0.0' });
    const deploy = await expectRecreated(deployment(a.pkg));
    expect(image(deploy)).toBe(`registry.invalid/${a.pkg}:v1.0.0`);
    // A reconcile still running for the ConfigMap can put the Deployment back before the watch
    // delivers its delete event; the event still arrives and is counted.
    await waitUntil(
      'both delete events counted',
      async () => (await metric('operator_controller_drift_events_total', { event: 'delete' })) >= deletes + 2,
    );
  });

  it('puts back changed fields it applied: a ConfigMap data key, a container image', async () => {
    await watchesRunning();
    await kube.client.patch(settings(a.pkg), { data: { version: 'tampered', extra: 'kept' } }, 'merge', { fieldManager: 'e2e-user' });
    await kube.client.patch(
      deployment(a.pkg),
      [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'registry.invalid/tampered' }],
      'json',
      {
        fieldManager: 'e2e-user',
      },
    );
    await waitUntil('ConfigMap data restored', async () => data(await get(settings(a.pkg)))?.['version'] === '1.0.0');
    await waitUntil('container image restored', async () => image(await get(deployment(a.pkg))) === `registry.invalid/${a.pkg}:v1.0.0`);
    // A key only the user set is the user's: the repair leaves it.
    expect(data(await get(settings(a.pkg)))).toEqual({ version: '1.0.0', extra: 'kept' });
  });

  it('keeps what other managers own: a rollout restart, a user label, replicas set through the scale subresource', async () => {
    await watchesRunning();
    const restartedAt = new Date().toISOString();
    await kube.client.patch(
      deployment(a.pkg),
      { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': restartedAt } } } } },
      'strategic',
      {
        fieldManager: 'kubectl-rollout',
      },
    );
    await kube.client.patch(deployment(a.pkg), { metadata: { labels: { 'team.example/owner': 'payments' } } }, 'merge', { fieldManager: 'e2e-user' });
    await kube.client.patch(deployment(a.pkg), { spec: { replicas: 3 } }, 'merge', { fieldManager: 'e2e-autoscaler', subresource: 'scale' });
    // Then drift the controller must repair, so a reconcile provably ran after the edits above.
    await kube.client.patch(
      deployment(a.pkg),
      [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'registry.invalid/tampered' }],
      'json',
      {
        fieldManager: 'e2e-user',
      },
    );
    await waitUntil('container image restored', async () => image(await get(deployment(a.pkg))) === `registry.invalid/${a.pkg}:v1.0.0`);
    const d = (await get(deployment(a.pkg))) as KubeObject & {
      spec: { replicas: number; template: { metadata: { annotations?: Record<string, string> } } };
    };
    expect(d.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt']).toBe(restartedAt);
    expect(d.metadata.labels?.['team.example/owner']).toBe('payments');
    expect(d.spec.replicas).toBe(3);
  });

  it('does not loop on its own re-applies: an unchanged release writes nothing', async () => {
    await watchesRunning();
    // A spec change that selects the same catalog (so the same release) starts a reconcile,
    // which re-applies every object; once its generation is reconciled, whatever earlier edits
    // asked for is in place.
    const catalog = `drift-${run}`;
    await reselect(a.pkg, { matchLabels: { 'olm.operatorframework.io/metadata.name': catalog } });
    const before = await releaseVersions(a.pkg);
    const events = await metric('operator_controller_drift_events_total');
    // Another such change: its reconcile re-applies the same release, and its end (the
    // generation reconciled) comes after every write it made.
    await reselect(a.pkg, { matchExpressions: [{ key: 'olm.operatorframework.io/metadata.name', operator: 'In', values: [catalog] }] });
    expect(await releaseVersions(a.pkg)).toEqual(before);
    expect(await metric('operator_controller_drift_events_total')).toBe(events);
  });
});

describe('a drift watch the ServiceAccount may not open', () => {
  it('is retried with backoff and logged, while the extension other watches and other extensions are repaired', async () => {
    // Revoke b's list/watch of ConfigMaps, then restart the controller: its watches are opened anew.
    const roles = await kube.client.list({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' }, { namespace: b.pkg });
    for (const role of roles.items) {
      const rules = (role['rules'] ?? []) as { resources?: string[]; verbs: string[] }[];
      if (!rules.some((r) => r.verbs.includes('watch') && r.resources?.includes('configmaps'))) continue;
      role['rules'] = rules.map((r) => (r.verbs.includes('watch') ? { ...r, resources: r.resources?.filter((x) => x !== 'configmaps') } : r));
      await kube.client.update({ ...role, apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' });
    }
    await restartController();
    const refused = (): Promise<number> => metric('informer_list_errors_total', { name: 'drift' });
    await waitUntil('the configmaps watch refused', async () => (await refused()) >= 1, 30_000);
    const firstSeen = Date.now();
    // Retried with backoff (0.8 s doubling, plus jitter), not in a hot loop: two more refusals
    // than were counted when first seen (the first poll may come after several) take at least
    // the first two delays, 0.8 + 1.6 s (less the polling's lag).
    const seen = await refused();
    await waitUntil('two more refusals', async () => (await refused()) >= seen + 2, 60_000);
    expect(Date.now() - firstSeen).toBeGreaterThanOrEqual(2_400 - 1_000);
    await watchesRunning();
    await expectRecreated(deployment(b.pkg));
    await expectRecreated(settings(a.pkg));
    const ext = await waitForExtension(kube.client, b.pkg, 'still installed', installedAs(`${b.pkg}.v1.0.0`));
    expect(ext.cond('Installed')?.status).toBe('True');
  });
});

describe('outages', () => {
  it('repairs while the bundle registry is down: from the image cache, and after a restart from the release record', async () => {
    await watchesRunning();
    await privateRegistry.stop();
    await expectRecreated(settings(d.pkg));
    await restartController();
    await watchesRunning();
    await expectRecreated(deployment(d.pkg));
    const ext = await waitForExtension(kube.client, d.pkg, 'still installed', installedAs(`${d.pkg}.v1.0.0`));
    expect(ext.cond('Progressing')?.message).toBe('Desired state reached');
    const history = await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(d.pkg);
    expect(history.map((r) => [r.revision, r.status])).toEqual([[1, 'deployed']]);
  });

  it('repairs with its catalog deleted and blocks only a version change, with upstream message', async () => {
    await watchesRunning();
    await kube.client.delete({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: OUTAGE_CATALOG });
    await waitUntil(
      'catalog gone',
      async () => (await get({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: OUTAGE_CATALOG })) === undefined,
      60_000,
    );
    await expectRecreated(settings(c.pkg));
    await expectRecreated(deployment(c.pkg));
    const kept = await waitForExtension(kube.client, c.pkg, 'still installed', installedAs(`${c.pkg}.v1.0.0`));
    expect(kept.cond('Progressing')?.message).toBe('Desired state reached');
    const refused = await requestRefusedVersion(kube.client, c.pkg, '2.0.0');
    expect(refused.cond('Progressing')?.message.split('\n')[0]).toBe(
      `error upgrading from currently installed version "1.0.0": no bundles found for package "${c.pkg}" matching version "2.0.0"`,
    );
    expect(refused.cond('Installed')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    expect(refused.install?.bundle.version).toBe('1.0.0');
  });
});

describe('uninstall', () => {
  it('ends the extension watches', async () => {
    await watchesRunning();
    const left = [a, b, c, d].map((s) => s.pkg);
    expect(await metric(WATCHES)).toBe(await watchesOf(left));
    while (left.length > 0) {
      const pkg = left.shift() as string;
      // Counted before the uninstall deletes the release record.
      const after = await watchesOf(left);
      await kube.client.delete({ ...CE, name: pkg });
      await waitUntil(`${pkg} uninstalled`, async () => (await get({ ...CE, name: pkg })) === undefined, 60_000);
      expect(await metric(WATCHES)).toBe(after);
    }
    // The last uninstall stopped the shared watches too.
    expect(await metric(WATCHES)).toBe(0);
  });
});
