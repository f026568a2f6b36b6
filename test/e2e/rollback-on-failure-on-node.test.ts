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
// Both bundles' Deployments keep the default RollingUpdate strategy: the old Pod stays
// available while the new one crash-loops, and the rollout that never finishes is what makes
// 1.0.1 unhealthy (drift/health.ts follows rollouts as kubectl rollout status does). Needs root,
// containerd, runc and the CNI plugins (.ci/run installs them); skipped otherwise.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildGoProgram, defaultCacheRoot, findGoToolchain, startControlPlane, type ControlPlane } from '../../pkg/olmv1/localstack/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { buildImage, buildLayer, createImageClient } from '../../pkg/shared/image/index.ts';
import type { KubeObject, ObjectRef } from '../../pkg/shared/kube/index.ts';
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
import { nodeUnavailable } from '../support/on-node.ts';

const missing = nodeUnavailable();
if (missing !== undefined) console.warn(`rollback-on-failure-on-node.test.ts skipped: ${missing}`);

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
    binaries: { ...inject('envtestBinaries'), node: inject('envtestNodeBinaries') },
    node: { plainHttpRegistries: [registry.host], log },
  });
  stack = await startExtensionStack(cp.info, registry.host);
}, 900_000);

afterAll(async () => {
  await stack?.stop();
  await cp?.stop();
}, 300_000);

/** The running, Ready operator Pods' images. */
async function readyImages(): Promise<string[]> {
  const pods = await stack!.kube.client.listAll<
    KubeObject & { spec: { containers: { image: string }[] }; status?: { conditions?: { type: string; status: string }[] } }
  >({ apiVersion: 'v1', kind: 'Pod' }, { namespace: pkg, labelSelector: `app=${pkg}-controller` });
  return pods.items
    .filter((p) => p.metadata.deletionTimestamp === undefined && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
    .map((p) => p.spec.containers[0]?.image ?? '');
}

async function command(): Promise<string[]> {
  const d = await stack!.kube.client.get<KubeObject & { spec: { template: { spec: { containers: { command: string[] }[] } } } }>(DEPLOYMENT);
  return d.spec.template.spec.containers[0]?.command ?? [];
}

const rolledBack = (reason: string, tail?: string) => (e: Awaited<ReturnType<typeof waitForExtension>>) => {
  const c = e.cond('RolledBack');
  return c?.reason === reason && (tail === undefined || c.message.endsWith(tail));
};

describe.skipIf(missing !== undefined)('rollback on failure on a real node', () => {
  it('rolls a crash-looping 1.0.1 back to 1.0.0 within the deadline plus one reconcile, with nothing lost, and does not retry 1.0.1', async () => {
    const s = stack!;
    const client = s.kube.client;
    await installerFor(client, pkg, 'installer', [v100, v101]);
    const images: Record<string, string> = {};
    images['1.0.0'] = await pushBundle(probeBundle(v100, ['serve']), `${s.registry}/bundles/${pkg}:v1.0.0`);
    images['1.0.1'] = await pushBundle(probeBundle(v101, ['crash']), `${s.registry}/bundles/${pkg}:v1.0.1`);
    const offer = (versions: string[]) =>
      publishCatalog(
        s,
        pkg,
        packageCatalog(pkg, {
          defaultChannel: 'stable',
          channels: [{ name: 'stable', entries: versions.map((version, i) => ({ version, ...(i === 0 ? {} : { replaces: versions[i - 1] }) })) }],
          bundles: versions.map((version) => ({ version, image: images[version] ?? '' })),
        }),
      );
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
    await expect.poll(readyImages, { timeout: 120_000, interval: 1000 }).toEqual([probeImage]);
    expect(await client.get(WIDGET)).toMatchObject({ spec: { size: 3 } });
    const healthy = await waitForExtension(client, pkg, 'rollback Healthy', rolledBack('UnhealthyUpgrade', '[last Healthy revision: 3]'), 120_000);
    expect(healthy.cond('Healthy')?.status).toBe('True');
    // The catalog still offers 1.0.1: not installed again.
    expect(healthy.install?.bundle.name).toBe(`${pkg}.v1.0.0`);
    expect((await createReleaseStore({ client, namespace: 'olmv1-system' }).history(pkg)).map((r) => r.revision)).toEqual([3, 2, 1]);
  }, 600_000);
});
