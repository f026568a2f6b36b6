// Migrating from upstream must not lose data, and deletion must never wedge (issue #42): upstream's Helm applier puts a
// controller owner reference to the ClusterExtension on every object it applies, CRDs included.
// With kube-controller-manager's garbage collector running (its own control plane: the shared
// one runs none), uninstalling an extension taken over from upstream keeps its CRDs and the
// users' custom resources, as this project promises; so does the orphan annotation when the
// extension's release record is corrupt, and deletion then never wedges: the finalizer's
// message names the record, and the annotation lets go.
//
// When the garbage collector has acted: a sentinel ConfigMap that points at the ClusterExtension
// (as upstream's objects do) is deleted by it once the extension is gone; the CRD and the custom
// resource are checked after that.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../pkg/olmv1/localstack/index.ts';
import { ORPHAN_OBJECTS_ANNOTATION } from '../../pkg/shared/api/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { refOf, waitForCrdsEstablished } from '../support/bundle-flow.ts';
import {
  bundleFiles,
  clusterExtension,
  groupOf,
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
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { CE_TYPE, handOver, installAsUpstream } from '../support/upstream-takeover.ts';

const run = randomBytes(3).toString('hex');
let cp: ControlPlane;
let stack: ExtensionStack;

beforeAll(async () => {
  cp = await startControlPlane({ binaries: inject('envtestBinaries'), controllerManager: true });
  stack = await startExtensionStack(cp.info, inject('envtestRegistries').anonymous.host);
  await untilCollectorFollowsExtensions(stack.kube.client);
}, 180_000);

/**
 * The garbage collector notices a new resource (ClusterExtension, whose CRD the stack installs
 * after kube-controller-manager started) only at its next discovery, every 30 s; an owner deleted
 * before then leaves its dependents behind. Probes until a dependent of a deleted probe
 * extension is collected.
 */
async function untilCollectorFollowsExtensions(client: KubeClient): Promise<void> {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `gc-probe-${run}` } });
  for (let attempt = 1; ; attempt++) {
    const name = `gc-probe-${run}-${attempt}`;
    const ce = await client.create({
      ...CE_TYPE,
      metadata: { name },
      spec: { namespace: `gc-probe-${run}`, source: { sourceType: 'Catalog', catalog: { packageName: name } } },
    });
    const dependent = await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: `gc-probe-${run}`, ownerReferences: [{ ...CE_TYPE, name, uid: ce.metadata.uid ?? '' }] },
    });
    await client.delete({ ...CE_TYPE, name });
    try {
      await vi.waitFor(
        async () => {
          if (!(await gone(client, dependent))) throw new Error(`ConfigMap ${name} not collected after its ClusterExtension was deleted`);
        },
        { timeout: 8_000, interval: 250 },
      );
      return;
    } catch (err) {
      if (attempt >= 12) throw err;
    }
  }
}

afterAll(async () => {
  await stack?.stop();
  await cp?.stop();
});

async function gone(client: KubeClient, obj: KubeObject): Promise<boolean> {
  return client.get(refOf(obj)).then(
    () => false,
    (err: unknown) => {
      if (isNotFound(err)) return true;
      throw err;
    },
  );
}

/** The package's bundle pushed and offered by its own catalog; its installer ServiceAccount holds `olmv1 rbac`'s grants. */
async function offer(pkg: string): Promise<{ spec: BundleSpec; image: string }> {
  const spec: BundleSpec = { pkg, version: '1.0.0', configMaps: ['settings'] };
  await installerFor(stack.kube.client, pkg, 'installer', [spec]);
  const image = await pushBundle(bundleFiles(spec), `${stack.registry}/bundles/${pkg}:v1.0.0`);
  const bundles = [{ version: '1.0.0', image }];
  await publishCatalog(
    stack,
    pkg,
    packageCatalog(pkg, { defaultChannel: 'stable', channels: [{ name: 'stable', entries: [{ version: '1.0.0' }] }], bundles }),
  );
  return { spec, image };
}

/** A user's custom resource of the package's CRD, and a sentinel the garbage collector deletes with the extension. */
async function userData(client: KubeClient, pkg: string, ext: { name: string; uid: string }): Promise<{ cr: KubeObject; sentinel: KubeObject }> {
  const cr = await client.create({
    apiVersion: `${groupOf(pkg)}/v1`,
    kind: 'Widget',
    metadata: { name: 'precious', namespace: pkg },
    spec: { size: 7 },
  });
  const sentinel = await client.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'gc-sentinel',
      namespace: pkg,
      ownerReferences: [{ ...CE_TYPE, name: ext.name, uid: ext.uid, controller: true, blockOwnerDeletion: true }],
    },
  });
  return { cr, sentinel };
}

/** Waits until the ClusterExtension is gone and the garbage collector has deleted its dependents. */
async function collected(client: KubeClient, name: string, sentinel: KubeObject): Promise<void> {
  await expect.poll(() => gone(client, { ...CE_TYPE, metadata: { name } }), { timeout: 60_000, interval: 200 }).toBe(true);
  await expect.poll(() => gone(client, sentinel), { timeout: 60_000, interval: 200 }).toBe(true);
}

