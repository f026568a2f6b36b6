// operator-controller with a stalled registry (issue #25 item 9): real kube-apiserver + etcd,
// registry, catalogd and operator-controller with 2 reconcile workers. The new bundles of
// several extensions sit on a registry front that accepts connections and never answers; bundle
// pulls run in the background (decision 0067), so the stalled pulls hold no worker: healthy
// extensions are still repaired within seconds, and the stalled ones say they are pulling (then
// that the pull timed out, naming the request and the registry), never "Desired state reached".
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isNotFound, type KubeContext, type KubeObject, type ObjectRef } from '../../pkg/shared/kube/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import {
  bundleFiles,
  clusterExtension,
  getExtension,
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
import { startSlowRegistry, type SlowRegistry } from '../support/slow-registry.ts';

const run = randomBytes(3).toString('hex');
const CATALOG = `stalled-${run}`;
const WORKERS = 2;
const READ_TIMEOUT_S = 5;
let stack: ExtensionStack;
let kube: KubeContext;
let front: SlowRegistry;

const spec = (name: string, version: string): BundleSpec => ({ pkg: `stall-${name}-${run}`, version, configMaps: ['settings'] });
// Healthy: one version, on the test registry. Stalled: 1.0.0 there, 2.0.0 behind the front.
const healthy = ['h1', 'h2', 'h3'].map((n) => spec(n, '1.0.0'));
const stalled = ['s1', 's2', 's3', 's4', 's5', 's6'].map((n) => spec(n, '1.0.0'));
const v2 = (s: BundleSpec): BundleSpec => ({ ...s, version: '2.0.0' });
/** Digest references of the 2.0.0 bundles, through the front. */
const v2Images = new Map<string, string>();

const settings = (pkg: string): ObjectRef => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: pkg, name: `${pkg}-settings` });

/** The catalog: every package at 1.0.0, and the stalled ones also at 2.0.0 when `withV2`. */
async function publish(withV2: boolean): Promise<void> {
  let files: Record<string, string> = {};
  for (const s of [...healthy, ...stalled]) {
    const v1 = `${stack.registry}/bundles/${s.pkg}:v1.0.0`;
    const image = await pushBundle(bundleFiles(s), v1);
    const next = withV2 ? v2Images.get(s.pkg) : undefined;
    const entries = [{ version: '1.0.0' }, ...(next === undefined ? [] : [{ version: '2.0.0', replaces: '1.0.0' }])];
    const bundles = [{ version: '1.0.0', image }, ...(next === undefined ? [] : [{ version: '2.0.0', image: next }])];
    files = { ...files, ...packageCatalog(s.pkg, { defaultChannel: 'stable', channels: [{ name: 'stable', entries }], bundles }) };
  }
  await publishCatalog(stack, CATALOG, files);
}

async function get(ref: ObjectRef): Promise<KubeObject | undefined> {
  return kube.client.get(ref).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
}

const progressing = async (pkg: string): Promise<{ reason?: string; message?: string; observedGeneration?: number } | undefined> =>
  (await getExtension(kube.client, pkg)).cond('Progressing');

beforeAll(async () => {
  stack = await startExtensionStack(inject('envtestControlPlane'), inject('envtestRegistries').anonymous.host, {
    controller: { maxConcurrentReconciles: WORKERS, pullReadTimeoutMs: READ_TIMEOUT_S * 1000 },
  });
  ({ kube } = stack);
  front = await startSlowRegistry(stack.registry);
  for (const s of [...healthy, ...stalled]) await installerFor(kube.client, s.pkg, 'installer', [s, v2(s)]);
  for (const s of stalled) {
    const pushed = await pushBundle(bundleFiles(v2(s)), `${stack.registry}/bundles/${s.pkg}:v2.0.0`);
    v2Images.set(s.pkg, pushed.replace(stack.registry, front.host));
    front.stall(`bundles/${s.pkg}`);
  }
  await publish(false);
  for (const s of [...healthy, ...stalled]) {
    await kube.client.create(clusterExtension(s.pkg, { namespace: s.pkg, serviceAccount: 'installer', packageName: s.pkg }));
  }
  for (const s of [...healthy, ...stalled]) await waitForExtension(kube.client, s.pkg, 'installed', installedAs(`${s.pkg}.v1.0.0`));
});

afterAll(async () => {
  await stack?.stop();
  await front?.close();
});

/** Progressing messages of the stalled extensions, as a poller saw them while their upgrades wait. */
const seen = new Map<string, Set<string>>();
let polling: Promise<void> | undefined;
let stopPolling = false;
/** When the catalog offered the 2.0.0 upgrades. */
let offeredAt = 0;

const pulling = (message: string | undefined): boolean => (message ?? '').startsWith('pulling image ');

/** How many pulls of its 2.0.0 bundle the poller saw `pkg` report (distinct `since` times). */
function pullsSeen(pkg: string): number {
  const since = [...(seen.get(pkg) ?? [])].filter(pulling).map((m) => /since (\S+)$/.exec(m)?.[1]);
  return new Set(since).size;
}

