// planUpgrade and approveUpgrade over the shared fake cluster: the installed revision is the one
// reader's, so a BoxcutterRuntime extension (ClusterObjectSets) plans from its installed
// ClusterObjectSet and its objects, as a Helm one from its deployed release record.
import { describe, expect, it } from 'vitest';
import { parseBundle } from '../../operator-controller/bundle/index.ts';
import { resolve, type ResolveInput } from '../../operator-controller/resolve/index.ts';
import { APPROVED_BUNDLE_ANNOTATION, CLUSTER_EXTENSION, parseClusterExtension } from '../../shared/api/index.ts';
import { ok } from '../../shared/errors/index.ts';
import { ApiError, type KubeObject } from '../../shared/kube/index.ts';
import { bundleFiles } from '../../../test/support/bundle-gen.ts';
import { chainedPackage } from '../../../test/support/extension-ports.ts';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import { clusterExtension, objectSetHistory, seedHelmHistory } from '../../../test/support/revision-fixtures.ts';
import { approveUpgrade } from './approve.ts';
import { planUpgrade } from './plan.ts';
import type { UpgradeDeps } from './ports.ts';

const NS = 'olmv1-system';
const DEFAULT_GATES = {
  SingleOwnNamespaceInstallSupport: true,
  DeploymentConfig: true,
  WebhookProviderCertManager: true,
  WebhookProviderOpenshiftServiceCA: true,
};

function files(version: string): Map<string, Uint8Array> {
  return new Map([...bundleFiles({ pkg: 'demo', version })].map(([k, v]) => [k, new TextEncoder().encode(v)] as const));
}

/** The services' ports over `cluster`: catalog `c` offers demo 1.0.0 -> 1.1.0 -> 1.2.0; bundle images are built here. */
function deps(cluster: FakeCluster, progress: string[] = [], wanted: KubeObject[] = []): UpgradeDeps {
  const catalog = chainedPackage('demo', ['1.0.0', '1.1.0', '1.2.0']);
  return {
    client: cluster.client,
    schemas: { schemaFor: () => Promise.resolve(undefined) },
    resolver: {
      extension: async (name) => {
        const object = await cluster.client.get({ ...CLUSTER_EXTENSION, name });
        const parsed = parseClusterExtension(object);
        if (!parsed.ok) throw new Error(parsed.error);
        return { object, extension: parsed.value, source: parsed.value.spec.source.catalog! };
      },
      input: (source, installed) =>
        Promise.resolve(ok<ResolveInput>({ packageName: source.packageName, installed, catalogs: [{ name: 'c', priority: 0, package: catalog }] })),
      resolve: (_extension, _selector, input) => Promise.resolve({ result: resolve(input) }),
      hints: () => Promise.resolve([]),
      dependentsHold: () => Promise.resolve(undefined),
      deprecation: () => null,
    },
    bundles: {
      checkSettings: () => Promise.resolve(),
      fetch: (image) => Promise.resolve(files(/v([\d.]+)$/.exec(image)?.[1] ?? '')),
      load: (image) => {
        const parsed = parseBundle(files(/v([\d.]+)$/.exec(image)?.[1] ?? ''));
        if (!parsed.ok) throw new Error(parsed.error);
        return Promise.resolve(parsed.value);
      },
    },
    gateParser: () => DEFAULT_GATES,
    rbac: {
      installedBy: { label: 'olm.operatorframework.io/installed-by', value: 'olmv1' },
      selector: (name) => `olm.operatorframework.io/installed-for=${name}`,
      wanted: () => wanted,
    },
    progress: (line) => progress.push(line),
    now: () => Date.parse('2026-11-28T10:00:00Z'),
  };
}

const request = (extension: string) => ({ extension, systemNamespace: NS, clusterVersion: { major: 4n, minor: 16n } });

function boxcutter(name: string, labels: Record<string, string> = {}): FakeCluster {
  const cluster = fakeCluster();
  const ce = clusterExtension(name);
  cluster.seed({ ...ce, metadata: { ...ce.metadata, labels } });
  for (const set of objectSetHistory(name)) cluster.seed(set);
  return cluster;
}

