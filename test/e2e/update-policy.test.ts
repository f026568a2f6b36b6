// Update policies end to end (issue 29, decision 0096) on the real API server and registry, with
// catalogd and operator-controller in this process: a Manual extension does not move when its
// catalog offers more, says so (condition, Event, metric) and moves to exactly the approved
// bundle; a stale approval approves nothing; AutomaticPatch takes a patch release and holds a
// minor one; a patch release that grants more permissions is held with the permissions in the
// message; `olmv1 release rollback` goes back under Manual (it approves the bundle it pins).
// Every wait is on a condition, Event or metric value.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { APPROVED_BUNDLE_ANNOTATION, CLUSTER_EXTENSION, UPDATE_POLICY_ANNOTATION } from '../../pkg/shared/api/index.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import { waitForEvent } from '../support/events.ts';
import {
  clusterExtension,
  installedAs,
  installerFor,
  offerPackage,
  useExtensionStack,
  waitForExtension,
  type BundleSpec,
} from '../support/extensions.ts';
import { readMetric } from '../support/operator-controller.ts';
import { captureIO } from '../support/command-io.ts';
import { connectCluster, createKubeconfigLookup } from '../../cmd/olmv1/cluster-access.ts';
import { runReleaseRollback } from '../../cmd/olmv1/release-rollback.ts';

const run = randomBytes(3).toString('hex');
const suite = useExtensionStack();
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };
const AVAILABLE = 'olmv1_extension_upgrade_available';

type Offer = BundleSpec & { replaces?: string; skipRange?: string };

/** Pushes the bundles and publishes them as the catalog `pkg` (one channel, edges as given). */
async function offer(pkg: string, bundles: Offer[]): Promise<void> {
  await offerPackage(
    suite.stack,
    pkg,
    bundles.map(({ replaces, skipRange, ...spec }) => ({
      spec,
      ...(replaces === undefined ? {} : { replaces }),
      ...(skipRange === undefined ? {} : { skipRange }),
    })),
  );
}

/** Installs `pkg` 1.0.0 (the only version offered yet) under `policy` and waits until it is installed. */
async function installFirst(pkg: string, policy: string, later: BundleSpec[]): Promise<void> {
  const first = { pkg, version: '1.0.0' };
  await installerFor(suite.kube.client, pkg, 'installer', [first, ...later]);
  await offer(pkg, [first]);
  const ce = clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg });
  ce.metadata.annotations = { [UPDATE_POLICY_ANNOTATION]: policy };
  await suite.kube.client.create(ce);
  await waitForExtension(
    suite.kube.client,
    pkg,
    'installed at 1.0.0, nothing waiting',
    (e) => installedAs(`${pkg}.v1.0.0`)(e) && e.cond('UpgradeAvailable')?.reason === 'UpToDate',
  );
}

const held = (to: string) => (e: Awaited<ReturnType<typeof waitForExtension>>) =>
  e.cond('UpgradeAvailable')?.status === 'True' && e.cond('UpgradeAvailable')?.message.includes(`bundle "${to}"`) === true;

async function annotate(name: string, annotations: Record<string, string>): Promise<void> {
  await suite.kube.client.patch({ ...CE, name }, { metadata: { annotations } }, 'merge');
}

const revisions = async (pkg: string): Promise<string[]> =>
  (await createReleaseStore({ client: suite.kube.client, namespace: 'olmv1-system' }).history(pkg)).map(
    (r) => `${r.revision} ${r.bundle.version} ${r.status}`,
  );

const metric = (labels: Record<string, string>): Promise<number> => readMetric(suite.stack.controller.healthUrl, AVAILABLE, labels);