describe('a stalled registry', () => {
  // Every test starts from here: the catalog offers 2.0.0 of the stalled packages, whose
  // bundles the front holds; once each says it is pulling, a poller samples what they say
  // until the end.
  beforeAll(async () => {
    offeredAt = Date.now();
    await publish(true);
    for (const s of stalled) await waitForExtension(kube.client, s.pkg, 'pulling 2.0.0', (e) => pulling(e.cond('Progressing')?.message), 30_000);
    polling = (async () => {
      while (!stopPolling) {
        for (const s of stalled) {
          const message = (await progressing(s.pkg))?.message ?? '';
          const set = seen.get(s.pkg) ?? new Set<string>();
          set.add(message);
          seen.set(s.pkg, set);
        }
        await new Promise((r) => setTimeout(r, 100)); // the poller's sampling interval
      }
    })();
  });

  afterAll(async () => {
    stopPolling = true;
    await polling;
  });

  it('upgrades whose bundles it holds report the pull in progress, and keep the installed version', async () => {
    for (const s of stalled) {
      const ext = await waitForExtension(
        kube.client,
        s.pkg,
        'pulling 2.0.0',
        (e) => e.cond('Progressing')?.reason === 'Retrying' && pulling(e.cond('Progressing')?.message),
        30_000,
      );
      expect(ext.cond('Progressing')?.message).toMatch(
        new RegExp(
          `^pulling image "${v2Images.get(s.pkg)}" of bundle "${s.pkg}\\.v2\\.0\\.0" with version "2\\.0\\.0" since \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`,
        ),
      );
      expect(ext.cond('Installed')).toMatchObject({ status: 'True', reason: 'Succeeded' });
      expect(ext.install?.bundle.version).toBe('1.0.0');
    }
    console.log(`stalled-registry: ${stalled.length} upgrades report their pull ${Date.now() - offeredAt} ms after the catalog offered them`);
    expect(front.stalled.length).toBeGreaterThanOrEqual(stalled.length);
  });

  it(`leaves the ${WORKERS} workers free: managed objects of healthy extensions are put back within 10 s`, async () => {
    const before = new Map<string, string | undefined>();
    for (const s of healthy) before.set(s.pkg, (await get(settings(s.pkg)))?.metadata.uid);
    let inFlight = 0;
    await waitUntil(
      'a stalled bundle pull in flight',
      async () => (inFlight = await readMetric(stack.controller.healthUrl, 'operator_controller_bundle_pulls_in_flight')) >= 1,
      60_000,
    );
    const started = Date.now();
    for (const s of healthy) await kube.client.delete(settings(s.pkg));
    const repaired: Record<string, number> = {};
    await Promise.all(
      healthy.map(async (s) => {
        await waitUntil(
          `${s.pkg} ConfigMap put back`,
          async () => {
            const cm = await get(settings(s.pkg));
            return cm !== undefined && cm.metadata.uid !== before.get(s.pkg);
          },
          10_000,
        );
        repaired[s.pkg] = Date.now() - started;
      }),
    );
    console.log(
      `stalled-registry: repaired with ${inFlight} pulls in flight on ${WORKERS} workers (ms after the deletes): ${JSON.stringify(repaired)}`,
    );
    for (const s of healthy) {
      const ext = await waitForExtension(kube.client, s.pkg, 'still installed', installedAs(`${s.pkg}.v1.0.0`));
      expect(ext.cond('Progressing')?.message).toBe('Desired state reached');
    }
  });

  it('a stalled pull ends after the read timeout with a message naming the timeout, the request and the registry', async () => {
    const s = stalled[0] as BundleSpec;
    const ext = await waitForExtension(
      kube.client,
      s.pkg,
      'pull timed out',
      (e) => (e.cond('Progressing')?.message ?? '').includes('timeout after'),
      (READ_TIMEOUT_S + 40) * 1000,
    );
    const digest = v2Images.get(s.pkg)?.split('@')[1] ?? '';
    expect(ext.cond('Progressing')).toMatchObject({
      status: 'True',
      reason: 'Retrying',
      message: `error for resolved bundle "${s.pkg}.v2.0.0" with version "2.0.0": pulling image "${v2Images.get(s.pkg)}": timeout after ${READ_TIMEOUT_S}s reading manifest ${digest} from registry ${front.host}`,
    });
    expect(ext.install?.bundle.version).toBe('1.0.0');
    console.log(`stalled-registry: first timeout reported ${Date.now() - offeredAt} ms after the catalog offered the upgrades`);
  });

  it('never says "Desired state reached" while an upgrade waits for its bundle', async () => {
    // Observed until each stalled extension reported a second pull: its first one ended (timed
    // out) and the retry began, all without the upgrade's bundle.
    await waitUntil('every stalled upgrade seen in a second pull', async () => stalled.every((s) => pullsSeen(s.pkg) >= 2), 120_000);
    for (const s of stalled) {
      const messages = [...(seen.get(s.pkg) ?? [])];
      expect(messages).not.toContain('Desired state reached');
      for (const m of messages) expect(m).toMatch(/^(pulling image "|error for resolved bundle ".*": pulling image ".*": timeout after)/);
    }
    // Nothing new was recorded for them.
    const store = createReleaseStore({ client: kube.client, namespace: 'olmv1-system' });
    for (const s of stalled) expect((await store.history(s.pkg)).map((r) => [r.revision, r.status])).toEqual([[1, 'deployed']]);
  });

  it('upgrades once the registry answers again', async () => {
    const started = Date.now();
    for (const s of stalled) front.unstall(`bundles/${s.pkg}`);
    for (const s of stalled) await waitForExtension(kube.client, s.pkg, 'upgraded', installedAs(`${s.pkg}.v2.0.0`), 60_000);
    console.log(`stalled-registry: ${stalled.length} upgrades done ${Date.now() - started} ms after the registry answered again`);
  });
});
