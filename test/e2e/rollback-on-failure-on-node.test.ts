// Undo on failure with running Pods (issue 63 item 2, decision 0123): a control plane of this
// file's own with a real node (kubelet, containerd, kube-controller-manager: startControlPlane's
// node, decision 0101) and catalogd and operator-controller from the working tree in this
// process (startExtensionStack). The operator image is the node probe (test/fixtures/node-probe)
// pushed to the tests' registry; bundle 1.0.0 runs `/probe serve`, bundle 1.0.1 runs
// `/probe crash`, which exits 2 at once, so its Pod crash-loops. With
// `olm.operatorframework.io/rollback-on-failure: 30s` the upgrade to 1.0.1 is rolled back within
// the deadline plus one reconcile: 1.0.0's Pod runs again, the custom resource stored before is
// there, the Warning Event and the RolledBack condition say what happened, and 1.0.1, still
// offered, is not installed again.
//
// Then, on the same node, operator-controller with BoxcutterRuntime (one node start for both
// runtimes): the crash-looping 1.0.1 revision never succeeds, and at its creation plus the
// deadline 1.0.0's content comes back as revision 3 (the rolled-back revision archived once it
// succeeds); then, upgraded to a healthy 1.0.2, `olmv1 release rollback` (in process) goes back to
// 1.0.0 as revision 5. 1.0.0 declares olm.maxOpenShiftVersion 4.18: while it is the installed
// revision, operator-controller's in-cluster gate (its metrics) and `olmv1 status` both block the
// upgrade to 4.19, and while 1.0.2 is, both allow it (issue 70: the gate reads revisions).
//
// Both bundles' Deployments keep the default RollingUpdate strategy: the old Pod stays
// available while the new one crash-loops, and the rollout that never finishes is what makes
// 1.0.1 unhealthy (drift/health.ts follows rollouts as kubectl rollout status does). Needs root,
// containerd, runc and the CNI plugins (.ci/run installs them); skipped otherwise.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildGoProgram, defaultCacheRoot, findGoToolchain, startControlPlane, type ControlPlane } from '../../pkg/olmv1/localstack/index.ts';
import { createKubeconfigLookup } from '../../cmd/olmv1/cluster-access.ts';
import { runReleaseRollback } from '../../cmd/olmv1/release-rollback.ts';
import { runStatus } from '../../cmd/olmv1/status.ts';
import { FEATURE_GATE_DEFAULTS } from '../../cmd/operator-controller/options.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { CLUSTER_EXTENSION, CLUSTER_OBJECT_SET, OWNER_NAME_LABEL } from '../../pkg/shared/api/index.ts';
import { buildImage, buildLayer, createImageClient } from '../../pkg/shared/image/index.ts';
import { connect, type KubeObject, type ObjectRef } from '../../pkg/shared/kube/index.ts';
import { waitForCrdsEstablished } from '../support/bundle-flow.ts';
import { waitForEvent } from '../support/events.ts';
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
import { envtestNodeBinaries } from '../envtest/deferred-tools.ts';
import { nodeUnavailable } from '../support/on-node.ts';
import { readMetric } from '../support/operator-controller.ts';

const missing = nodeUnavailable();
if (missing !== undefined) console.warn(`rollback-on-failure-on-node.test.ts skipped: ${missing}`);
// At collection time, where no timeout applies (test/envtest/deferred-tools.ts).
const nodeBinaries = await envtestNodeBinaries();

const pkg = `rbnode-${Date.now().toString(36)}`;
const v100: BundleSpec = { pkg, version: '1.0.0' };
const v101: BundleSpec = { pkg, version: '1.0.1' };
const DEPLOYMENT: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: pkg, name: `${pkg}-controller` };
const WIDGET: ObjectRef = { apiVersion: `${groupOf(pkg)}/v1`, kind: 'Widget', namespace: pkg, name: 'kept' };
const ANNOTATION = 'olm.operatorframework.io/rollback-on-failure';
const log = (line: string): void => console.error(`rollback-on-node: ${line}`);
let cp: ControlPlane | undefined;
let stack: ExtensionStack | undefined;
let probeImage = '';