describe('update policy Manual', () => {
  const pkg = `manual-${run}`;

  it('holds an upgrade the catalog offers, and reports it in a condition, an Event and a metric', async () => {
    await installFirst(pkg, 'Manual', [
      { pkg, version: '1.1.0' },
      { pkg, version: '1.2.0' },
      { pkg, version: '1.3.0' },
    ]);
    await offer(pkg, [
      { pkg, version: '1.0.0' },
      { pkg, version: '1.1.0', replaces: '1.0.0' },
    ]);
    const e = await waitForExtension(suite.kube.client, pkg, 'upgrade to 1.1.0 held', held(`${pkg}.v1.1.0`));
    expect(e.cond('UpgradeAvailable')).toMatchObject({ reason: 'ApprovalRequired' });
    expect(e.cond('UpgradeAvailable')?.message).toContain('the update policy is Manual');
    expect(e.cond('UpgradeAvailable')?.message).toContain(`olmv1 upgrade approve ${pkg} 1.1.0`);
    // The reconcile that held it re-applied 1.0.0: installed, one revision, nothing failing.
    expect(e.install?.bundle.name).toBe(`${pkg}.v1.0.0`);
    expect(e.cond('Progressing')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    expect(await revisions(pkg)).toEqual(['1 1.0.0 deployed']);
    const event = await waitForEvent(suite.kube.client, 'ClusterExtension', pkg, 'UpgradeAvailable');
    expect(event.note).toContain(`bundle "${pkg}.v1.1.0"`);
    await waitUntil('metric of the held upgrade', async () => (await metric({ name: pkg, from: '1.0.0', to: '1.1.0' })) === 1);
  });

  it('an approval of another bundle than the one picked approves nothing', async () => {
    // 1.2.0 now skips 1.0.0 too: the resolution picks it, and the series moves to it.
    await offer(pkg, [
      { pkg, version: '1.0.0' },
      { pkg, version: '1.1.0', replaces: '1.0.0' },
      { pkg, version: '1.2.0', replaces: '1.1.0', skipRange: '>=1.0.0 <1.2.0' },
    ]);
    await waitForExtension(suite.kube.client, pkg, 'upgrade to 1.2.0 held', held(`${pkg}.v1.2.0`));
    await waitUntil(
      'metric follows the offer',
      async () => (await metric({ name: pkg, to: '1.2.0' })) === 1 && (await metric({ name: pkg, to: '1.1.0' })) === 0,
    );
    await annotate(pkg, { [APPROVED_BUNDLE_ANNOTATION]: `${pkg}.v1.1.0` });
    const e = await waitForExtension(suite.kube.client, pkg, 'stale approval reported', (x) =>
      (x.cond('UpgradeAvailable')?.message ?? '').includes(`the approval names "${pkg}.v1.1.0", not this bundle`),
    );
    expect(e.install?.bundle.name).toBe(`${pkg}.v1.0.0`);
    expect(await revisions(pkg)).toEqual(['1 1.0.0 deployed']);
  });

  it('moves to exactly the approved bundle, then reports nothing waiting', async () => {
    await annotate(pkg, { [APPROVED_BUNDLE_ANNOTATION]: `${pkg}.v1.2.0` });
    const e = await waitForExtension(
      suite.kube.client,
      pkg,
      'installed at 1.2.0',
      (x) => installedAs(`${pkg}.v1.2.0`)(x) && x.cond('UpgradeAvailable')?.status === 'False',
    );
    expect(e.cond('UpgradeAvailable')?.reason).toBe('UpToDate');
    expect(await revisions(pkg)).toEqual(['2 1.2.0 deployed', '1 1.0.0 superseded']);
    await waitUntil('metric series gone', async () => (await metric({ name: pkg })) === 0);
  });
});

describe('update policy AutomaticPatch', () => {
  it('takes 1.0.1 on its own and holds 1.1.0', async () => {
    const pkg = `patch-${run}`;
    await installFirst(pkg, 'AutomaticPatch', [
      { pkg, version: '1.0.1' },
      { pkg, version: '1.1.0' },
    ]);
    await offer(pkg, [
      { pkg, version: '1.0.0' },
      { pkg, version: '1.0.1', replaces: '1.0.0' },
      { pkg, version: '1.1.0', replaces: '1.0.1' },
    ]);
    const e = await waitForExtension(
      suite.kube.client,
      pkg,
      'at 1.0.1, 1.1.0 held',
      (x) => installedAs(`${pkg}.v1.0.1`)(x) && held(`${pkg}.v1.1.0`)(x),
    );
    expect(e.cond('UpgradeAvailable')?.message).toContain('the update policy is AutomaticPatch and 1.1.0 is not a patch release above 1.0.1');
    expect(await revisions(pkg)).toEqual(['2 1.0.1 deployed', '1 1.0.0 superseded']);
  });

  it('holds a patch release that grants more permissions, naming them, until approved', async () => {
    const pkg = `perms-${run}`;
    // 1.0.1 owns a second CRD, and its controller may read it: a new cluster-wide grant.
    const wider = { pkg, version: '1.0.1', crds: ['widgets', 'gadgets'] };
    await installFirst(pkg, 'AutomaticPatch', [wider]);
    await offer(pkg, [
      { pkg, version: '1.0.0' },
      { ...wider, replaces: '1.0.0' },
    ]);
    const e = await waitForExtension(suite.kube.client, pkg, 'upgrade to 1.0.1 held', held(`${pkg}.v1.0.1`));
    const message = e.cond('UpgradeAvailable')?.message ?? '';
    expect(message).toContain('it grants more permissions: ');
    expect(message).toContain('gadgets');
    expect(message).not.toContain('not a patch release');
    expect(e.install?.bundle.name).toBe(`${pkg}.v1.0.0`);
    await annotate(pkg, { [APPROVED_BUNDLE_ANNOTATION]: `${pkg}.v1.0.1` });
    await waitForExtension(suite.kube.client, pkg, 'installed at 1.0.1', installedAs(`${pkg}.v1.0.1`));
  });
});

describe('update policy removed', () => {
  it('drops the condition and upgrades as upstream does', async () => {
    const pkg = `manual-${run}`;
    await offer(pkg, [
      { pkg, version: '1.2.0' },
      { pkg, version: '1.3.0', replaces: '1.2.0' },
    ]);
    await waitForExtension(suite.kube.client, pkg, 'upgrade to 1.3.0 held', held(`${pkg}.v1.3.0`));
    await annotate(pkg, { [UPDATE_POLICY_ANNOTATION]: 'Automatic' });
    const e = await waitForExtension(suite.kube.client, pkg, 'installed at 1.3.0', installedAs(`${pkg}.v1.3.0`));
    expect(e.cond('UpgradeAvailable')).toBeUndefined();
  });
});

describe('rollback under an update policy', () => {
  it('goes back to the previous revision: the rollback approves exactly that bundle', async () => {
    const pkg = `manual-${run}`;
    await annotate(pkg, { [UPDATE_POLICY_ANNOTATION]: 'Manual' });
    const io = captureIO();
    const lookup = createKubeconfigLookup({ KUBECONFIG: suite.stack.cp.kubeconfigPath }, process.cwd());
    const catalogClient = createCatalogClient();
    const code = await runReleaseRollback([pkg], io, {
      connectCluster: (flags) => connectCluster(flags, lookup, 1),
      catalogContent: createCatalogContentCache({ client: catalogClient }),
    }).finally(() => catalogClient.close());
    expect({ code, stderr: io.err() }).toEqual({ code: 0, stderr: '' });
    const e = await waitForExtension(suite.kube.client, pkg, 'back at 1.2.0', installedAs(`${pkg}.v1.2.0`));
    expect(e.obj.metadata.annotations?.[APPROVED_BUNDLE_ANNOTATION]).toBe(`${pkg}.v1.2.0`);
    expect((await revisions(pkg))[0]).toBe('4 1.2.0 deployed');
  });
});
