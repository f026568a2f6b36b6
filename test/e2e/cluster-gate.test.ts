// The cluster gate beyond olm.maxOpenShiftVersion end to end (issue 63 item 5, decision 0118), on
// the real API server and registry with catalogd and operator-controller in this process, on a
// control plane of this file's own (what it leaves behind would block other files' gates):
// an operator's Upgradeable=False holds its extension's upgrade (condition, Event) and blocks
// `olmv1 status` with its message and operator-controller's gate (its metric), and lets the
// upgrade go once lifted; a release whose
// objects use an API version the target Kubernetes minor removes blocks `olmv1 status
// --kubernetes-version` naming extension, object and replacement. That release is written with
// the release store, as the API server (1.36) no longer serves such a version to install.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { UPGRADEABLE_ANNOTATION, UPGRADEABLE_MESSAGE_ANNOTATION } from '../../pkg/operator-controller/gating/index.ts';
import { Manifest, createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { createKubeconfigLookup } from '../../cmd/olmv1/cluster-access.ts';
import { StatusReport } from '../../pkg/olmv1/status/index.ts';
import { runStatus } from '../../cmd/olmv1/status.ts';
import { waitForEvent } from '../support/events.ts';
import { clusterExtension, installedAs, installerFor, offerPackage, useExtensionStack, waitForExtension } from '../support/extensions.ts';
import { useOwnControlPlane } from '../support/own-control-plane.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import { readMetric } from '../support/operator-controller.ts';

const own = useOwnControlPlane();
const suite = useExtensionStack({ controlPlane: own });
const run = randomBytes(3).toString('hex');
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };

/** `olmv1 status ARGS -o json` in this process: its exit code, the parsed report and the table. */
async function status(args: string[]): Promise<{ code: number; report: StatusReport; table: string }> {
  const deps = {
    kubeconfig: createKubeconfigLookup({ KUBECONFIG: own.info.kubeconfigPath }, process.cwd()),
    isTTY: false,
    columns: undefined,
    noColor: true,
  };
  let json = '';
  let table = '';
  let stderr = '';
  const err = { write: (t: string) => (stderr += t) };
  const code = await runStatus([...args, '-o', 'json'], { stdout: { write: (t: string) => (json += t) }, stderr: err }, deps);
  expect(stderr).toBe('');
  expect(await runStatus(args, { stdout: { write: (t: string) => (table += t) }, stderr: err }, deps)).toBe(code);
  return { code, report: StatusReport.parse(JSON.parse(json)), table };
}

