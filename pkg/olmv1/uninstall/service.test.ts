// The uninstall service (service.ts) over the shared fake client, for an extension installed
// under BoxcutterRuntime (its revisions are ClusterObjectSets, no Helm release record): the
// preview names its CRDs and the installer's objects, deleting nothing; the uninstall deletes
// the ClusterExtension, the installer's objects and, opted in, the CRDs, as values and events;
// another extension's ClusterObjectSet requiring a CRD's API refuses the CRD deletion, nothing deleted.
import { describe, expect, it } from 'vitest';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import { clusterExtension, setCondition } from '../../../test/support/revision-fixtures.ts';
import { desiredRevision, type ObjectSetManifest } from '../../operator-controller/applier/index.ts';
import { Manifest } from '../../operator-controller/release/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { previewUninstall, uninstallExtension } from './service.ts';
import type { UninstallEvent, UninstallPorts } from './types.ts';

const owner = (ext: string) => ({ 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': ext });
const installedFor = (ext: string) => ({ 'olm.operatorframework.io/installed-by': 'olmv1', 'olm.operatorframework.io/installed-for': ext });

function crd(kind: string, ext: string): KubeObject {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com`, labels: owner(ext) },
    spec: { group: 'example.com', scope: 'Namespaced', names: { kind, plural }, versions: [{ name: 'v1', served: true, storage: true }] },
  };
}

/** The installed ClusterObjectSet (revision 1) of `ext`, applying `objects`, with the bundle's `properties`. */
function installedSet(ext: string, objects: KubeObject[], properties: unknown[] = []): ObjectSetManifest {
  const s = desiredRevision(
    { name: ext, uid: `${ext}-uid` },
    {
      extension: ext,
      extensionUID: `${ext}-uid`,
      installNamespace: ext,
      bundle: { package: ext, name: `${ext}.v1.0.0`, version: '1.0.0', image: `registry.example/${ext}:v1` },
      manifest: Manifest.ofObjects(objects.map((o) => ({ ...o, metadata: { name: o.metadata.name ?? '' } }))),
      properties,
    },
    1,
  );
  return {
    ...s,
    spec: { ...s.spec, lifecycleState: 'Active' },
    status: { conditions: [setCondition('Succeeded', 'True', 'Succeeded'), setCondition('Available', 'True', 'ProbesSucceeded')] },
  };
}

const widgets = crd('Widget', 'demo');
const gadgets = crd('Gadget', 'demo');
const installer: KubeObject = {
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 'demo-installer', namespace: 'demo', labels: installedFor('demo') },
};
const widget = (name: string, namespace: string): KubeObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace } });

function clusterWith(others: ObjectSetManifest[] = []): FakeCluster {
  const cluster = fakeCluster();
  for (const o of [clusterExtension('demo'), widgets, gadgets, installer, widget('a', 'ns-a'), widget('b', 'ns-b')]) cluster.seed(o);
  for (const s of [installedSet('demo', [widgets, gadgets]), ...others]) cluster.seed(s);
  return cluster;
}

function portsOf(cluster: FakeCluster): { ports: UninstallPorts; events: UninstallEvent[] } {
  const events: UninstallEvent[] = [];
  let now = 0;
  const ports: UninstallPorts = {
    client: cluster.client,
    installerSelector: (ext) => `olm.operatorframework.io/installed-by=olmv1,olm.operatorframework.io/installed-for=${ext}`,
    now: () => now,
    sleep: (ms) => {
      now += ms;
      return Promise.resolve();
    },
    report: (e) => events.push(e),
  };
  return { ports, events };
}

const request = { extension: 'demo', systemNamespace: 'olmv1-system', keepRbac: false, deleteCrds: true, timeoutMs: 60_000 };
const has = (cluster: FakeCluster, kind: string, name: string) =>
  [...cluster.objects.values()].some((o) => o.kind === kind && o.metadata.name === name);

describe('the uninstall service, for an extension whose revisions are ClusterObjectSets', () => {
  it('previews its CRDs (from its revision and owner labels) and the installer objects, deleting nothing', async () => {
    const cluster = clusterWith();
    const { ports } = portsOf(cluster);
    const out = await previewUninstall(ports, request);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.value).toMatchObject({
      extension: 'demo',
      clusterExtension: true,
      installerObjects: ['ServiceAccount demo/demo-installer'],
      installerKept: false,
    });
    expect(out.value.crds?.crds.map((c) => [c.name, c.customResources])).toEqual([
      ['gadgets.example.com', []],
      [
        'widgets.example.com',
        [
          { namespace: 'ns-a', count: 1 },
          { namespace: 'ns-b', count: 1 },
        ],
      ],
    ]);
    expect(out.value.crds?.refusals).toEqual([]);
    expect(has(cluster, 'ClusterExtension', 'demo') && has(cluster, 'ServiceAccount', 'demo-installer')).toBe(true);
  });

  it('uninstalls it: the ClusterExtension, the installer objects, then the CRDs, as values and events', async () => {
    const cluster = clusterWith();
    const { ports, events } = portsOf(cluster);
    const out = await uninstallExtension(ports, request);
    expect(out).toMatchObject({ ok: true, value: { clusterExtension: true, installerObjects: ['ServiceAccount demo/demo-installer'] } });
    if (out.ok) expect(out.value.crds?.crds.map((c) => c.name)).toEqual(['gadgets.example.com', 'widgets.example.com']);
    expect(events).toEqual([
      { type: 'deleting', extension: 'demo' },
      { type: 'deleted', object: 'ClusterExtension demo' },
      { type: 'deleted', object: 'ServiceAccount demo/demo-installer' },
      { type: 'deletingCrd', name: 'gadgets.example.com', customResources: 0 },
      { type: 'deletingCrd', name: 'widgets.example.com', customResources: 2 },
    ]);
    for (const [kind, name] of [
      ['ClusterExtension', 'demo'],
      ['ServiceAccount', 'demo-installer'],
      ['CustomResourceDefinition', 'widgets.example.com'],
      ['CustomResourceDefinition', 'gadgets.example.com'],
    ] as const)
      expect(has(cluster, kind, name)).toBe(false);
  });

  it("refuses the CRDs another extension's ClusterObjectSet requires or includes, deleting nothing", async () => {
    const required = [{ type: 'olm.gvk.required', value: { group: 'example.com', version: 'v1', kind: 'Widget' } }];
    const cluster = clusterWith([installedSet('user', [], required), installedSet('bundler', [gadgets])]);
    const { ports, events } = portsOf(cluster);
    const out = await uninstallExtension(ports, request);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.error.message).toBe(
      'refusing to delete the CustomResourceDefinitions of ClusterExtension "demo"; nothing was deleted:\n' +
        '  CustomResourceDefinition gadgets.example.com: the release of ClusterExtension "bundler" includes it\n' +
        '  CustomResourceDefinition widgets.example.com: ClusterExtension "user" requires API example.com/v1 Widget (olm.gvk.required)',
    );
    expect(events).toEqual([]);
    expect(has(cluster, 'ClusterExtension', 'demo') && has(cluster, 'CustomResourceDefinition', 'widgets.example.com')).toBe(true);
  });

  it('without the ClusterExtension and with the installer objects kept, is not found', async () => {
    const cluster = fakeCluster();
    const { ports } = portsOf(cluster);
    expect(await uninstallExtension(ports, { ...request, deleteCrds: false, keepRbac: true })).toEqual({
      ok: false,
      error: { message: 'ClusterExtension "demo" not found' },
    });
  });
});
