// Drift repair of the installed release while its upgrade cannot be pulled (issue #42 item 3):
// real kube-apiserver + etcd, registry, catalogd and operator-controller. Each extension has
// 1.0.0 installed and its catalog offers 1.1.0, whose pull fails (a malformed registries.conf),
// stalls (a registry front that never answers) or finds no image (404). Deleted objects of the
// installed release must be back within seconds, as with no upgrade pending, while Progressing
// goes on reporting the upgrade's pull as it did before the delete and nothing new is recorded.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RegistriesConfPaths } from '../../pkg/shared/image/index.ts';
import { isNotFound, type KubeContext, type KubeObject, type ObjectRef } from '../../pkg/shared/kube/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
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
  type ExtCondition,
  type ExtensionStack,
} from '../support/extensions.ts';
import { startSlowRegistry, type SlowRegistry } from '../support/slow-registry.ts';
import { useOwnControlPlane } from '../support/own-control-plane.ts';

const run = randomBytes(3).toString('hex');
/** How long a repair may take: with no upgrade pending it takes a fraction of a second. */
const REPAIR_MS = 10_000;
let work: string;
let confFile: string;
let stack: ExtensionStack;
let kube: KubeContext;
let front: SlowRegistry;

const spec = (name: string, version: string): BundleSpec => ({ pkg: `repair-${name}-${run}`, version, configMaps: ['settings'] });
const [malformed, stalled, missing] = [spec('conf', '1.0.0'), spec('stall', '1.0.0'), spec('gone', '1.0.0')] as [BundleSpec, BundleSpec, BundleSpec];
const next = (s: BundleSpec): BundleSpec => ({ ...s, version: '1.1.0' });
const catalogOf = (s: BundleSpec): string => `${s.pkg}-catalog`;

const settings = (pkg: string): ObjectRef => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: pkg, name: `${pkg}-settings` });
const deployment = (pkg: string): ObjectRef => ({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: pkg, name: `${pkg}-controller` });

async function get(ref: ObjectRef): Promise<KubeObject | undefined> {
  return kube.client.get(ref).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
}

/** The catalog of package `s.pkg` alone: 1.0.0, and 1.1.0 (replacing it) at `nextImage` when given. */
async function publish(s: BundleSpec, image: string, nextImage?: string): Promise<void> {
  const entries = [{ version: '1.0.0' }, ...(nextImage === undefined ? [] : [{ version: '1.1.0', replaces: '1.0.0' }])];
  const bundles = [{ version: '1.0.0', image }, ...(nextImage === undefined ? [] : [{ version: '1.1.0', image: nextImage }])];
  await publishCatalog(stack, catalogOf(s), packageCatalog(s.pkg, { defaultChannel: 'stable', channels: [{ name: 'stable', entries }], bundles }));
}

/** Installed images of 1.0.0, by package. */
const installedImages = new Map<string, string>();

// Its own control plane, with kube-controller-manager running, as issue #42 asks of each safety break's proof.
const own = useOwnControlPlane({ controllerManager: true });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'olmv1-repair-e2e-'));
  confFile = join(work, 'registries.conf');
  await writeFile(confFile, '# no mirrors\n');
  const registriesConf: RegistriesConfPaths = { file: confFile, system: { file: join(work, 'none.conf'), dir: join(work, 'none.d') } };
  stack = await startExtensionStack(own.info, inject('envtestRegistries').anonymous.host, { controller: { registriesConf } });
  ({ kube } = stack);
  front = await startSlowRegistry(stack.registry);
  for (const s of [malformed, stalled, missing]) {
    await installerFor(kube.client, s.pkg, 'installer', [s, next(s)]);
    const image = await pushBundle(bundleFiles(s), `${stack.registry}/bundles/${s.pkg}:v1.0.0`);
    installedImages.set(s.pkg, image);
    await publish(s, image);
    const selector = { matchLabels: { 'olm.operatorframework.io/metadata.name': catalogOf(s) } };
    await kube.client.create(clusterExtension(s.pkg, { namespace: s.pkg, serviceAccount: 'installer', packageName: s.pkg, selector }));
  }
  for (const s of [malformed, stalled, missing]) await waitForExtension(kube.client, s.pkg, 'installed', installedAs(`${s.pkg}.v1.0.0`), 90_000);
});

