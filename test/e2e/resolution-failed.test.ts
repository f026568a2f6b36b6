// Upstream's scenario "Cannot update extension to non successor version" on the real API server,
// registry, catalogd and operator-controller: the Progressing condition carries upstream's exact
// message and nothing else (upstream's suite compares it whole), while what the catalog offers
// instead goes to a ResolutionFailed Warning Event that `kubectl describe` shows, and to
// `olmv1 upgrade plan`. Waits on the cluster, never on a fixed sleep.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { createKubeconfigLookup } from '../../cmd/olmv1/cluster-access.ts';
import { runStatus } from '../../cmd/olmv1/status.ts';
import { runUpgradePlan, type UpgradeCommandDeps } from '../../cmd/olmv1/upgrade.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { captureIO } from '../support/command-io.ts';
import { eventsAbout, waitForEvent } from '../support/events.ts';
import { readMetric } from '../support/operator-controller.ts';
import {
  clusterExtension,
  installedAs,
  installerFor,
  offerPackage,
  requestRefusedVersion,
  useExtensionStack,
  waitForExtension,
  type BundleSpec,
} from '../support/extensions.ts';
import { useOwnControlPlane } from '../support/own-control-plane.ts';

const run = randomBytes(3).toString('hex');
// With kube-controller-manager running, as issue #42 asks of each safety break's proof.
const suite = useExtensionStack({ controlPlane: useOwnControlPlane({ controllerManager: true }) });
const exec = promisify(execFile);

/** `olmv1 upgrade plan NAME` in this process against the suite's cluster. */
async function plan(name: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  const client = createCatalogClient();
  const deps: UpgradeCommandDeps = {
    connectCluster: () => Promise.resolve({ ...suite.kube, close: () => undefined }),
    catalogContent: createCatalogContentCache({ client }),
  };
  try {
    return { code: await runUpgradePlan([name], io, deps), stdout, stderr };
  } finally {
    client.close();
  }
}

describe('a failed resolution', () => {
  it('cannot update an extension to a non-successor version: upstream message on the condition, the hints in a Warning Event', async () => {
    const { kube } = suite;
    const pkg = `nonsucc-${run}`;
    const specs: BundleSpec[] = ['1.0.0', '1.0.1', '1.2.0'].map((version) => ({ pkg, version }));
    await installerFor(kube.client, pkg, 'installer', specs);
    // 1.0.0 <- 1.0.1 <- 1.2.0: from 1.0.0 the only successor is 1.0.1.
    await offerPackage(suite.stack, pkg, [{ spec: specs[0]! }, { spec: specs[1]!, replaces: '1.0.0' }, { spec: specs[2]!, replaces: '1.0.1' }]);
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, version: '1.0.0' }));
    await waitForExtension(kube.client, pkg, 'installed 1.0.0', installedAs(`${pkg}.v1.0.0`), 90_000);

    const refused = await requestRefusedVersion(kube.client, pkg, '1.2.0');
    const upstream = `error upgrading from currently installed version "1.0.0": no bundles found for package "${pkg}" matching version "1.2.0"`;
    expect(refused.cond('Progressing')).toMatchObject({ status: 'True', reason: 'Retrying', message: upstream });
    expect(refused.cond('Installed')).toMatchObject({ status: 'True', reason: 'Succeeded' });

    const hints = [
      'versions: 1.2.0, 1.0.1, 1.0.0',
      'successors of the installed version "1.0.0": 1.0.1',
      'upgradeConstraintPolicy: SelfCertified would allow any version of the channel, downgrades too',
    ];
    const warning = await waitForEvent(kube.client, 'ClusterExtension', pkg, 'ResolutionFailed');
    expect(warning).toMatchObject({ type: 'Warning', action: 'Resolve', reportingController: 'olm.operatorframework.io/operator-controller' });
    expect(warning.note).toBe([upstream, ...hints].join('\n'));

    // What a user reads: kubectl describe lists the Event with its lines.
    const cp = suite.stack.cp;
    const { stdout: described } = await exec(cp.kubectl, ['--kubeconfig', cp.kubeconfigPath, 'describe', 'clusterextension', pkg]);
    expect(described).toContain('ResolutionFailed');
    for (const line of hints) expect(described).toContain(line);

    // Reconciles failing with the same text add no Event, not even to its series: two more are
    // started by label changes (a label is a reconcile input) and seen in the error count.
    const errors = (): Promise<number> => readMetric(suite.stack.controller.healthUrl, 'controller_runtime_reconcile_errors_total');
    for (const nudge of ['one', 'two']) {
      const before = await errors();
      await kube.client.patch(
        { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name: pkg },
        { metadata: { labels: { 'olmv1.test/nudge': nudge } } },
        'merge',
      );
      await vi.waitFor(async () => expect(await errors()).toBeGreaterThan(before), { timeout: 30_000, interval: 200 });
    }
    const failures = (await eventsAbout(kube.client, 'ClusterExtension', pkg)).filter((e) => e.reason === 'ResolutionFailed');
    expect(failures.map((e) => e.count)).toEqual([1]);

    // olmv1 status shows them with the failing extension (its JSON and its table).
    const lookup = createKubeconfigLookup({ KUBECONFIG: suite.stack.cp.kubeconfigPath }, process.cwd());
    const status = captureIO();
    await runStatus(['-o', 'json', '--cluster-version', '4.18'], status, { kubeconfig: lookup, isTTY: false, columns: undefined, noColor: true });
    const report = JSON.parse(status.out()) as { extensions: { name: string; resolution?: unknown }[] };
    expect(report.extensions.find((e) => e.name === pkg)?.resolution).toEqual({ message: upstream, hints });
    const table = captureIO();
    await runStatus(['--cluster-version', '4.18'], table, { kubeconfig: lookup, isTTY: false, columns: undefined, noColor: true });
    expect(table.out()).toContain(`\n${pkg}: ${upstream}\n${hints.map((h) => `  ${h}\n`).join('')}`);

    // olmv1 upgrade plan prints the same lines after the error.
    const planned = await plan(pkg);
    expect(planned.code).toBe(1);
    expect(planned.stdout).toContain(
      `Cannot plan: the resolution fails:\n  ${upstream}\nWhat the catalogs offer instead:\n${hints.map((h) => `  ${h}\n`).join('')}`,
    );
  });
});