/** The generated bundle of `spec` whose operator runs the probe with `args` (the default RollingUpdate strategy). */
function probeBundle(spec: BundleSpec, args: string[]): Map<string, string> {
  const files = bundleFiles(spec);
  const csv = JSON.parse(files.get('manifests/csv.json') ?? '{}') as {
    spec: { install: { spec: { deployments: { spec: Record<string, unknown> & { template: { spec: Record<string, unknown> } } }[] } } };
  };
  for (const d of csv.spec.install.spec.deployments) {
    d.spec.template.spec['terminationGracePeriodSeconds'] = 1;
    d.spec.template.spec['containers'] = [{ name: 'manager', image: probeImage, command: ['/probe', ...args] }];
  }
  files.set('manifests/csv.json', JSON.stringify(csv));
  return files;
}

beforeAll(async () => {
  if (missing !== undefined) return;
  const env = process.env;
  const probe = await buildGoProgram(
    { name: 'node-probe', source: await readFile(join(import.meta.dirname, '../fixtures/node-probe/main.go'), 'utf8') },
    defaultCacheRoot(env),
    await findGoToolchain(env),
    log,
  );
  const registry = inject('envtestRegistries').anonymous;
  probeImage = `${registry.host}/node-probe:${pkg}`;
  await createImageClient({ insecureRegistries: ['127.0.0.1'] }).push(
    probeImage,
    buildImage({ layers: [buildLayer([{ path: 'probe', type: 'file', data: await readFile(probe), mode: 0o755 }])] }),
  );
  cp = await startControlPlane({
    binaries: { ...inject('envtestBinaries'), node: nodeBinaries },
    node: { plainHttpRegistries: [registry.host], log },
  });
  stack = await startExtensionStack(cp.info, registry.host);
}, 900_000);

afterAll(async () => {
  await stack?.stop();
  await cp?.stop();
}, 300_000);

