// The ClusterExtension reconciler as run.ts assembles it (reconcilers.ts), over fakes of its
// ports: a stored ClusterExtension whose status and finalizers the reconciler writes, catalogs
// in memory, pulls that hand out generated bundles, and an in-memory cluster the installer
// writes to. Each case asserts the conditions written, as the e2e suites do on real
// components (test/e2e/operator-controller-install.test.ts, -failures, -ownership).
import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { ClusterExtension } from '../../pkg/shared/api/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { BundleBudget, type PullStatus } from '../../pkg/operator-controller/bundlepull/index.ts';
import { createUpgradeNotices } from '../../pkg/operator-controller/clusterextension/index.ts';
import { fakeCluster, type FakeCluster } from '../../test/support/fake-cluster.ts';
import {
  MemoryReleaseStore,
  bundleImage,
  catalogSource,
  chainedPackage,
  generatedBundle,
  recordingDrift,
  recordingEvents,
  withRulesReviews,
} from '../../test/support/extension-ports.ts';
import { clusterExtensionReconciler, type ClusterExtensionPorts } from './reconcilers.ts';

const FINALIZERS = [
  'olm.operatorframework.io/cleanup-unpack-cache',
  'olm.operatorframework.io/cleanup-contentmanager-cache',
  'olm.operatorframework.io/uninstall',
];

/** The installer's ServiceAccount, which validate reads. */
const SERVICE_ACCOUNT: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'ns' } };