describe('uninstalling an extension taken over from upstream, with the garbage collector running', () => {
  it("keeps its CRD and custom resources: upstream's owner references are gone before it can be deleted", async () => {
    const client = stack.kube.client;
    const pkg = `gc-taken-${run}`;
    const { spec, image } = await offer(pkg);
    const { uid, objects } = await installAsUpstream(client, spec, image, { serviceAccount: 'installer', nothing: `none-${run}` });
    const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
    expect(crds).toHaveLength(1);
    await waitForCrdsEstablished(client, crds);
    const { cr, sentinel } = await userData(client, pkg, { name: pkg, uid });

    await handOver(client, pkg, pkg);
    await waitForExtension(client, pkg, 'installed, taken over', installedAs(`${pkg}.v1.0.0`), 90_000);
    // Taken over once our first revision is deployed (upstream's record stands for it until then).
    const store = createReleaseStore({ client, namespace: 'olmv1-system' });
    await expect
      .poll(async () => (await store.history(pkg)).map((r) => [r.revision, r.status]), { timeout: 90_000 })
      .toEqual([
        [2, 'deployed'],
        [1, 'superseded'],
      ]);

    await client.delete({ ...CE_TYPE, name: pkg });
    await collected(client, pkg, sentinel);
    const crd = await client.get(refOf(crds[0]!));
    expect(crd.metadata.deletionTimestamp).toBeUndefined();
    expect(crd.metadata.ownerReferences ?? []).toEqual([]);
    const kept = await client.get(refOf(cr));
    expect(kept.metadata.uid).toBe(cr.metadata.uid);
    expect(kept['spec']).toEqual({ size: 7 });
    // The rest of the release was uninstalled by us, as the extension's ServiceAccount.
    const deployment = objects.find((o) => o.kind === 'Deployment');
    expect(deployment).toBeDefined();
    expect(await gone(client, deployment!)).toBe(true);
  });

  it('with a corrupt release record: deletion names the record, and the orphan annotation lets go keeping the CRD and custom resources', async () => {
    const client = stack.kube.client;
    const pkg = `gc-corrupt-${run}`;
    const { spec, image } = await offer(pkg);
    const { uid, objects } = await installAsUpstream(client, spec, image, {
      serviceAccount: 'installer',
      nothing: `none-${run}`,
      corruptRecord: true,
    });
    const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
    await waitForCrdsEstablished(client, crds);
    const { cr, sentinel } = await userData(client, pkg, { name: pkg, uid });
    await handOver(client, pkg, pkg);
    await waitForExtension(client, pkg, 'the record reported corrupt', (e) => /is corrupt/.test(e.cond('Installed')?.message ?? ''), 60_000);

    await client.delete({ ...CE_TYPE, name: pkg });
    const stuck = await waitForExtension(
      client,
      pkg,
      'the uninstall stopped by the corrupt record',
      (e) => /finalizer "olm.operatorframework.io\/uninstall" failed: release record .* is corrupt/.test(e.cond('Progressing')?.message ?? ''),
      60_000,
    );
    const message = stuck.cond('Progressing')?.message ?? '';
    expect(message).toContain(`${ORPHAN_OBJECTS_ANNOTATION}=true`);
    expect(message).not.toContain('must be able to delete');

    await client.patch({ ...CE_TYPE, name: pkg }, { metadata: { annotations: { [ORPHAN_OBJECTS_ANNOTATION]: 'true' } } }, 'merge');
    await collected(client, pkg, sentinel);
    const crd = await client.get(refOf(crds[0]!));
    expect(crd.metadata.deletionTimestamp).toBeUndefined();
    expect(crd.metadata.ownerReferences ?? []).toEqual([]);
    expect((await client.get(refOf(cr))).metadata.uid).toBe(cr.metadata.uid);
  });
});

describe('deleting an extension never wedges', () => {
  it('on an object whose kind the cluster no longer serves: the uninstall skips it and deletes the rest', async () => {
    const client = stack.kube.client;
    const pkg = `gc-unserved-${run}`;
    // The kind of one object of the bundle, served by a CRD that is not the bundle's.
    const rulesCrd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'prometheusrules.monitoring.coreos.com' },
      spec: {
        group: 'monitoring.coreos.com',
        names: { plural: 'prometheusrules', singular: 'prometheusrule', kind: 'PrometheusRule', listKind: 'PrometheusRuleList' },
        scope: 'Namespaced',
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
        ],
      },
    };
    await client.create(rulesCrd);
    await waitForCrdsEstablished(client, [rulesCrd]);
    const rule = { apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule', metadata: { name: `${pkg}-rules` }, spec: { groups: [] } };
    const spec: BundleSpec = { pkg, version: '1.0.0', configMaps: ['settings'], extraObjects: [rule] };
    await installerFor(client, pkg, 'installer', [spec]);
    const image = await pushBundle(bundleFiles(spec), `${stack.registry}/bundles/${pkg}:v1.0.0`);
    const bundles = [{ version: '1.0.0', image }];
    await publishCatalog(
      stack,
      pkg,
      packageCatalog(pkg, { defaultChannel: 'stable', channels: [{ name: 'stable', entries: [{ version: '1.0.0' }] }], bundles }),
    );
    await client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    await waitForExtension(client, pkg, 'installed', installedAs(`${pkg}.v1.0.0`), 90_000);
    const ruleRef = { apiVersion: rule.apiVersion, kind: rule.kind, metadata: { name: rule.metadata.name, namespace: pkg } };
    expect(await gone(client, ruleRef)).toBe(false);

    // The administrator removes the kind; then the extension.
    await client.delete(refOf(rulesCrd));
    await expect.poll(() => gone(client, rulesCrd), { timeout: 60_000 }).toBe(true);
    await client.delete({ ...CE_TYPE, name: pkg });
    await expect.poll(() => gone(client, { ...CE_TYPE, metadata: { name: pkg } }), { timeout: 60_000, interval: 200 }).toBe(true);
    const settings = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${pkg}-settings`, namespace: pkg } };
    expect(await gone(client, settings)).toBe(true);
  });
});