/** The running, Ready operator Pods' images (of package `p`). */
async function readyImages(p = pkg): Promise<string[]> {
  const pods = await stack!.kube.client.listAll<
    KubeObject & { spec: { containers: { image: string }[] }; status?: { conditions?: { type: string; status: string }[] } }
  >({ apiVersion: 'v1', kind: 'Pod' }, { namespace: p, labelSelector: `app=${p}-controller` });
  return pods.items
    .filter((p) => p.metadata.deletionTimestamp === undefined && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
    .map((p) => p.spec.containers[0]?.image ?? '');
}

async function command(deployment = DEPLOYMENT): Promise<string[]> {
  const d = await stack!.kube.client.get<KubeObject & { spec: { template: { spec: { containers: { command: string[] }[] } } } }>(deployment);
  return d.spec.template.spec.containers[0]?.command ?? [];
}

const rolledBack = (reason: string, tail?: string) => (e: Awaited<ReturnType<typeof waitForExtension>>) => {
  const c = e.cond('RolledBack');
  return c?.reason === reason && (tail === undefined || c.message.endsWith(tail));
};

/** The catalog of `p` offering `versions` (each replacing the one before; `skips` as given), with `images`. */
function offerCatalog(s: ExtensionStack, p: string, images: Record<string, string>, versions: string[], skips: Record<string, string[]> = {}) {
  return publishCatalog(
    s,
    p,
    packageCatalog(p, {
      defaultChannel: 'stable',
      channels: [
        {
          name: 'stable',
          entries: versions.map((version, i) => ({
            version,
            ...(i === 0 ? {} : { replaces: versions[i - 1] }),
            ...(skips[version] === undefined ? {} : { skips: skips[version] }),
          })),
        },
      ],
      bundles: versions.map((version) => ({ version, image: images[version] ?? '' })),
    }),
  );
}

/** Extension `name`'s ClusterObjectSets as `name state bundle-version`, by revision. */
async function revisionsOf(name: string): Promise<string[]> {
  const { items } = await stack!.kube.client.listAll<KubeObject & { spec: { revision: number; lifecycleState?: string } }>(
    { apiVersion: CLUSTER_OBJECT_SET.apiVersion, kind: CLUSTER_OBJECT_SET.kind },
    { labelSelector: `${OWNER_NAME_LABEL}=${name}` },
  );
  return items
    .sort((a, b) => a.spec.revision - b.spec.revision)
    .map((o) => `${o.metadata.name} ${o.spec.lifecycleState ?? ''} ${o.metadata.annotations?.['olm.operatorframework.io/bundle-version'] ?? ''}`);
}

describe.skipIf(missing !== undefined)('rollback on failure on a real node', () => {
  it('rolls a crash-looping 1.0.1 back to 1.0.0 within the deadline plus one reconcile, with nothing lost, and does not retry 1.0.1', async () => {
    const s = stack!;
    const client = s.kube.client;
    await installerFor(client, pkg, 'installer', [v100, v101]);
    const images: Record<string, string> = {};
    images['1.0.0'] = await pushBundle(probeBundle(v100, ['serve']), `${s.registry}/bundles/${pkg}:v1.0.0`);
    images['1.0.1'] = await pushBundle(probeBundle(v101, ['crash']), `${s.registry}/bundles/${pkg}:v1.0.1`);
    const offer = (versions: string[]) => offerCatalog(s, pkg, images, versions);
    await offer(['1.0.0']);
    const ce = clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg });
    ce.metadata.annotations = { [ANNOTATION]: '30s' };
    await client.create(ce);
    await waitForExtension(client, pkg, 'installed 1.0.0', installedAs(`${pkg}.v1.0.0`));
    // 1.0.0's Pod runs: Healthy, remembered as the last Healthy revision.
    await waitForExtension(client, pkg, '1.0.0 Healthy', rolledBack('Watching', '[last Healthy revision: 1]'), 180_000);
    expect(await readyImages()).toEqual([probeImage]);
    await client.create({ ...WIDGET, metadata: { name: WIDGET.name, namespace: WIDGET.namespace }, spec: { size: 3 } } as KubeObject);

    await offer(['1.0.0', '1.0.1']);
    await waitForExtension(client, pkg, 'upgraded to 1.0.1', installedAs(`${pkg}.v1.0.1`), 60_000);
    expect(await command()).toEqual(['/probe', 'crash']);

    // Within the deadline plus one reconcile (the requeue at the deadline).
    const ext = await waitForExtension(client, pkg, 'rolled back', rolledBack('UnhealthyUpgrade'), 120_000);
    expect(ext.install?.bundle.name).toBe(`${pkg}.v1.0.0`);
    expect(ext.cond('RolledBack')?.message).toContain(`bundle "${pkg}.v1.0.1" version "1.0.1" (revision 2) was not Healthy 30s after its deploy`);
    const records = await createReleaseStore({ client, namespace: 'olmv1-system' }).history(pkg);
    expect(records.map((r) => `${r.revision} ${r.bundle.version} ${r.status}: ${r.description}`)).toEqual([
      '3 1.0.0 deployed: Rollback to 1',
      `2 1.0.1 failed: Upgrade "${pkg}" failed: not Healthy 30s after its deploy; rolled back to revision 1`,
      '1 1.0.0 superseded: Superseded',
    ]);
    const event = await waitForEvent(client, CLUSTER_EXTENSION.kind, pkg, 'RolledBack');
    expect(event).toMatchObject({ type: 'Warning', action: 'Rollback' });

    // 1.0.0's operator runs again; the data is there.
    expect(await command()).toEqual(['/probe', 'serve']);
    await expect.poll(() => readyImages(), { timeout: 120_000, interval: 1000 }).toEqual([probeImage]);
    expect(await client.get(WIDGET)).toMatchObject({ spec: { size: 3 } });
    const healthy = await waitForExtension(client, pkg, 'rollback Healthy', rolledBack('UnhealthyUpgrade', '[last Healthy revision: 3]'), 120_000);
    expect(healthy.cond('Healthy')?.status).toBe('True');
    // The catalog still offers 1.0.1: not installed again.
    expect(healthy.install?.bundle.name).toBe(`${pkg}.v1.0.0`);
    expect((await createReleaseStore({ client, namespace: 'olmv1-system' }).history(pkg)).map((r) => r.revision)).toEqual([3, 2, 1]);
  }, 600_000);

  it('under BoxcutterRuntime: a 1.0.1 revision still rolling out at its creation plus the deadline is undone as revision 3 with 1.0.0; olmv1 release rollback then goes back from 1.0.2 as revision 5', async () => {
    // The same node; the Helm case's operator-controller gives way to one with the gate on.
    await stack?.stop();
    stack = undefined;
    // The ClusterObjectSet CRD first: operator-controller's informer lists revisions from the start.
    const admin = await connect({ kind: 'file', path: cp!.info.kubeconfigPath });
    const crd = load(
      await readFile(join(import.meta.dirname, '../../config/crd/experimental/olm.operatorframework.io_clusterobjectsets.yaml'), 'utf8'),
    ) as KubeObject;
    await admin.client.apply(crd, { fieldManager: 'e2e-admin', force: true });
    await waitForCrdsEstablished(admin.client, [crd]);
    admin.close();
    stack = await startExtensionStack(cp!.info, inject('envtestRegistries').anonymous.host, {
      // The cluster version the in-cluster upgrade gate judges against (no ClusterVersion API here).
      controller: { featureGates: { ...FEATURE_GATE_DEFAULTS, BoxcutterRuntime: true }, clusterVersion: { major: 4n, minor: 18n } },
    });
    const s = stack;
    const client = s.kube.client;
    const bc = `${pkg}-bc`;
    // 1.0.0 declares olm.maxOpenShiftVersion 4.18: wherever it is the installed revision, the cluster gate is blocked.
    const max418 = [{ type: 'olm.maxOpenShiftVersion', value: '4.18' }];
    const bundles = {
      '1.0.0': { pkg: bc, version: '1.0.0', properties: max418 },
      '1.0.1': { pkg: bc, version: '1.0.1' },
      '1.0.2': { pkg: bc, version: '1.0.2' },
    };
    const deployment: ObjectRef = { ...DEPLOYMENT, namespace: bc, name: `${bc}-controller` };
    const widget: ObjectRef = { ...WIDGET, apiVersion: `${groupOf(bc)}/v1`, namespace: bc };
    await installerFor(client, bc, 'installer', Object.values(bundles));
    const images: Record<string, string> = {};
    for (const [version, args] of [
      ['1.0.0', 'serve'],
      ['1.0.1', 'crash'],
      ['1.0.2', 'serve'],
    ] as const) {
      images[version] = await pushBundle(probeBundle(bundles[version], [args]), `${s.registry}/bundles/${bc}:v${version}`);
    }
    await offerCatalog(s, bc, images, ['1.0.0']);
    const ce = clusterExtension(bc, { namespace: bc, serviceAccount: 'installer', packageName: bc });
    ce.metadata.annotations = { [ANNOTATION]: '30s' };
    await client.create(ce);
    await waitForExtension(client, bc, 'installed 1.0.0', installedAs(`${bc}.v1.0.0`), 120_000);
    await waitForExtension(client, bc, '1.0.0 Healthy', rolledBack('Watching', '[last Healthy revision: 1]'), 180_000);
    // The gate reads the revisions (issue 70): in-cluster and in olmv1 status alike, 1.0.0 blocks 4.19.
    await expect.poll(() => gateBlockers(s), { timeout: 30_000, interval: 500 }).toEqual({ upgradeable: 0, blockers: 1 });
    expect(await gateStatus(s)).toMatchObject({
      code: 1,
      out: expect.stringContaining(`${bc}: bundle ${bc}.v1.0.0 declares olm.maxOpenShiftVersion 4.18`),
    });
    await client.create({ ...widget, metadata: { name: widget.name, namespace: widget.namespace }, spec: { size: 3 } } as KubeObject);

    // 1.0.1's revision takes the Deployment over and never succeeds; revision 1 stays the installed one.
    await offerCatalog(s, bc, images, ['1.0.0', '1.0.1']);
    await expect.poll(() => command(deployment), { timeout: 60_000, interval: 1000 }).toEqual(['/probe', 'crash']);
    const ext = await waitForExtension(client, bc, 'rolled back', rolledBack('UnhealthyUpgrade'), 120_000);
    expect(ext.cond('RolledBack')?.message).toContain(`bundle "${bc}.v1.0.1" version "1.0.1" (revision 2) was not Healthy 30s after its deploy`);
    expect(ext.cond('RolledBack')?.message).toContain(`rolled back to revision 1 (bundle "${bc}.v1.0.0" version "1.0.0") as revision 3`);
    expect(await waitForEvent(client, CLUSTER_EXTENSION.kind, bc, 'RolledBack')).toMatchObject({ type: 'Warning', action: 'Rollback' });
    // Revision 3 (1.0.0's content) succeeds and archives 1 and 2; 1.0.0's Pod runs again, the data is there.
    await expect
      .poll(() => revisionsOf(bc), { timeout: 120_000, interval: 1000 })
      .toEqual([`${bc}-1 Archived 1.0.0`, `${bc}-2 Archived 1.0.1`, `${bc}-3 Active 1.0.0`]);
    expect(await command(deployment)).toEqual(['/probe', 'serve']);
    await expect.poll(() => readyImages(bc), { timeout: 120_000, interval: 1000 }).toEqual([probeImage]);
    expect(await client.get(widget)).toMatchObject({ spec: { size: 3 } });
    const back = await waitForExtension(client, bc, 'installed 1.0.0 again', installedAs(`${bc}.v1.0.0`), 60_000);
    expect(back.cond('RolledBack')?.status).toBe('True');

    // A healthy 1.0.2 (skipping 1.0.1, which stays held) is installed as revision 4 ...
    await offerCatalog(s, bc, images, ['1.0.0', '1.0.1', '1.0.2'], { '1.0.2': ['1.0.0'] });
    await waitForExtension(client, bc, 'upgraded to 1.0.2', installedAs(`${bc}.v1.0.2`), 120_000);
    // 1.0.2 declares no maximum: the gate opens.
    await expect.poll(() => gateBlockers(s), { timeout: 30_000, interval: 500 }).toEqual({ upgradeable: 1, blockers: 0 });
    expect((await gateStatus(s)).code).toBe(0);
    // ... and olmv1 release rollback goes back to revision 3's bundle: a new revision 5 with 1.0.0.
    let out = '';
    const io = { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (out += t) } };
    const catalogClient = createCatalogClient();
    try {
      const code = await runReleaseRollback([bc, '3'], io, {
        connectCluster: () => Promise.resolve({ ...s.kube, close: () => undefined }),
        catalogContent: createCatalogContentCache({ client: catalogClient }),
      });
      expect(code, out).toBe(0);
    } finally {
      catalogClient.close();
    }
    await waitForExtension(client, bc, 'rolled back to 1.0.0 by the command', installedAs(`${bc}.v1.0.0`), 120_000);
    await expect
      .poll(() => revisionsOf(bc), { timeout: 120_000, interval: 1000 })
      .toEqual([`${bc}-1 Archived 1.0.0`, `${bc}-2 Archived 1.0.1`, `${bc}-3 Archived 1.0.0`, `${bc}-4 Archived 1.0.2`, `${bc}-5 Active 1.0.0`]);
    expect(await command(deployment)).toEqual(['/probe', 'serve']);
    expect(await client.get(widget)).toMatchObject({ spec: { size: 3 } });
    // Rolled back to 1.0.0 as revision 5: blocked again, in-cluster and in olmv1 status.
    await expect.poll(() => gateBlockers(s), { timeout: 30_000, interval: 500 }).toEqual({ upgradeable: 0, blockers: 1 });
    expect(await gateStatus(s)).toMatchObject({
      code: 1,
      out: expect.stringContaining(`${bc}: bundle ${bc}.v1.0.0 declares olm.maxOpenShiftVersion 4.18`),
    });
  }, 600_000);
});

/** operator-controller's in-cluster gate verdict about 4.19, from its metrics. */
async function gateBlockers(s: ExtensionStack): Promise<{ upgradeable: number; blockers: number }> {
  return {
    upgradeable: await readMetric(s.controller.healthUrl, 'olmv1_cluster_upgradeable', { next: '4.19' }),
    blockers: await readMetric(s.controller.healthUrl, 'olmv1_cluster_upgrade_blockers', { next: '4.19' }),
  };
}

/** `olmv1 status --cluster-version 4.18` in this process: its exit code and output. */
async function gateStatus(s: ExtensionStack): Promise<{ code: number; out: string }> {
  let out = '';
  const io = { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (out += t) } };
  const code = await runStatus(['--cluster-version', '4.18'], io, {
    kubeconfig: createKubeconfigLookup({ KUBECONFIG: s.cp.kubeconfigPath }, process.cwd()),
    isTTY: false,
    columns: undefined,
    noColor: true,
  });
  expect(out).toContain(code === 0 ? 'cluster upgrade to 4.19: allowed' : 'cluster upgrade to 4.19: blocked by');
  return { code, out };
}
