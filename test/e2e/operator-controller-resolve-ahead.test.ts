// Resolution ahead of the upgrade (decision 0100), on the real API server with catalogd, the
// registry and operator-controller as a child process with one reconcile worker. The worker is
// held (the test pause hook stops a third extension's reconcile at its apply step) when the
// catalog starts offering 1.0.1: no reconcile can run, yet within seconds each Automatic
// extension's status says which bundle it will be upgraded to, while it stays installed at 1.0.0
// with one revision; one under the Manual policy is not announced. A fresh process then
// upgrades both, and its status replaces the announcement.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { UPDATE_POLICY_ANNOTATION } from '../../pkg/shared/api/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { type KubeContext, connect } from '../../pkg/shared/kube/index.ts';
import { Reaper } from '../envtest/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import { startCatalogd, type TestCatalogd } from '../support/catalogd.ts';
import { type ControllerProcess, killController, startControllerProcess, waitForPauses } from '../support/controller-process.ts';
import {
  bundleFiles,
  chainedPackageCatalog,
  clusterExtension,
  installedAs,
  installerFor,
  publishCatalog,
  pushBundle,
  waitForExtension,
  type BundleSpec,
} from '../support/extensions.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { readMetric } from '../support/operator-controller.ts';

const run = randomBytes(3).toString('hex');
const CATALOG = `ahead-${run}`;
const AUTO = [`ra-a-${run}`, `ra-b-${run}`];
const MANUAL = `ra-manual-${run}`;
const BLOCKER = `ra-blocker-${run}`;
const AHEAD = 'operator_controller_resolve_ahead_total';

let kube: KubeContext;
let catalogd: TestCatalogd;
let reaper: Reaper;
let work: string;
let registry: string;
const running = new Set<ControllerProcess>();
/** Bundle image references by package and version. */
const images = new Map<string, Record<string, string>>();

const spec = (pkg: string, version: string): BundleSpec => ({ pkg, version, configMaps: ['settings'] });

/** The catalog: every package at 1.0.0, and all but the blocker also at 1.0.1 when `next`. */
async function publish(next: boolean): Promise<void> {
  let files: Record<string, string> = {};
  for (const pkg of [...AUTO, MANUAL, BLOCKER]) {
    const versions = next && pkg !== BLOCKER ? ['1.0.0', '1.0.1'] : ['1.0.0'];
    files = { ...files, ...chainedPackageCatalog(pkg, versions, images.get(pkg) ?? {}) };
  }
  await publishCatalog({ kube, registry }, CATALOG, files);
}

async function controller(name: string, pauseAt: string[] = []): Promise<ControllerProcess> {
  const c = await startControllerProcess({
    name,
    cp: inject('envtestControlPlane'),
    cacheDir: await mkdtemp(join(work, `${name}-cache-`)),
    logDir: work,
    reaper,
    pauseAt,
    args: ['--leader-elect=false', '--max-concurrent-reconciles=1'],
  });
  running.add(c);
  return c;
}

async function create(pkg: string, annotations?: Record<string, string>): Promise<void> {
  const ce = clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg });
  if (annotations !== undefined) ce.metadata.annotations = annotations;
  await kube.client.create(ce);
}

const progressing = (e: Awaited<ReturnType<typeof waitForExtension>>) => e.cond('Progressing');

beforeAll(async () => {
  const cp = inject('envtestControlPlane');
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } }).catch(() => undefined);
  catalogd = await startCatalogd(cp, { pollMinuteMs: 1000 });
  reaper = Reaper.start();
  work = await mkdtemp(join(tmpdir(), 'operator-controller-ahead-'));
  registry = inject('envtestRegistries').anonymous.host;
  for (const pkg of [...AUTO, MANUAL, BLOCKER]) {
    const specs = [spec(pkg, '1.0.0'), spec(pkg, '1.0.1')];
    const refs: Record<string, string> = {};
    for (const s of specs) refs[s.version] = await pushBundle(bundleFiles(s), `${registry}/ahead/${pkg}:v${s.version}`);
    images.set(pkg, refs);
    await installerFor(kube.client, pkg, 'installer', specs);
  }
  await publish(false);
}, 300_000);