afterAll(async () => {
  await stack?.stop();
  await front?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/**
 * Offers 1.1.0 of `s` at `nextImage`, waits until Progressing reports its pull as `reported`
 * says, deletes the installed release's ConfigMap and Deployment and expects both back (new uids)
 * within REPAIR_MS; then Progressing still reports the pull, 1.0.0 stays installed and the only
 * release record is revision 1. Returns the repair time.
 */
async function repairWhileUpgradeWaits(s: BundleSpec, nextImage: string, reported: (c: ExtCondition | undefined) => boolean): Promise<number> {
  await publish(s, installedImages.get(s.pkg) ?? '', nextImage);
  const before = await waitForExtension(kube.client, s.pkg, 'upgrade to 1.1.0 reported', (e) => reported(e.cond('Progressing')), 90_000);
  expect(before.cond('Progressing')).toMatchObject({ status: 'True', reason: 'Retrying' });
  const refs = [settings(s.pkg), deployment(s.pkg)];
  const uids = new Map<ObjectRef, string | undefined>();
  for (const ref of refs) uids.set(ref, (await get(ref))?.metadata.uid);
  for (const uid of uids.values()) expect(uid).toBeDefined();
  const started = Date.now();
  for (const ref of refs) await kube.client.delete(ref);
  for (const ref of refs) {
    await expect
      .poll(
        async () => {
          const uid = (await get(ref))?.metadata.uid;
          return uid !== undefined && uid !== uids.get(ref);
        },
        { timeout: REPAIR_MS, interval: 50, message: `${ref.kind} ${ref.name} put back within ${REPAIR_MS} ms` },
      )
      .toBe(true);
  }
  const repairedMs = Date.now() - started;
  const after = await waitForExtension(kube.client, s.pkg, 'still reporting the upgrade', (e) => reported(e.cond('Progressing')), 5_000);
  expect(after.cond('Progressing')).toMatchObject({ status: 'True', reason: 'Retrying' });
  expect(after.cond('Installed')).toMatchObject({ status: 'True', reason: 'Succeeded' });
  expect(after.install?.bundle.version).toBe('1.0.0');
  const history = await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(s.pkg);
  expect(history.map((r) => [r.revision, r.status])).toEqual([[1, 'deployed']]);
  console.log(`repair-while-upgrade-waits: ${s.pkg} ConfigMap and Deployment back ${repairedMs} ms after their delete`);
  return repairedMs;
}

/** Progressing's message for a failed pull of `s`'s 1.1.0 bundle starts so. */
const failedPull = (s: BundleSpec): string => `error for resolved bundle "${s.pkg}.v1.1.0" with version "1.1.0": `;

describe('drift repair of the installed release while its upgrade cannot be pulled', () => {
  it('the upgrade bundle is missing from the registry (404)', async () => {
    const image = `${stack.registry}/bundles/${missing.pkg}:v1.1.0`;
    await repairWhileUpgradeWaits(missing, image, (c) => (c?.message ?? '').startsWith(failedPull(missing)));
  });

  it('the upgrade bundle is on a registry that never answers', async () => {
    const pushed = await pushBundle(bundleFiles(next(stalled)), `${stack.registry}/bundles/${stalled.pkg}:v1.1.0`);
    const image = pushed.replace(stack.registry, front.host);
    front.stall(`bundles/${stalled.pkg}`);
    const pulling = `pulling image ${JSON.stringify(image)} of bundle "${stalled.pkg}.v1.1.0" with version "1.1.0" since `;
    // Pulling, or (past the read timeout) the timeout of that pull.
    await repairWhileUpgradeWaits(stalled, image, (c) => {
      const message = c?.message ?? '';
      return message.startsWith(pulling) || (message.startsWith(failedPull(stalled)) && message.includes('timeout after'));
    });
    expect(front.stalled.some((r) => r.repo === `bundles/${stalled.pkg}`)).toBe(true);
  });

  it('registries.conf is malformed', async () => {
    const image = await pushBundle(bundleFiles(next(malformed)), `${stack.registry}/bundles/${malformed.pkg}:v1.1.0`);
    await writeFile(confFile, '[[registry]\nlocation = "unterminated\n');
    try {
      await repairWhileUpgradeWaits(malformed, image, (c) => {
        const message = c?.message ?? '';
        return message.startsWith(failedPull(malformed)) && message.includes(`loading registries configuration ${JSON.stringify(confFile)}`);
      });
    } finally {
      await writeFile(confFile, '# no mirrors\n');
    }
  });
});
