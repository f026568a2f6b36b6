// operator-controller drift repair end to end: real kube-apiserver + etcd, registry, catalogd and
// operator-controller in this process. Managed objects are deleted and edited as users and other
// controllers do; the extension's drift watches (as its ServiceAccount) must bring the reconcile
// back, which restores what operator-controller applied and leaves what others own.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLUSTER_EXTENSION } from '../../pkg/api/index.ts';
import { isNotFound, type KubeContext, type KubeObject, type ObjectRef } from '../../pkg/kube/index.ts';
import { createReleaseStore } from '../../pkg/release/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import {
  bundleFiles,
  clusterExtension,
  installedAs,
  installerFor,
  packageCatalog,
  publishCatalog,
  pushBundle,
  startExtensionStack,
  waitForExtension,
  type BundleSpec,
  type ExtensionStack,
} from '../support/extensions.ts';
import { readMetric, startOperatorController, type TestOperatorController } from '../support/operator-controller.ts';

const run = randomBytes(3).toString('hex');
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };
const WATCHES = 'operator_controller_drift_watches';
let stack: ExtensionStack;
let kube: KubeContext;
// The operator-controller under test; the forbidden-watch test replaces it with a restarted one.
let controller: TestOperatorController;

// Two extensions from one catalog: both Deployments leave `replicas` to an autoscaler.
const a: BundleSpec = { pkg: `drift-a-${run}`, version: '1.0.0', configMaps: ['settings'], omitReplicas: true };
const b: BundleSpec = { pkg: `drift-b-${run}`, version: '1.0.0', configMaps: ['settings'], omitReplicas: true };

const deployment = (pkg: string): ObjectRef => ({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: pkg, name: `${pkg}-controller` });
const settings = (pkg: string): ObjectRef => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: pkg, name: `${pkg}-settings` });

beforeAll(async () => {
  stack = await startExtensionStack(inject('envtestControlPlane'), inject('envtestRegistries').anonymous.host);
  ({ kube, controller } = stack);
  let files: Record<string, string> = {};
  for (const spec of [a, b]) {
    const image = await pushBundle(bundleFiles(spec), `${stack.registry}/bundles/${spec.pkg}:v${spec.version}`);
    await installerFor(kube.client, spec.pkg, 'installer', [spec]);
    files = {
      ...files,
      ...packageCatalog(spec.pkg, {
        defaultChannel: 'stable',
        channels: [{ name: 'stable', entries: [{ version: spec.version }] }],
        bundles: [{ version: spec.version, image }],
      }),
    };
  }
  await publishCatalog(stack, `drift-${run}`, files);
  for (const spec of [a, b])
    await kube.client.create(clusterExtension(spec.pkg, { namespace: spec.pkg, serviceAccount: 'installer', packageName: spec.pkg }));
  for (const spec of [a, b]) await waitForExtension(kube.client, spec.pkg, 'installed', installedAs(`${spec.pkg}.v1.0.0`));
});

afterAll(async () => {
  if (controller !== stack?.controller) await controller?.destroy();
  await stack?.stop();
});

async function get(ref: ObjectRef): Promise<KubeObject | undefined> {
  return kube.client.get(ref).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
}

const metric = (name: string, labels: Record<string, string> = {}): Promise<number> => readMetric(controller.healthUrl, name, labels);

/** Resources x namespaces the deployed release of `pkg` uses: the drift watches it needs. */
async function watchTargets(pkg: string): Promise<number> {
  const [release] = await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(pkg);
  const targets = new Set<string>();
  for (const obj of release?.manifest ?? []) {
    const info = await kube.client.resourceFor(obj);
    targets.add(`${info.group}/${info.resource}/${info.namespaced ? (obj.metadata.namespace ?? pkg) : ''}`);
  }
  return targets.size;
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
  it('watches each resource and namespace of every release as its ServiceAccount', async () => {
    const expected = (await watchTargets(a.pkg)) + (await watchTargets(b.pkg));
    // Cluster-scoped (CRD, ClusterRole, ClusterRoleBinding) and namespaced (Deployment, ConfigMap, ServiceAccount) kinds.
    expect(expected).toBeGreaterThanOrEqual(2 * 6);
    await waitUntil('drift watches running', async () => (await metric(WATCHES)) === expected);
    expect(await metric('informer_list_errors_total', { name: 'drift' })).toBe(0);
  });

  it('puts back a deleted ConfigMap and Deployment within seconds', async () => {
    const deletes = await metric('operator_controller_drift_events_total', { event: 'delete' });
    const cm = await expectRecreated(settings(a.pkg));
    expect(data(cm)).toEqual({ version: '1.0.0' });
    const deploy = await expectRecreated(deployment(a.pkg));
    expect(image(deploy)).toBe(`registry.invalid/${a.pkg}:v1.0.0`);
    expect(await metric('operator_controller_drift_events_total', { event: 'delete' })).toBeGreaterThanOrEqual(deletes + 2);
  });

  it('puts back changed fields it applied: a ConfigMap data key, a container image', async () => {
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
    const refs = [deployment(a.pkg), settings(a.pkg)];
    const versions = async (): Promise<(string | undefined)[]> => Promise.all(refs.map(async (r) => (await get(r))?.metadata.resourceVersion));
    // Let the repairs of the tests above settle.
    await sleep(2000);
    const before = await versions();
    const events = await metric('operator_controller_drift_events_total');
    const reconciles = await metric('controller_runtime_reconcile_total');
    // An annotation starts a reconcile of the extension, which re-applies every object.
    await kube.client.patch({ ...CE, name: a.pkg }, { metadata: { annotations: { 'e2e.test/poke': run } } }, 'merge');
    await waitUntil('the poke reconciled', async () => (await metric('controller_runtime_reconcile_total')) > reconciles);
    await sleep(3000);
    expect(await versions()).toEqual(before);
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
    await stack.controller.destroy();
    controller = await startOperatorController(stack.cp);
    await waitUntil('the configmaps watch refused', async () => (await metric('informer_list_errors_total', { name: 'drift' })) >= 1, 30_000);
    await sleep(8000);
    // 0.8 s doubling (with jitter): at most a handful of attempts in 8 s, not a hot loop.
    expect(await metric('informer_list_errors_total', { name: 'drift' })).toBeLessThanOrEqual(8);
    await expectRecreated(deployment(b.pkg));
    await expectRecreated(settings(a.pkg));
    const ext = await waitForExtension(kube.client, b.pkg, 'still installed', installedAs(`${b.pkg}.v1.0.0`));
    expect(ext.cond('Installed')?.status).toBe('True');
  });
});

describe('uninstall', () => {
  it('ends the extension watches', async () => {
    const all = await metric(WATCHES);
    const ofA = await watchTargets(a.pkg);
    expect(all).toBe(ofA + (await watchTargets(b.pkg)));
    await kube.client.delete({ ...CE, name: a.pkg });
    await waitUntil('a uninstalled', async () => (await get({ ...CE, name: a.pkg })) === undefined, 60_000);
    expect(await metric(WATCHES)).toBe(all - ofA);
    await kube.client.delete({ ...CE, name: b.pkg });
    await waitUntil('b uninstalled', async () => (await get({ ...CE, name: b.pkg })) === undefined, 60_000);
    expect(await metric(WATCHES)).toBe(0);
  });
});
