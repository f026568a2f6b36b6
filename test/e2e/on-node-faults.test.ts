// Faults against the product as it ships on a real node (issue #43; test/support/on-node.ts): a
// rolling restart of both Deployments while a writer changes ClusterExtensions a few times a
// second loses no change, applies nothing twice and leaves consistent release records; hostile
// bundles (a gzip bomb, too many files, ~24 MB of manifest in small entries) against
// operator-controller's 512Mi limit fail clearly without losing what is installed; a catalog
// image bomb leaves catalogd serving. Logs the changes made, the convergence time and each Pod's
// peak memory (its memory cgroup's max_usage_in_bytes; bench/results/in-cluster.md). Bundles are
// ConfigMaps only, so the 2-core node runs no Pod per extension.
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SYSTEM_NAMESPACE, type Kubectl } from '../../pkg/olmv1/in-cluster/index.ts';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { connect, type KubeClient, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { startChangeStream } from '../support/change-stream.ts';
import { containers, readPeak, resetPeak } from '../support/container-peaks.ts';
import { deployOnNode, httpsGet, kube, nodeUnavailable, timed as timedBy, type OnNode } from '../support/on-node.ts';
import { hostileBundles, hostilePackage, offerAll, pushCatalogBomb, type HostileKind } from '../support/on-node-offer.ts';
import { expectSettled } from '../support/release-invariants.ts';
import { conditionOf, footprint, lagging, revisionsOf } from '../support/extension-intent.ts';

const missing = nodeUnavailable();
if (missing !== undefined) console.warn(`on-node-faults.test.ts skipped: ${missing}`);

const NS = 'faults';
const CATALOG = 'faults';
const VERSIONS = ['1.0.0', '1.1.0', '1.2.0', '2.0.0'];
const STREAM = Array.from({ length: 20 }, (_, i) => `stream-${String(i).padStart(2, '0')}`);
const HOSTILE: HostileKind[] = ['bomb', 'files', 'huge'];
const DEPLOYMENTS = { catalogd: 'catalogd-controller-manager', 'operator-controller': 'operator-controller-controller-manager' };
const MiB = 2 ** 20;
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };
let onNode: OnNode | undefined;
let kubectl: Kubectl;
let k: ReturnType<typeof kube>;
let ctx: KubeContext | undefined;
let client: KubeClient;
let registry = '';
let caPem = '';
const log = (line: string): void => console.error(`on-node-faults: ${line}`);
const timed = (name: string, started: number): void => timedBy(log, name, started);

beforeAll(async () => {
  if (missing !== undefined) return;
  onNode = await deployOnNode(log);
  ({ kubectl } = onNode);
  k = kube(kubectl);
  ({ host: registry } = onNode.product.registry);
  caPem = onNode.product.caCertPem;
  ctx = await connect({ kind: 'file', path: onNode.cp.info.kubeconfigPath });
  client = ctx.client;
  const started = Date.now();
  const versions = Object.fromEntries([...STREAM, 'steady', 'keeper'].map((p) => [p, p.startsWith('stream-') ? VERSIONS : ['1.0.0']]));
  const hostile = hostileBundles();
  const ref = await offerAll(registry, versions, Object.fromEntries(HOSTILE.map((kind) => [hostilePackage(kind), hostile[kind]])));
  timed(`${STREAM.length * VERSIONS.length + 2 + HOSTILE.length} bundles and the catalog pushed`, started);
  await k.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await k.clusterAdminInstaller(NS, 'faults-installer');
  await k.apply({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name: CATALOG },
    spec: { source: { type: 'Image', image: { ref } } },
  });
  // expect.poll is for tests only; a hook waits with vi.waitFor.
  await vi.waitFor(
    async () => {
      if (conditionOf(await client.get(catalogRef(CATALOG)), 'Serving')?.status !== 'True') throw new Error(`ClusterCatalog ${CATALOG} not Serving`);
    },
    { timeout: 120_000, interval: 1000 },
  );
  timed('catalog Serving', started);
}, 1_800_000);

afterAll(async () => {
  ctx?.close();
  await onNode?.stop();
});

