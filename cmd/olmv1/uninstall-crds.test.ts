// `olmv1 uninstall NAME --delete-crds` (uninstall.ts, uninstall-crds.ts) over the shared fake
// client: the preview deletes nothing, refusals delete nothing, --yes uninstalls then deletes the
// previewed CRDs and prints the same table, a Forbidden stops with the server's message, and
// custom resources held by finalizers are reported, their finalizers kept. The API server's
// cascade (a CRD's finalizer removes its custom resources) is played by `cascade` below.
// End to end: test/e2e/olmv1-uninstall-crds.test.ts.
import { describe, expect, it } from 'vitest';
import { fakeCluster, type FakeCluster } from '../../test/support/fake-cluster.ts';
import { setCondition } from '../../test/support/revision-fixtures.ts';
import { Manifest, createReleaseStore, type Release } from '../../pkg/operator-controller/release/index.ts';
import { ApiError, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { runUninstall } from './uninstall.ts';

const owner = (ext: string) => ({ 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': ext });
const CLEANUP = 'customresourcecleanup.apiextensions.k8s.io';

function crd(kind: string, ext: string): KubeObject {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com`, labels: owner(ext), finalizers: [CLEANUP] },
    spec: { group: 'example.com', scope: 'Namespaced', names: { kind, plural }, versions: [{ name: 'v1', served: true, storage: true }] },
  };
}
const cr = (kind: string, name: string, namespace: string, finalizers?: string[]): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind,
  metadata: { name, namespace, ...(finalizers === undefined ? {} : { finalizers }) },
});
function release(ext: string, objects: KubeObject[], properties: unknown[] = []): Release {
  return {
    extension: ext,
    extensionUID: '',
    revision: 1,
    status: 'deployed',
    bundle: { package: ext, name: `${ext}.v1.0.0`, version: '1.0.0', image: `registry.example/${ext}:v1` },
    manifest: Manifest.ofObjects(objects),
    properties,
    description: 'Install complete',
  };
}
const extension: KubeObject = {
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterExtension',
  metadata: { name: 'demo' },
  spec: { namespace: 'demo', serviceAccount: { name: 'installer' }, source: { sourceType: 'Catalog', catalog: { packageName: 'demo' } } },
};
const widgets = crd('Widget', 'demo');
const gadgets = crd('Gadget', 'demo');
const bystanders = crd('Bystander', 'other');

async function clusterWith(extra: KubeObject[] = [], others: Release[] = []): Promise<FakeCluster> {
  const cluster = fakeCluster();
  for (const o of [
    extension,
    widgets,
    gadgets,
    bystanders,
    cr('Widget', 'a', 'ns-a'),
    cr('Widget', 'b', 'ns-a'),
    cr('Widget', 'c', 'ns-b'),
    cr('Bystander', 'x', 'ns-a'),
    ...extra,
  ])
    cluster.seed(o);
  const store = createReleaseStore({ client: cluster.client, namespace: 'olmv1-system' });
  for (const r of [release('demo', [widgets, gadgets]), release('other', [bystanders]), ...others]) await store.create(r);
  return cluster;
}

/** The API server's part: a CRD being deleted deletes its custom resources, and goes when none is left. */
function cascade(cluster: FakeCluster): void {
  for (const c of [...cluster.objects.values()]) {
    if (c.kind !== 'CustomResourceDefinition' || c.metadata.deletionTimestamp === undefined) continue;
    const kind = (c.spec as { names: { kind: string } }).names.kind;
    const mine = [...cluster.objects.values()].filter((o) => o.kind === kind);
    for (const o of mine)
      if (o.metadata.deletionTimestamp === undefined)
        void cluster.client.delete({ apiVersion: o.apiVersion, kind, name: o.metadata.name ?? '', namespace: o.metadata.namespace ?? '' });
    if ([...cluster.objects.values()].every((o) => o.kind !== kind)) cluster.edit(c, (live) => void (live.metadata.finalizers = []));
  }
}

async function uninstall(cluster: FakeCluster, args: string[]) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  let now = 0;
  const code = await runUninstall(args, io, {
    connectCluster: () => Promise.resolve({ client: cluster.client, close: () => undefined }),
    sleep: (ms) => {
      now += ms;
      cascade(cluster);
      return Promise.resolve();
    },
    now: () => now,
  });
  return { code, stdout, stderr };
}

const TABLE = [
  'CUSTOMRESOURCEDEFINITION   KIND     NAMESPACE   CUSTOM RESOURCES',
  'gadgets.example.com        Gadget   -           0',
  'widgets.example.com        Widget   ns-a        2',
  'widgets.example.com        Widget   ns-b        1',
  '',
].join('\n');
const kinds = (cluster: FakeCluster) => [...cluster.objects.keys()].filter((k) => !k.startsWith('Secret ')).sort();

describe('olmv1 uninstall --delete-crds', () => {
  it('without --yes prints the preview and deletes nothing, not even the ClusterExtension', async () => {
    const cluster = await clusterWith();
    const writes = cluster.writes.length;
    const out = await uninstall(cluster, ['demo', '--delete-crds']);
    expect(out).toEqual({
      code: 0,
      stdout: TABLE,
      stderr:
        'nothing deleted (preview): "olmv1 uninstall demo --delete-crds --yes" uninstalls demo and deletes 2 CustomResourceDefinitions and 3 custom resources\n',
    });
    expect(cluster.writes.slice(writes)).toEqual([]);
  });

  it('-o json prints the preview as one document', async () => {
    const out = await uninstall(await clusterWith(), ['demo', '--delete-crds', '-o', 'json']);
    const doc = JSON.parse(out.stdout) as {
      extension: string;
      deleted: boolean;
      customResourceDefinitions: { name: string; customResources: unknown[] }[];
    };
    expect(doc).toMatchObject({ extension: 'demo', deleted: false });
    expect(doc.customResourceDefinitions.map((c) => [c.name, c.customResources])).toEqual([
      ['gadgets.example.com', []],
      [
        'widgets.example.com',
        [
          { namespace: 'ns-a', count: 2 },
          { namespace: 'ns-b', count: 1 },
        ],
      ],
    ]);
  });

  it('with --yes uninstalls, then deletes exactly the previewed CRDs and their custom resources, and prints the same table', async () => {
    const cluster = await clusterWith();
    const out = await uninstall(cluster, ['demo', '--delete-crds', '--yes']);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(['deleted ClusterExtension demo', 'deleted 2 CustomResourceDefinitions and 3 custom resources:', TABLE].join('\n'));
    // The extension went before any CRD.
    const deletes = cluster.writes.filter((w) => w.startsWith('delete '));
    expect(deletes.slice(0, 3)).toEqual([
      'delete ClusterExtension demo',
      'delete CustomResourceDefinition gadgets.example.com',
      'delete CustomResourceDefinition widgets.example.com',
    ]);
    expect(kinds(cluster)).toEqual(['Bystander ns-a/x', 'CustomResourceDefinition bystanders.example.com']);
  });

  it('refuses a CRD another extension requires, naming it, and deletes nothing (with --yes too)', async () => {
    const needs = { type: 'olm.gvk.required', value: { group: 'example.com', version: 'v1', kind: 'Gadget' } };
    const cluster = await clusterWith([], [release('user', [], [needs])]);
    const before = kinds(cluster);
    const writes = cluster.writes.length;
    const out = await uninstall(cluster, ['demo', '--delete-crds', '--yes']);
    expect(out).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'refusing to delete the CustomResourceDefinitions of ClusterExtension "demo"; nothing was deleted:\n' +
        '  CustomResourceDefinition gadgets.example.com: ClusterExtension "user" requires API example.com/v1 Gadget (olm.gvk.required)\n',
    });
    expect(cluster.writes.slice(writes)).toEqual([]);
    expect(kinds(cluster)).toEqual(before);
  });

  it('stops at a Forbidden with the API server message, deleting nothing further', async () => {
    const cluster = await clusterWith();
    cluster.refuse(
      'delete CustomResourceDefinition gadgets.example.com',
      new ApiError(
        403,
        'Forbidden',
        'customresourcedefinitions.apiextensions.k8s.io "gadgets.example.com" is forbidden: User "dev" cannot delete resource',
      ),
    );
    const out = await uninstall(cluster, ['demo', '--delete-crds', '--yes']);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      'error deleting CustomResourceDefinition gadgets.example.com: customresourcedefinitions.apiextensions.k8s.io "gadgets.example.com" is forbidden: User "dev" cannot delete resource (nothing further was deleted)\n',
    );
    // The refused call is the last one: widgets (after gadgets in name order) is never asked for.
    expect(cluster.writes.filter((w) => w.startsWith('delete CustomResourceDefinition'))).toEqual([
      'delete CustomResourceDefinition gadgets.example.com',
    ]);
    expect(kinds(cluster)).toEqual(
      expect.arrayContaining(['CustomResourceDefinition gadgets.example.com', 'CustomResourceDefinition widgets.example.com', 'Widget ns-a/a']),
    );
  });

  it('reports custom resources whose finalizers never clear after the bound, and keeps their finalizers', async () => {
    const cluster = await clusterWith([cr('Widget', 'stuck', 'ns-b', ['example.com/backup'])]);
    const out = await uninstall(cluster, ['demo', '--delete-crds', '--yes', '--timeout', '5s']);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('waiting for the CustomResourceDefinitions to go: widgets.example.com\n');
    expect(out.stderr).toContain(
      '  CustomResourceDefinition widgets.example.com: 1 custom resources wait for finalizers: ns-b/stuck (example.com/backup)\n',
    );
    expect(cluster.objects.get('Widget ns-b/stuck')?.metadata.finalizers).toEqual(['example.com/backup']);
    expect(kinds(cluster)).not.toContain('CustomResourceDefinition gadgets.example.com');
  });

  it('finds the CRDs an earlier uninstall kept when the ClusterExtension is gone', async () => {
    const cluster = await clusterWith();
    cluster.edit(extension, (live) => void (live.metadata.finalizers = ['x']));
    await cluster.client.delete({ apiVersion: extension.apiVersion, kind: 'ClusterExtension', name: 'demo' });
    cluster.edit(extension, (live) => void (live.metadata.finalizers = []));
    const out = await uninstall(cluster, ['demo', '--delete-crds', '--yes']);
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('ClusterExtension "demo" not found; deleting the CustomResourceDefinitions an earlier uninstall kept\n');
    expect(kinds(cluster)).toEqual(['Bystander ns-a/x', 'CustomResourceDefinition bystanders.example.com']);
  });

  it('rejects --yes, -o and --system-namespace without --delete-crds', async () => {
    const cluster = await clusterWith();
    for (const flag of [['--yes'], ['-o', 'json'], ['--system-namespace', 'x']]) {
      const out = await uninstall(cluster, ['demo', ...flag]);
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/is only valid with --delete-crds/);
    }
  });

  it("under BoxcutterRuntime reads the CRDs from the extension's ClusterObjectSet revision, and still refuses one without its owner labels", async () => {
    const things = crd('Thing', 'boxy');
    delete things.metadata.labels;
    const revision: KubeObject = {
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterObjectSet',
      metadata: { name: 'boxy-1', labels: owner('boxy') },
      spec: { revision: 1, lifecycleState: 'Active', collisionProtection: 'Prevent', phases: [{ name: 'crds', objects: [{ object: things }] }] },
      status: { conditions: [setCondition('Succeeded', 'True', 'Succeeded', 'Revision succeeded rolling out.')] },
    };
    const cluster = await clusterWith([{ ...extension, metadata: { name: 'boxy' } }, things, revision, cr('Thing', 't', 'ns-a')]);
    const out = await uninstall(cluster, ['boxy', '--delete-crds']);
    // Named by the revision alone (no owner labels): refused as any CRD not provably the extension's.
    expect(out).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'refusing to delete the CustomResourceDefinitions of ClusterExtension "boxy"; nothing was deleted:\n' +
        `  CustomResourceDefinition things.example.com: it does not carry ClusterExtension "boxy"'s owner labels\n`,
    });
    expect(cluster.objects.has('CustomResourceDefinition things.example.com')).toBe(true);
  });
});
