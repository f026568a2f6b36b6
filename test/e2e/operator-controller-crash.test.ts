// operator-controller killed with SIGKILL at every step boundary of an install and of an
// upgrade, including between two Secret writes of a split release and between two object
// writes: a fresh process (no hook) finishes each job with no revision left pending, no
// duplicate revision and no orphaned object. Then leader election hands an interrupted install
// over, and a kube-apiserver restart mid-reconcile is survived without a process restart.
//
// operator-controller runs as real child processes (cmd/operator-controller/main.ts); the test
// pause hook (OLMV1_TEST_PAUSE_AT, cmd/operator-controller/test-pause.ts) stops one process at a
// different point for each extension, so one kill covers every point at once. The suite has
// its own control plane (it restarts the API server); catalogd runs in this process.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLUSTER_EXTENSION, FIELD_MANAGER } from '../../pkg/shared/api/index.ts';
import { describeObject } from '../../pkg/operator-controller/applier/index.ts';
import { type KubeContext, connect } from '../../pkg/shared/kube/index.ts';
import { type ControlPlane, Reaper, startControlPlane } from '../envtest/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import { startCatalogd, type TestCatalogd } from '../support/catalogd.ts';
import { type ControllerProcess, killController, startControllerProcess, waitForPauses } from '../support/controller-process.ts';
import {
  applyAsAdmin,
  bundleFiles,
  clusterExtension,
  chainedPackageCatalog,
  installedAs,
  objectExists,
  publishCatalog,
  pushBundle,
  waitForExtension,
  type BundleSpec,
} from '../support/extensions.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { expectSettled, ownedObjects } from '../support/release-invariants.ts';

const run = randomBytes(3).toString('hex');
const STEPS = ['validate', 'installed', 'resolve', 'pull', 'render', 'preauthorize', 'preflight', 'apply'];
/** Incompressible bytes that split a release record across two Secrets. */
const PAD = 1_100_000;
const SETTLE_MS = 300_000;

let cp: ControlPlane;
let kube: KubeContext;
let catalogd: TestCatalogd;
let reaper: Reaper;
let work: string;
let registry: string;
const running = new Set<ControllerProcess>();
const catalog = `crash-${run}`;
const catalogFiles: Record<string, string> = {};

/** One extension per kill point; its package, namespace and name are the same. */
interface Case {
  ext: string;
  point: string;
  padded: boolean;
}

function cases(prefix: string, writes: { release: number[]; object: number[] }): Case[] {
  const out: Case[] = STEPS.map((s) => ({ ext: `${prefix}-${s}-${run}`, point: `step:${s}`, padded: false }));
  for (const n of writes.release) out.push({ ext: `${prefix}-rw${n}-${run}`, point: `release-write#${n}`, padded: true });
  for (const n of writes.object) out.push({ ext: `${prefix}-ow${n}-${run}`, point: `object-write#${n}`, padded: false });
  return out;
}

// Install: 6 Secret writes (pending record: chunk, index, chunk owner; deployed: chunk, index,
// old chunk) and 6 objects. Upgrade: 3 + 3 + 3 Secret writes (the predecessor is superseded
// too) and 7 applies, then the delete of the dropped ConfigMap.
const INSTALLS = cases('ci', { release: [1, 2, 3, 4, 5, 6], object: [2, 4, 6] });
const UPGRADES = cases('cu', { release: [1, 2, 3, 4, 5, 6, 7, 8, 9], object: [2, 5, 8] });
/** Installed during the leader hand-over, and around the API server restart (the last one after it). */
const LEADER: Case = { ext: `cl-${run}`, point: 'object-write#3', padded: false };
const RESTART: Case[] = [1, 2, 3, 4].map((i) => ({ ext: `cr${i}-${run}`, point: '', padded: true }));
const installSpec = (c: Case): BundleSpec => ({ pkg: c.ext, version: '1.0.0', configMaps: ['settings'], ...(c.padded ? { padBytes: PAD } : {}) });
const upgradeSpecs = (c: Case): [BundleSpec, BundleSpec] => [
  { pkg: c.ext, version: '1.0.0', crds: ['widgets', 'gadgets'], configMaps: ['settings', 'legacy'], ...(c.padded ? { padBytes: PAD } : {}) },
  { pkg: c.ext, version: '2.0.0', crds: ['widgets'], configMaps: ['settings', 'fresh'], ...(c.padded ? { padBytes: PAD } : {}) },
];