/** operator-controller's own cluster: the stored ClusterExtension (status PUTs, finalizer patches) and the objects validate reads. */
function controllerCluster(ce: ClusterExtension) {
  const controller = fakeCluster();
  controller.seed({ ...structuredClone(ce), apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension' } as KubeObject);
  controller.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
  controller.seed(SERVICE_ACCOUNT);
  const stored = () => controller.live({ kind: 'ClusterExtension', metadata: { name: ce.metadata.name } }) as unknown as ClusterExtension;
  return { controller, stored, edit: (f: (o: ClusterExtension) => void) => f(stored()) };
}

/**
 * Pulls of the catalog's bundle images: done with the generated bundle (holding 100 bytes of
 * `budget`), or `failure` / pending for the refs in `o`.
 */
function pullsOf(o: { failed?: Map<string, Error>; pending?: Set<string>; budget: BundleBudget }) {
  const started = new Date('2026-01-02T03:04:05Z');
  return {
    get: async (_extension: string, ref: string): Promise<PullStatus> => {
      const failure = o.failed?.get(ref);
      if (failure !== undefined) return Promise.resolve({ state: 'failed', error: failure, startedAt: started });
      if (o.pending?.has(ref)) return Promise.resolve({ state: 'pending', startedAt: started });
      const m = /^registry\.example\/p-bundle(?::v|@sha256:v)(.+)$/.exec(ref);
      if (m === null) throw new Error(`unexpected pull of ${ref}`);
      const version = m[1] ?? '';
      const bundle = generatedBundle('p', version);
      const fetched = { bundle, digestRef: `registry.example/p-bundle@sha256:v${version}`, fromCache: true, lease: await o.budget.acquire(100) };
      return { state: 'done', fetched };
    },
  } satisfies ClusterExtensionPorts['pulls'];
}

interface Harness {
  reconcile: () => Promise<unknown>;
  ce: () => ClusterExtension;
  edit: (f: (o: ClusterExtension) => void) => void;
  cluster: FakeCluster;
  releases: MemoryReleaseStore;
  events: string[];
  /** `<extension> <status>` per health gauge update, `forget <extension>` per removal. */
  health: string[];
  /** operator-controller's own view of the cluster (the ClusterExtension, its namespace and ServiceAccount). */
  controller: FakeCluster;
  catalog: { versions: string[] };
  granted: { value: 'all' | 'none' };
  pullFailures: Map<string, Error>;
  pullsPending: Set<string>;
  /** The bundles' memory budget the pulls take their leases from. */
  bundles: BundleBudget;
  /** Set: the API server's schemas cannot be read (the render fails). */
  schemaFailure: { value?: Error };
}

function harness(versions: string[], spec: Partial<ClusterExtension['spec']> = {}): Harness {
  const ce: ClusterExtension = {
    metadata: { name: 'ext', uid: 'uid-1', generation: 1 },
    spec: {
      namespace: 'ns',
      serviceAccount: { name: 'sa' },
      source: { sourceType: 'Catalog', catalog: { packageName: 'p', upgradeConstraintPolicy: 'CatalogProvided' } },
      ...spec,
    },
  };
  const own = controllerCluster(ce);
  const cluster = fakeCluster();
  const releases = new MemoryReleaseStore();
  const events: string[] = [];
  const health: string[] = [];
  const catalog = { versions };
  const granted: { value: 'all' | 'none' } = { value: 'all' };
  const pullFailures = new Map<string, Error>();
  const pullsPending = new Set<string>();
  const bundles = new BundleBudget(1_000);
  const schemaFailure: { value?: Error } = {};
  const ports: ClusterExtensionPorts = {
    client: own.controller.client,
    scoped: { forServiceAccount: () => withRulesReviews(cluster.client, granted.value), forget: () => undefined },
    releases,
    catalogs: catalogSource(() => chainedPackage('p', catalog.versions)),
    bundleCache: { delete: () => Promise.resolve() },
    pulls: pullsOf({ failed: pullFailures, pending: pullsPending, budget: bundles }),
    schemas: { schemaFor: () => (schemaFailure.value === undefined ? Promise.resolve(undefined) : Promise.reject(schemaFailure.value)) },
    drift: recordingDrift([]),
    healthGauge: { set: (n, status) => void health.push(`${n} ${status}`), forget: (n) => void health.push(`forget ${n}`) },
    events: recordingEvents(events),
    upgrades: createUpgradeNotices(new Registry()),
    features: { webhookSupport: false, singleOwnNamespaceSupport: false, deploymentConfigSupport: false, bundleReleaseSupport: false },
  };
  const reconciler = clusterExtensionReconciler(ports);
  const ctx = { signal: new AbortController().signal, log: pino({ level: 'silent' }) };
  return {
    reconcile: () => reconciler.reconcile('ext', ctx),
    ce: own.stored,
    edit: own.edit,
    cluster,
    releases,
    events,
    health,
    controller: own.controller,
    catalog,
    granted,
    pullFailures,
    pullsPending,
    bundles,
    schemaFailure,
  };
}

/** `type: status reason "message"` of each condition written. */
function conditions(ce: ClusterExtension, ...types: string[]): string[] {
  return types.map((t) => {
    const c = ce.status?.conditions?.find((x) => x.type === t);
    return c === undefined ? `${t}: absent` : `${t}: ${c.status} ${c.reason} ${JSON.stringify(c.message)}`;
  });
}

const PREFIX = 'operation cannot proceed due to the following validation error(s): ';

describe('ClusterExtension reconciler (assembled steps, fake ports)', () => {
  it('install: adds the finalizers first, then installs the resolved bundle as the ServiceAccount', async () => {
    const h = harness(['1.0.0']);
    await expect(h.reconcile()).resolves.toEqual({});
    expect(h.ce().metadata.finalizers).toEqual(FINALIZERS);
    expect(h.ce().status).toBeUndefined();

    await expect(h.reconcile()).resolves.toEqual({});
    expect(conditions(h.ce(), 'Installed', 'Progressing')).toEqual([
      `Installed: True Succeeded "Installed bundle ${bundleImage('p', '1.0.0')} successfully"`,
      'Progressing: True Succeeded "Desired state reached"',
    ]);
    expect(h.ce().status?.install).toEqual({ bundle: { name: 'p.v1.0.0', version: '1.0.0' } });
    // After the apply, the health step: the fake drift watches have listed nothing.
    expect(conditions(h.ce(), 'Healthy')).toEqual([`Healthy: Unknown NotObserved "The release's objects have not been listed yet"`]);
    expect(h.health).toEqual(['ext Unknown']);
    expect(h.ce().status?.conditions?.every((c) => c.observedGeneration === 1)).toBe(true);
    expect(h.events).toEqual(['Normal Installed: Installed bundle p.v1.0.0 (version 1.0.0), revision 1']);
    expect([...h.cluster.objects.keys()]).toContain('Deployment ns/p-controller');
  });

  it('upgrade: a new catalog version is installed as revision 2', async () => {
    const h = harness(['1.0.0']);
    await h.reconcile();
    await h.reconcile();
    h.catalog.versions = ['1.0.0', '1.1.0'];
    await expect(h.reconcile()).resolves.toEqual({});
    expect(conditions(h.ce(), 'Installed', 'Progressing')).toEqual([
      `Installed: True Succeeded "Installed bundle ${bundleImage('p', '1.1.0')} successfully"`,
      'Progressing: True Succeeded "Desired state reached"',
    ]);
    expect(h.ce().status?.install).toEqual({ bundle: { name: 'p.v1.1.0', version: '1.1.0' } });
    expect(h.events.at(-1)).toBe('Normal Upgraded: Upgraded to bundle p.v1.1.0 (version 1.1.0) from version 1.0.0, revision 2');
    expect((await h.releases.history('ext')).map((r) => `${r.revision} ${r.status}`)).toEqual(['2 deployed', '1 superseded']);
  });

  it('an upgrade that waits for permissions still reports the health of what is deployed', async () => {
    const h = harness(['1.0.0']);
    await h.reconcile();
    await h.reconcile();
    h.catalog.versions = ['1.0.0', '1.1.0'];
    h.granted.value = 'none';
    await expect(h.reconcile()).resolves.toEqual({ requeueAfterMs: 1000 });
    expect(conditions(h.ce(), 'Progressing')[0]).toMatch(/^Progressing: True Retrying "error for resolved bundle \\"p\.v1\.1\.0\\"/);
    expect(h.health).toEqual(['ext Unknown', 'ext Unknown']);
    expect(conditions(h.ce(), 'Healthy')).toEqual([`Healthy: Unknown NotObserved "The release's objects have not been listed yet"`]);
  });

  it('waits: a missing ServiceAccount, then missing permissions, poll at 1 s doubling; the fix installs', async () => {
    const h = harness(['1.0.0']);
    await h.controller.client.delete({ apiVersion: 'v1', kind: 'ServiceAccount', name: 'sa', namespace: 'ns' });
    await h.reconcile();
    await expect(h.reconcile()).resolves.toEqual({ requeueAfterMs: 1000 });
    await expect(h.reconcile()).resolves.toEqual({ requeueAfterMs: 2000 });
    const missing = `${PREFIX}service account "sa" not found in namespace "ns"`;
    expect(conditions(h.ce(), 'Installed', 'Progressing')).toEqual([
      `Installed: Unknown Failed ${JSON.stringify(missing)}`,
      `Progressing: True Retrying ${JSON.stringify(missing)}`,
    ]);

    h.controller.seed(SERVICE_ACCOUNT);
    h.granted.value = 'none';
    await expect(h.reconcile()).resolves.toEqual({ requeueAfterMs: 4000 });
    const progressing = h.ce().status?.conditions?.find((c) => c.type === 'Progressing');
    expect(progressing).toMatchObject({ status: 'True', reason: 'Retrying' });
    expect(progressing?.message).toMatch(/^error for resolved bundle "p\.v1\.0\.0" with version "1\.0\.0": pre-authorization failed: /);
    expect(conditions(h.ce(), 'Installed')).toEqual(['Installed: False Failed "No bundle installed"']);
    expect(h.cluster.writes).toEqual([]);

    h.granted.value = 'all';
    await expect(h.reconcile()).resolves.toEqual({});
    expect(conditions(h.ce(), 'Progressing')).toEqual(['Progressing: True Succeeded "Desired state reached"']);
  });

  it("gives back what a reconcile held (the bundle's memory lease) when it ends: a wait, an install, a failure", async () => {
    const h = harness(['1.0.0']);
    await h.reconcile();
    h.granted.value = 'none';
    await expect(h.reconcile()).resolves.toEqual({ requeueAfterMs: 1000 });
    expect(h.bundles.held).toBe(0);
    h.granted.value = 'all';
    await expect(h.reconcile()).resolves.toEqual({});
    expect(h.bundles.held).toBe(0);
    h.catalog.versions = ['1.0.0', '1.1.0'];
    h.schemaFailure.value = new Error('connection refused');
    await expect(h.reconcile()).rejects.toThrow(
      'error for resolved bundle "p.v1.1.0" with version "1.1.0": error reading the API schema: connection refused',
    );
    expect(h.bundles.held).toBe(0);
  });

  it('a pull still running: Progressing Retrying naming it, no error and no poll (its end queues the extension)', async () => {
    const h = harness(['1.0.0']);
    h.pullsPending.add(bundleImage('p', '1.0.0'));
    await h.reconcile();
    await expect(h.reconcile()).resolves.toEqual({});
    expect(conditions(h.ce(), 'Installed', 'Progressing')).toEqual([
      'Installed: False Failed "No bundle installed"',
      `Progressing: True Retrying ${JSON.stringify(`pulling image "${bundleImage('p', '1.0.0')}" of bundle "p.v1.0.0" with version "1.0.0" since 2026-01-02T03:04:05Z`)}`,
    ]);
  });

  it('failure: a bundle that cannot be pulled is an error for the resolved bundle, retried with backoff (thrown)', async () => {
    const h = harness(['1.0.0']);
    h.pullFailures.set(bundleImage('p', '1.0.0'), new Error('manifest unknown'));
    await h.reconcile();
    await expect(h.reconcile()).rejects.toThrow('error for resolved bundle "p.v1.0.0" with version "1.0.0": manifest unknown');
    expect(conditions(h.ce(), 'Installed', 'Progressing')).toEqual([
      'Installed: False Failed "No bundle installed"',
      'Progressing: True Retrying "error for resolved bundle \\"p.v1.0.0\\" with version \\"1.0.0\\": manifest unknown"',
    ]);
    // Nothing deployed: the health step (which always runs) has nothing to report.
    expect(h.ce().status?.conditions?.map((c) => c.type)).not.toContain('Healthy');
    expect(await h.releases.history('ext')).toEqual([]);
  });

  // Issue #42 item 3: whatever keeps the next release from being applied, a deleted object of
  // the deployed one is put back by the same reconcile, whose conditions and outcome stay the stop's.
  const stops: [string, (h: Harness) => void, (h: Harness) => Promise<void>, string][] = [
    [
      'the next bundle cannot be pulled',
      (h) => h.pullFailures.set(bundleImage('p', '1.1.0'), new Error('manifest unknown')),
      (h) => expect(h.reconcile()).rejects.toThrow('error for resolved bundle "p.v1.1.0" with version "1.1.0": manifest unknown'),
      'Progressing: True Retrying "error for resolved bundle \\"p.v1.1.0\\" with version \\"1.1.0\\": manifest unknown"',
    ],
    [
      'the next bundle is still being pulled',
      (h) => h.pullsPending.add(bundleImage('p', '1.1.0')),
      (h) => expect(h.reconcile()).resolves.toEqual({}),
      `Progressing: True Retrying ${JSON.stringify(`pulling image "${bundleImage('p', '1.1.0')}" of bundle "p.v1.1.0" with version "1.1.0" since 2026-01-02T03:04:05Z`)}`,
    ],
    [
      'the version asked for does not resolve',
      (h) => h.edit((o) => (o.spec.source.catalog = { ...o.spec.source.catalog, packageName: 'p', version: '3.0.0' })),
      (h) => expect(h.reconcile()).rejects.toThrow(/no bundles found for package "p" matching version "3\.0\.0"/),
      'Progressing: True Retrying "error upgrading from currently installed version \\"1.0.0\\": no bundles found for package \\"p\\"',
    ],
    [
      'the ServiceAccount lacks permissions the next bundle needs',
      (h) => (h.granted.value = 'none'),
      (h) => expect(h.reconcile()).resolves.toEqual({ requeueAfterMs: 1000 }),
      'Progressing: True Retrying "error for resolved bundle \\"p.v1.1.0\\" with version \\"1.1.0\\": pre-authorization failed: ',
    ],
  ];
  it.each(stops)('%s: the deployed release is repaired, the stop still reported', async (_name, stop, outcome, progressing) => {
    const h = harness(['1.0.0']);
    await h.reconcile();
    await h.reconcile();
    h.catalog.versions = ['1.0.0', '1.1.0'];
    stop(h);
    h.cluster.objects.delete('Deployment ns/p-controller');
    const writes = h.cluster.writes.length;
    await outcome(h);
    expect(h.cluster.writes.slice(writes)).toContain('apply Deployment ns/p-controller');
    expect([...h.cluster.objects.keys()]).toContain('Deployment ns/p-controller');
    expect(conditions(h.ce(), 'Progressing')[0]?.startsWith(progressing)).toBe(true);
    expect(conditions(h.ce(), 'Installed')).toEqual([`Installed: True Succeeded "Installed bundle ${bundleImage('p', '1.0.0')} successfully"`]);
    expect(h.ce().status?.install).toEqual({ bundle: { name: 'p.v1.0.0', version: '1.0.0' } });
    expect((await h.releases.history('ext')).map((r) => `${r.revision} ${r.status}`)).toEqual(['1 deployed']);
  });

  it('deletion: the finalizers uninstall as the ServiceAccount, keep the CRD, remove the records, then let go', async () => {
    const h = harness(['1.0.0']);
    await h.reconcile();
    await h.reconcile();
    const crd = [...h.cluster.objects.keys()].filter((k) => k.startsWith('CustomResourceDefinition '));
    expect(crd).toHaveLength(1);
    h.edit((o) => (o.metadata.deletionTimestamp = '2026-11-24T00:00:00Z'));
    await expect(h.reconcile()).resolves.toEqual({});
    // The last finalizer gone, the API server removes the ClusterExtension.
    expect(h.controller.writes.at(-1)).toBe('patch ClusterExtension ext');
    expect(h.controller.live({ kind: 'ClusterExtension', metadata: { name: 'ext' } })).toBeUndefined();
    expect([...h.cluster.objects.keys()]).toEqual(crd);
    expect(await h.releases.history('ext')).toEqual([]);
    expect(h.health.at(-1)).toBe('forget ext');
    expect(h.events.at(-1)).toMatch(
      /^Normal Uninstalled: Uninstalled: \d+ object\(s\) deleted, 1 CustomResourceDefinition\(s\) kept with their custom resources, 0 object\(s\) skipped$/,
    );
  });
});