describe('Upgradeable=False', () => {
  const pkg = `hold-${run}`;

  it('holds the upgrade, blocks olmv1 status with its message, and lets the upgrade go once lifted', async () => {
    const client = suite.kube.client;
    const [v1, v2] = [
      { pkg, version: '1.0.0' },
      { pkg, version: '1.1.0' },
    ];
    await installerFor(client, pkg, 'installer', [v1, v2]);
    await offerPackage(suite.stack, pkg, [{ spec: v1 }]);
    await client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    await waitForExtension(client, pkg, 'installed at 1.0.0', installedAs(`${pkg}.v1.0.0`));
    expect((await status([])).report.verdict.notUpgradeable).toBeUndefined();

    // The operator says "not now"; then the catalog offers 1.1.0.
    const hold = { [UPGRADEABLE_ANNOTATION]: 'False', [UPGRADEABLE_MESSAGE_ANNOTATION]: 'migrating the widget store' };
    await client.patch({ ...CE, name: pkg }, { metadata: { annotations: hold } }, 'merge');
    await offerPackage(suite.stack, pkg, [{ spec: v1 }, { spec: v2, replaces: '1.0.0' }]);
    const e = await waitForExtension(
      client,
      pkg,
      'upgrade to 1.1.0 held by Upgradeable=False',
      (x) => x.cond('UpgradeAvailable')?.reason === 'UpgradeableFalse' && (x.cond('UpgradeAvailable')?.message ?? '').includes(`"${pkg}.v1.1.0"`),
    );
    expect(e.cond('UpgradeAvailable')?.message).toContain('Upgradeable=False: migrating the widget store');
    expect(e.install?.bundle.name).toBe(`${pkg}.v1.0.0`);
    expect(e.cond('Progressing')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    const event = await waitForEvent(client, 'ClusterExtension', pkg, 'UpgradeHeld');
    expect(event.note).toContain('Upgradeable=False: migrating the widget store');

    const blocked = await status([]);
    expect(blocked.code).toBe(1);
    expect(blocked.report.verdict).toMatchObject({ upgradeable: false, notUpgradeable: [{ extension: pkg, message: 'migrating the widget store' }] });
    expect(blocked.table).toContain(`  ${pkg}: Upgradeable=False: migrating the widget store\n`);
    // operator-controller's gate counts it.
    const notUpgradeable = () => readMetric(suite.stack.controller.healthUrl, 'olmv1_cluster_upgrade_not_upgradeable');
    await waitUntil('the gate counts the hold', async () => (await notUpgradeable()) === 1);

    // Lifted: the held upgrade goes ahead and the gate opens.
    await client.patch({ ...CE, name: pkg }, { metadata: { annotations: { [UPGRADEABLE_ANNOTATION]: 'True' } } }, 'merge');
    await waitForExtension(client, pkg, 'upgraded to 1.1.0', installedAs(`${pkg}.v1.1.0`));
    await waitUntil('the gate no longer counts it', async () => (await notUpgradeable()) === 0);
    const open = await status([]);
    expect(open.report.verdict.notUpgradeable).toBeUndefined();
    expect(open.code).toBe(0);
  });
});

describe('removed APIs', () => {
  const name = `gone-${run}`;

  it('a release with a flowcontrol.apiserver.k8s.io/v1beta3 object blocks olmv1 status --kubernetes-version 1.37, naming it', async () => {
    const client = suite.kube.client;
    // No catalog offers the package and its installer does not exist: operator-controller
    // writes no revision of its own, and the one written here stays the deployed one.
    await client.create(clusterExtension(name, { namespace: name, serviceAccount: 'installer', packageName: name }));
    const flowSchema = {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta3',
      kind: 'FlowSchema',
      metadata: { name: `${name}-fs` },
      spec: { priorityLevelConfiguration: { name: 'workload-low' } },
    };
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: name } };
    await createReleaseStore({ client, namespace: 'olmv1-system' }).create({
      extension: name,
      extensionUID: '',
      revision: 1,
      status: 'deployed',
      namespace: name,
      bundle: { package: name, name: `${name}.v1.0.0`, version: '1.0.0', image: 'example.com/gone:1.0.0' },
      manifest: Manifest.ofObjects([configMap, flowSchema]),
      properties: [],
      description: 'Install complete',
    });

    const blocked = await status(['--kubernetes-version', '1.37']);
    expect(blocked.code).toBe(1);
    expect(blocked.report.kubernetes).toEqual({ targetVersion: '1.37', targetSource: 'flag', error: null });
    expect(blocked.report.verdict.removedApis).toEqual([
      {
        extension: name,
        kind: 'FlowSchema',
        namespace: null,
        name: `${name}-fs`,
        apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta3',
        removedIn: '1.32',
        replacement: 'flowcontrol.apiserver.k8s.io/v1',
      },
    ]);
    expect(blocked.table).toContain(
      `Kubernetes upgrade to 1.37: blocked by removed APIs\n  ${name}: FlowSchema ${name}-fs uses flowcontrol.apiserver.k8s.io/v1beta3, removed in 1.32; use flowcontrol.apiserver.k8s.io/v1\n`,
    );

    // By default the target is the minor after the API server's: it removed v1beta3 long ago.
    const byDefault = await status([]);
    expect(byDefault.code).toBe(1);
    expect(byDefault.report.kubernetes).toMatchObject({ targetSource: 'server', targetVersion: expect.stringMatching(/^1\.\d+$/) });
    expect(byDefault.report.verdict.removedApis).toHaveLength(1);

    // A cluster still before 1.32 may move to 1.31.
    const before = await status(['--kubernetes-version', '1.31']);
    expect(before.report.verdict.removedApis).toEqual([]);
    expect(before.code).toBe(0);
  });
});