describe.skipIf(missing !== undefined)('the product on a real node under faults', () => {
  it('loses no ClusterExtension change through a rolling restart of both Deployments under a steady stream of changes', async () => {
    await client.apply(extension('steady', 'steady', '1.0.0'), { fieldManager: 'e2e', force: true });
    await expect.poll(() => lagging(client, 'steady', { version: '1.0.0' }), { timeout: 120_000, interval: 1000 }).toEqual([]);
    const steadyBefore = await footprint(client, 'steady');

    const stream = startChangeStream({
      client,
      names: STREAM,
      versions: VERSIONS,
      manifest: (name, version) => extension(name, name, version),
      intervalMs: 300,
      seed: 43,
      minLive: 4,
    });
    await expect.poll(() => stream.count, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(20);
    const podsBefore = (await k.list(['pods', '-n', SYSTEM_NAMESPACE])).map((p) => p.metadata.name);
    const restarted = Date.now();
    await kubectl(['rollout', 'restart', '-n', SYSTEM_NAMESPACE, ...Object.values(DEPLOYMENTS).map((d) => `deployment/${d}`)]);
    await Promise.all(
      Object.values(DEPLOYMENTS).map((d) => kubectl(['rollout', 'status', '-n', SYSTEM_NAMESPACE, `deployment/${d}`, '--timeout=300s'])),
    );
    const rolledOut = Date.now();
    timed('both rollouts complete', restarted);
    // The stream goes on until the old Pods are gone (the old leader has let the Lease go) and
    // for 30 more changes.
    const atRollout = stream.count;
    await expect
      .poll(async () => (await k.list(['pods', '-n', SYSTEM_NAMESPACE])).filter((p) => podsBefore.includes(p.metadata.name)).length, {
        timeout: 120_000,
        interval: 250,
      })
      .toBe(0);
    const oldPodsGone = stream.count;
    await expect.poll(() => stream.count, { timeout: 60_000, interval: 100 }).toBeGreaterThanOrEqual(oldPodsGone + 30);
    const { intents, writes, count, kinds } = await stream.stop();
    const stopped = Date.now();
    log(
      `${count} changes (${JSON.stringify(kinds)}) in ${((stopped - restarted) / 1000).toFixed(1)} s from the restart, ${atRollout} before the rollouts completed, ${oldPodsGone} before the old Pods were gone`,
    );
    for (const [name, replicas] of [
      ['catalogd', 2],
      ['operator-controller', 1],
    ] as const) {
      const ready = await k.readyPods(SYSTEM_NAMESPACE, `app.kubernetes.io/name=${name}`);
      expect(ready, `${name} Pods are new`).toHaveLength(replicas);
      for (const pod of ready) expect(podsBefore).not.toContain(pod);
    }

    let seen = '';
    const all = async (): Promise<string[]> => {
      const out = (await Promise.all([...intents].map(([n, i]) => lagging(client, n, i)))).flat();
      // What is still lagging, logged when it changes: where the convergence time goes.
      if (out.join() !== seen) log(`${((Date.now() - stopped) / 1000).toFixed(1)} s: ${out.length === 0 ? 'converged' : out.join('; ')}`);
      seen = out.join();
      return out;
    };
    await expect.poll(all, { timeout: 300_000, interval: 1000 }).toEqual([]);
    log(
      `converged ${((Date.now() - stopped) / 1000).toFixed(1)} s after the last change, ${((Date.now() - rolledOut) / 1000).toFixed(1)} s after the rollouts completed`,
    );

    for (const [name, intent] of intents) {
      if ('deleted' in intent) continue;
      const history = await expectSettled(client, name, await revisionsOf(client, name));
      // One revision at most per write: nothing rendered and recorded twice for one change.
      expect(Math.max(...history.map((r) => r.revision)), `${name} revisions`).toBeLessThanOrEqual(writes.get(name) ?? 0);
      expect(history[0]?.bundle.version, `${name} deployed version`).toBe(intent.version);
      const settings = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: `${name}-settings` });
      expect((settings['data'] as Record<string, string>)['version']).toBe(intent.version);
    }
    // The extension nobody changed: not one write to its objects or records.
    expect(await footprint(client, 'steady')).toEqual(steadyBefore);
    await logPeaks('after the restarts');
  }, 900_000);

  it('fails hostile bundles clearly within the 512Mi limit (or restarts and loses nothing), leaving an installed extension untouched', async () => {
    await client.apply(extension('keeper', 'keeper', '1.0.0'), { fieldManager: 'e2e', force: true });
    await expect.poll(() => lagging(client, 'keeper', { version: '1.0.0' }), { timeout: 120_000, interval: 1000 }).toEqual([]);
    const keeperBefore = await footprint(client, 'keeper');
    const failed = async (name: string): Promise<string | undefined> => {
      const ext = await client.get({ ...CE, name });
      const progressing = conditionOf(ext, 'Progressing');
      const settled = progressing?.reason === 'Retrying' && progressing.observedGeneration === ext.metadata.generation;
      // "pulling image ... since ..." is a pull still in progress (Retrying too), not its outcome.
      const outcome = settled && !progressing.message.startsWith('pulling image ');
      return outcome && conditionOf(ext, 'Installed')?.status !== 'True' ? progressing.message : undefined;
    };
    // One at a time, so that each peak is that bundle's (the container's peak restarted before each).
    const messages: string[] = [];
    for (const kind of HOSTILE) {
      const [before] = await containers(k, 'operator-controller');
      if (before !== undefined) resetPeak(before.containerID);
      const started = Date.now();
      await client.apply(extension(`hostile-${kind}`, hostilePackage(kind), '1.0.0'), { fieldManager: 'e2e', force: true });
      await expect.poll(() => failed(`hostile-${kind}`), { timeout: 300_000, interval: 1000 }).toBeDefined();
      const [now] = await containers(k, 'operator-controller');
      const same = now !== undefined && now.containerID === before?.containerID;
      timed(
        `hostile-${kind} failed (operator-controller ${same ? `peak ${(readPeak(now.containerID) / MiB).toFixed(1)} MiB of 512 MiB` : 'restarted meanwhile'})`,
        started,
      );
      messages.push((await failed(`hostile-${kind}`)) ?? '');
    }
    for (const [i, kind] of HOSTILE.entries()) log(`hostile-${kind}: ${messages[i]?.slice(0, 400) ?? ''}`);
    expect(messages[0]).toMatch(/exceeds the limit of 33554432 unpacked bytes \(--max-image-unpacked-bytes\)/);
    expect(messages[1]).toMatch(/exceeds the limit of 10000 files \(--max-image-files\)/);
    expect(messages[2]).not.toBe('');

    // Killed or not, operator-controller is up (Ready) and what was installed is as it was.
    await expect
      .poll(async () => (await k.readyPods(SYSTEM_NAMESPACE, 'app.kubernetes.io/name=operator-controller')).length, { timeout: 120_000 })
      .toBe(1);
    const [after] = await containers(k, 'operator-controller');
    const outcome =
      after?.restartCount === 0
        ? 'not restarted'
        : `restarted ${after?.restartCount} times, last termination ${after?.lastState?.terminated?.reason} (exit ${after?.lastState?.terminated?.exitCode})`;
    // Either outcome is allowed; which one happened is reported, and the guarantees below hold for both.
    log(`operator-controller under hostile bundles: ${outcome}`);
    await expect.poll(() => lagging(client, 'keeper', { version: '1.0.0' }), { timeout: 120_000, interval: 1000 }).toEqual([]);
    expect(await footprint(client, 'keeper')).toEqual(keeperBefore);
    // A failed extension uninstalls (its finalizer runs) and leaves nothing.
    for (const kind of HOSTILE) await client.delete({ ...CE, name: `hostile-${kind}` });
    await expect
      .poll(async () => (await Promise.all(HOSTILE.map((kind) => lagging(client, `hostile-${kind}`, { deleted: true })))).flat(), {
        timeout: 120_000,
        interval: 1000,
      })
      .toEqual([]);
  }, 900_000);

  it('keeps serving catalogs from both catalogd replicas while a catalog image bomb is refused', async () => {
    const pods = await containers(k, 'catalogd');
    for (const c of pods) resetPeak(c.containerID);
    const ref = await pushCatalogBomb(registry);
    const started = Date.now();
    await k.apply({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name: 'bomb' },
      spec: { source: { type: 'Image', image: { ref } } },
    });
    const url = `https://${await k.clusterIp('catalogd-service')}/catalogs/${CATALOG}/api/v1/all`;
    const servername = `catalogd-service.${SYSTEM_NAMESPACE}.svc`;
    let refused = false;
    const statuses: Array<number | string> = [];
    const serving = (async () => {
      while (!refused) {
        statuses.push(
          await httpsGet(url, { ca: caPem, servername }).then(
            (r) => r.status,
            (e: Error) => e.message,
          ),
        );
        await delay(200); // a probe's pace, not a wait for state
      }
    })();
    const retrying = async (): Promise<string | undefined> => {
      const progressing = conditionOf(await client.get(catalogRef('bomb')), 'Progressing');
      return progressing?.reason === 'Retrying' ? progressing.message : undefined;
    };
    await expect
      .poll(retrying, { timeout: 180_000, interval: 1000 })
      .toBeDefined()
      .finally(() => (refused = true));
    await serving;
    timed('catalog bomb refused', started);
    log(`${statuses.length} GETs of ${CATALOG} while it was ingested: ${JSON.stringify([...new Set(statuses)])}`);
    expect(await retrying()).toMatch(/exceeds the limit of 268435456 unpacked bytes \(--max-image-unpacked-bytes\)/);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200)).toBe(true);
    for (const c of await containers(k, 'catalogd')) {
      log(`${c.pod}: restarts ${c.restartCount}, peak ${(readPeak(c.containerID) / MiB).toFixed(1)} MiB of 512 MiB`);
      expect(c.restartCount).toBe(0);
    }
    await kubectl(['delete', 'clustercatalog', 'bomb', '--wait=true', '--timeout=60s']);
  }, 300_000);
});

function catalogRef(name: string): { apiVersion: string; kind: string; name: string } {
  return { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name };
}

/** A ClusterExtension of `pkg` at exactly `version` (any version change allowed) from this file's catalog only. */
function extension(name: string, pkg: string, version: string): KubeObject {
  return {
    ...CE,
    metadata: { name },
    spec: {
      namespace: NS,
      serviceAccount: { name: 'installer' },
      source: {
        sourceType: 'Catalog',
        catalog: {
          packageName: pkg,
          version,
          upgradeConstraintPolicy: 'SelfCertified',
          selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': CATALOG } },
        },
      },
    },
  };
}

async function logPeaks(when: string): Promise<void> {
  for (const app of Object.keys(DEPLOYMENTS)) {
    for (const c of await containers(k, app))
      log(`${when}: ${c.pod} peak ${(readPeak(c.containerID) / MiB).toFixed(1)} MiB, restarts ${c.restartCount}`);
  }
}