afterAll(async () => {
  for (const c of running) await killController(c);
  for (const pkg of [...AUTO, MANUAL, BLOCKER]) {
    const ref = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name: pkg };
    await kube?.client.patch(ref, { metadata: { finalizers: null } }, 'merge').catch(() => undefined);
    await kube?.client.delete(ref).catch(() => undefined);
  }
  await kube?.client.delete({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: CATALOG }).catch(() => undefined);
  await catalogd?.destroy();
  kube?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('resolution ahead of the upgrade', () => {
  it('announces each Automatic upgrade in status while no worker is free, and the upgrade replaces the announcement', async () => {
    const hooked = await controller('ahead-hooked', [`${BLOCKER}=step:apply`]);
    for (const pkg of AUTO) await create(pkg);
    await create(MANUAL, { [UPDATE_POLICY_ANNOTATION]: 'Manual' });
    for (const pkg of [...AUTO, MANUAL]) await waitForExtension(kube.client, pkg, 'installed at 1.0.0', installedAs(`${pkg}.v1.0.0`));
    // The only worker stops in the blocker's reconcile and stays there.
    await create(BLOCKER);
    await waitForPauses(hooked, [BLOCKER]);

    await publish(true);
    for (const pkg of AUTO) {
      const e = await waitForExtension(kube.client, pkg, 'announced 1.0.1', (x) => progressing(x)?.reason === 'RollingOut');
      expect(progressing(e)).toMatchObject({
        status: 'True',
        message: `Resolved bundle "${pkg}.v1.0.1" with version "1.0.1", upgrading from version "1.0.0"`,
      });
      expect(e.cond('Installed')?.status).toBe('True');
      expect((e.obj.status as { install?: unknown }).install).toEqual({ bundle: { name: `${pkg}.v1.0.0`, version: '1.0.0' } });
    }
    // Every extension of the catalog was offered (again on each later change of the catalog's
    // status): two announced, the Manual one and the blocker (nothing installed) skipped.
    await waitUntil('the resolutions ahead to end', async () => (await readMetric(hooked.healthUrl, AHEAD, { outcome: 'skipped' })) >= 2, 30_000);
    expect(await readMetric(hooked.healthUrl, AHEAD, { outcome: 'reported' })).toBe(2);
    expect(await readMetric(hooked.healthUrl, AHEAD, { outcome: 'failed' })).toBe(0);
    const manual = await waitForExtension(kube.client, MANUAL, 'still settled', installedAs(`${MANUAL}.v1.0.0`));
    expect(progressing(manual)).toMatchObject({ reason: 'Succeeded', message: 'Desired state reached' });
    // No reconcile ran: one revision each, nothing applied for 1.0.1.
    const releases = createReleaseStore({ client: kube.client, namespace: 'olmv1-system' });
    for (const pkg of AUTO) expect((await releases.history(pkg)).map((r) => [r.revision, r.bundle.version])).toEqual([[1, '1.0.0']]);

    await killController(hooked);
    running.delete(hooked);
    await controller('ahead-fresh');
    for (const pkg of AUTO) {
      const e = await waitForExtension(kube.client, pkg, 'upgraded to 1.0.1', installedAs(`${pkg}.v1.0.1`));
      expect(progressing(e)).toMatchObject({ status: 'True', reason: 'Succeeded', message: 'Desired state reached' });
      expect((await releases.history(pkg)).map((r) => [r.revision, r.status])).toEqual([
        [2, 'deployed'],
        [1, 'superseded'],
      ]);
    }
    await waitForExtension(kube.client, BLOCKER, 'installed at 1.0.0', installedAs(`${BLOCKER}.v1.0.0`));
    const held = await waitForExtension(kube.client, MANUAL, 'its upgrade held', (x) => x.cond('UpgradeAvailable')?.status === 'True');
    expect(installedAs(`${MANUAL}.v1.0.0`)(held)).toBe(true);
  }, 300_000);
});
