// Extension health end to end: real kube-apiserver + etcd, registry, catalogd and
// operator-controller in this process. No controller manager runs, so the test writes the
// Deployment's status through its status subresource as the deployment controller would; the
// API server itself establishes the release's CRD. The Healthy condition and the
// olmv1_extension_healthy gauge must follow, queued by the drift watches' status events (no
// drift counted, no repair).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { isNotFound, type KubeContext, type KubeObject, type ObjectRef } from '../../pkg/shared/kube/index.ts';
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
import { readMetric } from '../support/operator-controller.ts';

const run = randomBytes(3).toString('hex');
const spec: BundleSpec = { pkg: `health-${run}`, version: '1.0.0' };
const pkg = spec.pkg;
const DEPLOYMENT: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: pkg, name: `${pkg}-controller` };
const NAMED = `Deployment ${pkg}/${pkg}-controller`;
let stack: ExtensionStack;
let kube: KubeContext;

beforeAll(async () => {
  stack = await startExtensionStack(inject('envtestControlPlane'), inject('envtestRegistries').anonymous.host);
  ({ kube } = stack);
  const image = await pushBundle(bundleFiles(spec), `${stack.registry}/bundles/${pkg}:v${spec.version}`);
  await installerFor(kube.client, pkg, 'installer', [spec]);
  const channels = [{ name: 'stable', entries: [{ version: spec.version }] }];
  await publishCatalog(
    stack,
    `health-${run}`,
    packageCatalog(pkg, { defaultChannel: 'stable', channels, bundles: [{ version: spec.version, image }] }),
  );
  await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
  await waitForExtension(kube.client, pkg, 'installed', installedAs(`${pkg}.v1.0.0`));
});

afterAll(async () => {
  await stack?.stop();
});

/** The `olmv1_extension_healthy` sample of `name`, undefined when there is none. */
async function healthSample(name: string): Promise<number | undefined> {
  const text = await (await fetch(`${stack.controller.healthUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`olmv1_extension_healthy{name="${name}"} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const driftEvents = (): Promise<number> => readMetric(stack.controller.healthUrl, 'operator_controller_drift_events_total');

/** Writes the Deployment's status as the deployment controller does once its one replica is (or is not) available. */
async function reportDeployment(available: boolean): Promise<KubeObject> {
  const live = await kube.client.get(DEPLOYMENT);
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const condition = available
    ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
    : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' };
  const status = {
    observedGeneration: live.metadata.generation,
    replicas: 1,
    updatedReplicas: 1,
    readyReplicas: available ? 1 : 0,
    availableReplicas: available ? 1 : 0,
    ...(available ? {} : { unavailableReplicas: 1 }),
    conditions: [
      {
        type: 'Progressing',
        status: 'True',
        reason: 'NewReplicaSetAvailable',
        message: 'ReplicaSet has successfully progressed.',
        lastUpdateTime: at,
        lastTransitionTime: at,
      },
      { ...condition, lastUpdateTime: at, lastTransitionTime: at },
    ],
  };
  return kube.client.updateStatus({ ...live, status });
}

const healthy = (status: string, message?: string) => (e: Awaited<ReturnType<typeof waitForExtension>>) =>
  e.cond('Healthy')?.status === status && (message === undefined || e.cond('Healthy')?.message === message);

describe('extension health', () => {
  it('names the Deployment whose controller has not reported yet', async () => {
    // Right after the install the watches had not listed; their first list brought this verdict.
    const ext = await waitForExtension(kube.client, pkg, 'Healthy False', healthy('False', `${NAMED}: status not reported yet`));
    expect(ext.cond('Healthy')?.reason).toBe('Unhealthy');
    expect(ext.cond('Healthy')?.observedGeneration).toBe(ext.obj.metadata.generation);
    await waitUntil('gauge 0', async () => (await healthSample(pkg)) === 0);
  });

  it('follows the Deployment Available condition written through the status subresource, without drift repair', async () => {
    const drifts = await driftEvents();
    const written = await reportDeployment(true);
    // The API server establishes the CRD by itself; the Deployment is now available too.
    const ext = await waitForExtension(kube.client, pkg, 'Healthy True', healthy('True'));
    expect(ext.cond('Healthy')).toMatchObject({ reason: 'Healthy', message: 'All available: 1 CustomResourceDefinition, 1 Deployment' });
    await waitUntil('gauge 1', async () => (await healthSample(pkg)) === 1);

    await reportDeployment(false);
    const down = await waitForExtension(kube.client, pkg, 'Healthy False', healthy('False'));
    expect(down.cond('Healthy')).toMatchObject({
      reason: 'Unhealthy',
      message: `${NAMED}: Available=False MinimumReplicasUnavailable: Deployment does not have minimum availability.`,
    });
    await waitUntil('gauge 0', async () => (await healthSample(pkg)) === 0);

    const last = await reportDeployment(true);
    await waitForExtension(kube.client, pkg, 'Healthy True again', healthy('True'));
    await waitUntil('gauge 1 again', async () => (await healthSample(pkg)) === 1);
    // Status writes are no drift: none counted, and nothing re-applied the Deployment's spec.
    expect(await driftEvents()).toBe(drifts);
    const now = await kube.client.get(DEPLOYMENT);
    expect(now.metadata.generation).toBe(written.metadata.generation);
    expect(now.metadata.resourceVersion).toBe(last.metadata.resourceVersion);
  });

  it('names a Deployment an administrator deleted until its repaired copy is available', async () => {
    const before = await kube.client.get(DEPLOYMENT);
    await kube.client.delete(DEPLOYMENT);
    // The repair creates it again, without status: not healthy until its controller reports.
    await waitForExtension(
      kube.client,
      pkg,
      'Healthy False naming the Deployment',
      (e) => healthy('False')(e) && (e.cond('Healthy')?.message.startsWith(`${NAMED}: `) ?? false),
    );
    await waitUntil('Deployment put back', async () => {
      const now = await kube.client.get(DEPLOYMENT).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
      return now !== undefined && now.metadata.uid !== before.metadata.uid;
    });
    await reportDeployment(true);
    await waitForExtension(kube.client, pkg, 'Healthy True', healthy('True'));
  });

  it('drops the gauge sample when the extension is deleted', async () => {
    expect(await healthSample(pkg)).toBe(1);
    await kube.client.delete({ apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name: pkg });
    await waitUntil(
      'ClusterExtension gone',
      async () =>
        kube.client.get({ apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name: pkg }).then(
          () => false,
          (err: unknown) => (isNotFound(err) ? true : Promise.reject(err)),
        ),
      60_000,
    );
    expect(await healthSample(pkg)).toBeUndefined();
  });
});