/** Bundle image references by package and version. */
const images = new Map<string, Record<string, string>>();

/** Pushes the bundles of `pkg` and grants its installer cluster-admin (permissions are not under test here). */
async function preparePackage(pkg: string, specs: BundleSpec[]): Promise<void> {
  const refs: Record<string, string> = {};
  for (const s of specs) refs[s.version] = await pushBundle(bundleFiles(s), `${registry}/crash/${pkg}:v${s.version}`);
  images.set(pkg, refs);
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: pkg } });
  await applyAsAdmin(kube.client, [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: pkg } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${pkg}-installer` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: pkg }],
    },
  ]);
}

/** The catalog documents of `pkg` offering `versions`, each replacing the one before. */
function catalogPart(pkg: string, versions: string[]): Record<string, string> {
  return chainedPackageCatalog(pkg, versions, images.get(pkg) ?? {});
}

async function controller(name: string, o: { pauseAt?: string[]; lease?: string } = {}): Promise<ControllerProcess> {
  const c = await startControllerProcess({
    name,
    cp: cp.info,
    cacheDir: await mkdtemp(join(work, `${name}-cache-`)),
    logDir: work,
    reaper,
    pauseAt: o.pauseAt ?? [],
    args: [
      // client-go's durations: the hand-over waits for the crashed leader's Lease to expire.
      ...(o.lease === undefined
        ? ['--leader-elect=false']
        : [
            '--leader-elect=true',
            `--leader-election-id=${o.lease}`,
            '--leader-elect-lease-duration=15s',
            '--leader-elect-renew-deadline=10s',
            '--leader-elect-retry-period=2s',
          ]),
      '--max-concurrent-reconciles=64',
    ],
  });
  running.add(c);
  return c;
}

async function kill(c: ControllerProcess): Promise<void> {
  await killController(c);
  running.delete(c);
}

async function createExtension(name: string): Promise<void> {
  await kube.client.create(clusterExtension(name, { namespace: name, serviceAccount: 'installer', packageName: name }));
}

/**
 * Makes sure every extension of `cases` exists and has settled at 1.0.0: what the first test
 * leaves, created here (with a controller of its own, killed afterwards) when that test did not run.
 */
async function installedAtFirstVersion(cases: readonly Case[]): Promise<void> {
  for (const c of running) await kill(c);
  const setup = await controller('setup');
  for (const c of cases) {
    if (!(await objectExists(kube.client, { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name: c.ext })))
      await createExtension(c.ext);
  }
  for (const c of cases) await settled(c, '1.0.0', [[1, 'deployed']]);
  await kill(setup);
}

async function settled(c: Case, version: string, revisions: [number, string][]): Promise<void> {
  await waitForExtension(kube.client, c.ext, `installed ${version} after the crash at ${c.point}`, installedAs(`${c.ext}.v${version}`), SETTLE_MS);
  await expectSettled(kube.client, c.ext, revisions, { split: c.padded });
}

beforeAll(async () => {
  cp = await startControlPlane({ binaries: inject('envtestBinaries') });
  await installOlmConfig(cp.info);
  kube = await connect({ kind: 'file', path: cp.info.kubeconfigPath });
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } });
  // No leader election: the API server restart below must not end catalogd's leadership.
  catalogd = await startCatalogd(cp.info, { pollMinuteMs: 1000, leaderElect: false });
  reaper = Reaper.start();
  work = await mkdtemp(join(tmpdir(), 'operator-controller-crash-'));
  registry = inject('envtestRegistries').anonymous.host;
  for (const c of [...INSTALLS, LEADER, ...RESTART]) {
    await preparePackage(c.ext, [installSpec(c)]);
    Object.assign(catalogFiles, catalogPart(c.ext, ['1.0.0']));
  }
  for (const c of UPGRADES) {
    await preparePackage(c.ext, upgradeSpecs(c));
    Object.assign(catalogFiles, catalogPart(c.ext, ['1.0.0']));
  }
  await publishCatalog({ kube, registry }, catalog, catalogFiles);
}, 900_000);

afterAll(async () => {
  for (const c of running) await c.proc.stop();
  await catalogd?.destroy();
  kube?.close();
  await cp?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('operator-controller killed mid-job', () => {
  it('finishes every install killed at a step boundary, a Secret write or an object write', async () => {
    const hooked = await controller('install-hooked', { pauseAt: INSTALLS.map((c) => `${c.ext}=${c.point}`) });
    for (const c of [...INSTALLS, ...UPGRADES]) await createExtension(c.ext);
    await waitForPauses(
      hooked,
      INSTALLS.map((c) => c.ext),
    );
    // The upgrade cases' first installs are cut wherever they are too.
    await kill(hooked);
    const fresh = await controller('install-fresh');
    for (const c of INSTALLS) await settled(c, '1.0.0', [[1, 'deployed']]);
    for (const c of UPGRADES) await settled(c, '1.0.0', [[1, 'deployed']]);
    await kill(fresh);
  }, 1_200_000);

  it('finishes every upgrade killed at a step boundary, a Secret write or an object write', async () => {
    await installedAtFirstVersion([...INSTALLS, ...UPGRADES]);
    // The catalog offers 2.0.0 while no controller runs; the hooked one meets it first.
    for (const c of UPGRADES) Object.assign(catalogFiles, catalogPart(c.ext, ['1.0.0', '2.0.0']));
    await publishCatalog({ kube, registry }, catalog, catalogFiles);
    const hooked = await controller('upgrade-hooked', { pauseAt: UPGRADES.map((c) => `${c.ext}=${c.point}`) });
    await waitForPauses(
      hooked,
      UPGRADES.map((c) => c.ext),
    );
    await kill(hooked);
    await controller('upgrade-fresh');
    for (const c of UPGRADES) {
      await settled(c, '2.0.0', [
        [2, 'deployed'],
        [1, 'superseded'],
      ]);
      const names = (await ownedObjects(kube.client, c.ext)).names;
      expect(names).toContain(`ConfigMap ${c.ext}/${c.ext}-fresh`);
      expect(names).not.toContain(`ConfigMap ${c.ext}/${c.ext}-legacy`);
      expect(names).toContain(`CustomResourceDefinition gadgets.${c.ext}.e2e.test`);
    }
    for (const c of INSTALLS) await settled(c, '1.0.0', [[1, 'deployed']]);
  }, 1_200_000);

  it('hands an interrupted install over to the other replica: one revision, one field manager', async () => {
    for (const c of running) await kill(c);
    const lease = `crash-lock-${run}`;
    const holder = async (): Promise<string> => {
      const l = await kube.client
        .get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'olmv1-system', name: lease })
        .catch(() => undefined);
      return String((l?.spec as { holderIdentity?: string } | undefined)?.holderIdentity ?? '');
    };
    const a = await controller('leader-a', { lease, pauseAt: [`${LEADER.ext}=${LEADER.point}`] });
    await waitUntil('leader-a leads', async () => (await holder()) === 'leader-a', 60_000);
    await controller('leader-b', { lease });
    await createExtension(LEADER.ext);
    await waitForPauses(a, [LEADER.ext]);
    await kill(a);
    await waitUntil('leader-b takes over', async () => (await holder()) === 'leader-b', 90_000);
    await settled(LEADER, '1.0.0', [[1, 'deployed']]);
    for (const obj of (await ownedObjects(kube.client, LEADER.ext)).objects) {
      const appliers = ((obj.metadata.managedFields ?? []) as { manager: string; operation: string }[])
        .filter((f) => f.operation === 'Apply')
        .map((f) => f.manager);
      expect(appliers, describeObject(obj)).toEqual([FIELD_MANAGER]);
    }
  }, 600_000);

  it('survives a kube-apiserver restart mid-reconcile without a process restart', async () => {
    for (const c of running) await kill(c);
    const c = await controller('api-restart');
    const [before, after] = [RESTART.slice(0, 3), RESTART.slice(3)];
    for (const r of before) await createExtension(r.ext);
    // Restart as soon as the first record is written: the three installs are under way.
    await waitUntil(
      'a release record is written',
      async () =>
        (
          await kube.client.listAll(
            { apiVersion: 'v1', kind: 'Secret' },
            { namespace: 'olmv1-system', labelSelector: `name in (${before.map((r) => r.ext).join(',')})` },
          )
        ).items.length > 0,
      120_000,
    );
    await cp.restartApiServer({ downtimeMs: 2_000 });
    for (const r of after) await createExtension(r.ext);
    for (const r of RESTART) await settled(r, '1.0.0', [[1, 'deployed']]);
    expect(c.proc.exitStatus()).toBeUndefined();
  }, 600_000);
});
