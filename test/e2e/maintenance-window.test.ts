// Maintenance windows end to end (issue 63 item 3, decision 0122) on the real API server and
// registry, with catalogd and operator-controller in this process: an extension whose annotation
// names a window is installed at once (a first install is never held); the upgrade its catalog
// then offers waits (condition, Event, `olmv1 upgrade plan`) until the window, which opens about
// a minute later, and then goes ahead without anything else happening; an approved upgrade goes
// outside its window. Every wait is on a condition or an Event.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runUpgradePlan, type UpgradeCommandDeps } from '../../cmd/olmv1/upgrade.ts';
import { fetchBundleFiles } from '../../cmd/olmv1/bundle-image.ts';
import type { UpgradePlan } from '../../pkg/olmv1/upgrade/index.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { MAINTENANCE_WINDOW_ANNOTATION } from '../../pkg/operator-controller/maintenance/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { APPROVED_BUNDLE_ANNOTATION, CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
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

const run = randomBytes(3).toString('hex');
const suite = useExtensionStack();
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };
/** A window that will not open during the test: New Year's Day, 00:00-00:01 UTC. */
const NEW_YEAR = '0 0 1 1 * 1m';

/** Runs `olmv1 upgrade plan -o json` in-process against the suite's cluster. */
async function plan(name: string): Promise<UpgradePlan> {
  let stdout = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: () => undefined } };
  const client = createCatalogClient();
  const deps: UpgradeCommandDeps = {
    connectCluster: () => Promise.resolve({ ...suite.kube, close: () => undefined }),
    catalogContent: createCatalogContentCache({ client }),
    fetchBundle: (ref, access) => fetchBundleFiles(ref, { insecureRegistries: ['127.0.0.1', 'localhost'], ...access }),
  };
  try {
    expect(await runUpgradePlan([name, '-o', 'json'], io, deps)).toBe(0);
    return JSON.parse(stdout) as UpgradePlan;
  } finally {
    client.close();
  }
}

/** Installs `pkg` 1.0.0 with the window annotation `window`, then offers 1.1.0. */
async function installThenOffer(pkg: string, window: string): Promise<void> {
  const v1: BundleSpec = { pkg, version: '1.0.0' };
  const v2: BundleSpec = { pkg, version: '1.1.0' };
  await installerFor(suite.kube.client, pkg, 'installer', [v1, v2]);
  await offerPackage(suite.stack, pkg, [{ spec: v1 }]);
  const ce = clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg });
  ce.metadata.annotations = { [MAINTENANCE_WINDOW_ANNOTATION]: window };
  await suite.kube.client.create(ce);
  // A first install is not held, whatever the window.
  await waitForExtension(suite.kube.client, pkg, 'installed at 1.0.0', installedAs(`${pkg}.v1.0.0`));
  await offerPackage(suite.stack, pkg, [{ spec: v1 }, { spec: v2, replaces: '1.0.0' }]);
}

const heldUntil = (pkg: string, opening: string) => (e: Awaited<ReturnType<typeof waitForExtension>>) =>
  e.cond('UpgradeAvailable')?.reason === 'OutsideMaintenanceWindow' &&
  (e.cond('UpgradeAvailable')?.message ?? '').includes(`bundle "${pkg}.v1.1.0"`) &&
  (e.cond('UpgradeAvailable')?.message ?? '').includes(`it opens at ${opening}`);

const revisions = async (pkg: string): Promise<string[]> =>
  (await createReleaseStore({ client: suite.kube.client, namespace: 'olmv1-system' }).history(pkg)).map(
    (r) => `${r.revision} ${r.bundle.version} ${r.status}`,
  );

/** A UTC window of 10 minutes opening at the first whole minute at least 40 s from now (cron has minutes). */
function windowSoon(): { spec: string; opensAt: number; iso: string } {
  const opensAt = Math.ceil((Date.now() + 40_000) / 60_000) * 60_000;
  const d = new Date(opensAt);
  const spec = `${d.getUTCMinutes()} ${d.getUTCHours()} ${d.getUTCDate()} ${d.getUTCMonth() + 1} * 10m`;
  return { spec, opensAt, iso: d.toISOString().replace(/\.000Z$/, 'Z') };
}

describe('maintenance window', () => {
  it('holds an upgrade until its window opens, says when, and then upgrades', { timeout: 300_000 }, async () => {
    const pkg = `window-${run}`;
    await installThenOffer(pkg, NEW_YEAR);
    const year = new Date().getUTCFullYear() + 1;
    let e = await waitForExtension(suite.kube.client, pkg, 'held until New Year', heldUntil(pkg, `${year}-01-01T00:00:00Z`));
    // The reconcile that held it kept 1.0.0 applied: one revision, nothing failing.
    expect(e.cond('UpgradeAvailable')?.status).toBe('True');
    expect(e.install?.bundle.name).toBe(`${pkg}.v1.0.0`);
    expect(e.cond('Progressing')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    expect(await revisions(pkg)).toEqual(['1 1.0.0 deployed']);
    const event = await waitForEvent(suite.kube.client, 'ClusterExtension', pkg, 'UpgradeHeld');
    expect(event.note).toContain(`waits for the maintenance window "${NEW_YEAR}"`);
    expect((await plan(pkg)).window).toMatchObject({ window: NEW_YEAR, decision: 'hold', opensAt: `${year}-01-01T00:00:00Z` });

    // A window about a minute away: the condition, the plan and an Event name its opening.
    const soon = windowSoon();
    await suite.kube.client.patch({ ...CE, name: pkg }, { metadata: { annotations: { [MAINTENANCE_WINDOW_ANNOTATION]: soon.spec } } }, 'merge');
    e = await waitForExtension(suite.kube.client, pkg, `held until ${soon.iso}`, heldUntil(pkg, soon.iso));
    expect(e.install?.bundle.name).toBe(`${pkg}.v1.0.0`);
    await waitForEvent(suite.kube.client, 'ClusterExtension', pkg, 'UpgradeHeld', (ev) => ev.note.includes(`it opens at ${soon.iso}`));
    // The plan is read while the window is still closed (it opens at least 40 s after `soon` was computed).
    expect((await plan(pkg)).window).toMatchObject({ window: soon.spec, source: 'annotation', decision: 'hold', opensAt: soon.iso });

    // Nothing else changes: the reconcile the step asked for at the opening upgrades.
    e = await waitForExtension(suite.kube.client, pkg, 'upgraded in its window', installedAs(`${pkg}.v1.1.0`), 200_000);
    // Never before the window opened.
    expect(Date.now()).toBeGreaterThanOrEqual(soon.opensAt);
    expect(await revisions(pkg)).toEqual(['2 1.1.0 deployed', '1 1.0.0 superseded']);
  });

  it('an approved upgrade goes outside its window', async () => {
    const pkg = `window-approved-${run}`;
    await installThenOffer(pkg, NEW_YEAR);
    await waitForExtension(suite.kube.client, pkg, 'held', (x) => x.cond('UpgradeAvailable')?.reason === 'OutsideMaintenanceWindow');
    await suite.kube.client.patch({ ...CE, name: pkg }, { metadata: { annotations: { [APPROVED_BUNDLE_ANNOTATION]: `${pkg}.v1.1.0` } } }, 'merge');
    await waitForExtension(suite.kube.client, pkg, 'upgraded on approval', installedAs(`${pkg}.v1.1.0`));
    expect(await revisions(pkg)).toEqual(['2 1.1.0 deployed', '1 1.0.0 superseded']);
  });
});