describe('planUpgrade', () => {
  it('plans a BoxcutterRuntime extension from its installed ClusterObjectSet and that revision’s objects', async () => {
    const progress: string[] = [];
    const r = await planUpgrade(deps(boxcutter('boxy'), progress), request('boxy'));
    if (!r.ok) throw new Error(r.error);
    expect(r.plan.installed).toEqual({ bundle: 'demo.v1.1.0', version: '1.1.0', revision: 2, objectSet: 'boxy-2' });
    expect(r.plan.pick).toMatchObject({ bundle: 'demo.v1.2.0', version: '1.2.0', catalog: 'c' });
    expect(r.plan.upToDate).toBe(false);
    // The installed revision's one object (a ConfigMap, kept in the ClusterObjectSet's phases) goes: the new bundle has none.
    expect(r.plan.changes?.objects.removed).toEqual(['ConfigMap demo-ns/settings']);
    expect(r.plan.changes?.objects.added.length).toBeGreaterThan(0);
    expect(r.plan.gates).toMatchObject({ source: 'defaults', values: DEFAULT_GATES });
    expect(r.plan.policy).toMatchObject({ approveCommand: 'olmv1 upgrade approve boxy 1.2.0' });
    expect(progress).toEqual([
      'pulling bundle image registry.example/demo-bundle:v1.2.0 of demo.v1.2.0...',
      'comparing with the deployed release...',
    ]);
  });

  it.each([
    ['the extension has no ClusterObjectSets', {}],
    ['the cluster does not serve ClusterObjectSets', { unserved: ['olm.operatorframework.io/v1/ClusterObjectSet'] }],
  ])('plans from the deployed Helm record when %s, and the plan has no objectSet', async (_, options) => {
    const cluster = fakeCluster(options);
    cluster.seed(clusterExtension('helmy'));
    await seedHelmHistory(cluster.client, 'helmy');
    const r = await planUpgrade(deps(cluster), request('helmy'));
    if (!r.ok) throw new Error(r.error);
    expect(JSON.stringify(r.plan.installed)).toBe('{"bundle":"demo.v1.1.0","version":"1.1.0","revision":2}');
    expect(r.plan.changes?.objects.removed).toEqual(['ConfigMap demo-ns/settings']);
  });

  it('says as a value that nothing is installed when neither records nor ClusterObjectSets exist', async () => {
    const cluster = fakeCluster();
    cluster.seed(clusterExtension('empty'));
    expect(await planUpgrade(deps(cluster), request('empty'))).toEqual({
      ok: false,
      error: 'ClusterExtension "empty" has no deployed release: nothing is installed to upgrade from',
    });
  });

  it('registry settings that do not load are a value the CLI reports as a usage error', async () => {
    const d = deps(boxcutter('boxy'));
    const bundles = { ...d.bundles!, checkSettings: () => Promise.reject(new Error('--authfile x: no such file')) };
    expect(await planUpgrade({ ...d, bundles }, request('boxy'))).toEqual({ ok: false, error: '--authfile x: no such file', registrySettings: true });
  });
});

describe('approveUpgrade', () => {
  it('annotates a BoxcutterRuntime extension with the picked bundle, at the resourceVersion read', async () => {
    const cluster = boxcutter('boxy');
    const r = await approveUpgrade(deps(cluster), { ...request('boxy'), version: '1.2.0' });
    expect(r).toEqual({
      ok: true,
      extension: 'boxy',
      pick: { bundle: 'demo.v1.2.0', version: '1.2.0' },
      from: { bundle: 'demo.v1.1.0', version: '1.1.0' },
      dryRun: false,
      // No update-policy annotation: Automatic, which approves nothing (the CLI notes it).
      automatic: true,
      rbac: undefined,
      annotation: `${APPROVED_BUNDLE_ANNOTATION}=demo.v1.2.0`,
    });
    expect(cluster.live({ kind: 'ClusterExtension', metadata: { name: 'boxy' } })?.metadata.annotations).toEqual({
      [APPROVED_BUNDLE_ANNOTATION]: 'demo.v1.2.0',
    });
  });

  it('refuses another version, and writes nothing in a dry run', async () => {
    const cluster = boxcutter('boxy');
    const refused = await approveUpgrade(deps(cluster), { ...request('boxy'), version: '1.1.5' });
    expect(refused).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^refusing to approve version 1\.1\.5: the next upgrade of boxy installs demo\.v1\.2\.0/) as unknown,
    });
    const dry = await approveUpgrade(deps(cluster), { ...request('boxy'), dryRun: true });
    expect(dry).toMatchObject({ ok: true, dryRun: true });
    expect(cluster.live({ kind: 'ClusterExtension', metadata: { name: 'boxy' } })?.metadata.annotations).toBeUndefined();
  });

  it('grants an extension olmv1 install created what the picked bundle adds, labelled for it, before approving', async () => {
    const labels = { 'olm.operatorframework.io/installed-by': 'olmv1', 'olm.operatorframework.io/installed-for': 'boxy' };
    const cluster = boxcutter('boxy', labels);
    const role: KubeObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'demo.v1.2.0', namespace: 'demo-ns' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
    };
    const r = await approveUpgrade(deps(cluster, [], [role]), request('boxy'));
    expect(r).toMatchObject({
      ok: true,
      rbac: {
        serviceAccount: 'demo-ns/demo-installer',
        bundle: 'demo.v1.2.0',
        grants: [{ object: 'Role demo-ns/demo.v1.2.0', rules: [expect.any(String)] }],
      },
    });
    expect(cluster.live({ kind: 'Role', metadata: { name: 'demo.v1.2.0', namespace: 'demo-ns' } })?.metadata.labels).toEqual(labels);
  });

  it('a write that conflicts is a value saying to run it again', async () => {
    const cluster = fakeCluster({ refuse: { 'patch ClusterExtension boxy': new ApiError(409, 'Conflict', 'changed') } });
    cluster.seed(clusterExtension('boxy'));
    for (const set of objectSetHistory('boxy')) cluster.seed(set);
    expect(await approveUpgrade(deps(cluster), request('boxy'))).toEqual({
      ok: false,
      error: 'ClusterExtension "boxy" changed while its upgrade was being resolved: run the command again',
      rbac: undefined,
    });
  });
});
