// The preview of `olmv1 uninstall NAME --delete-crds` (preview.ts) over the shared fake client:
// the CRDs an extension's release owns with their custom resources counted per namespace, and
// the refusals naming who else owns or uses one. End to end: test/e2e/olmv1-uninstall-crds.test.ts.
import { describe, expect, it } from 'vitest';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import { Manifest, createReleaseStore, type Release } from '../../operator-controller/release/index.ts';
import { createRevisionReader } from '../../operator-controller/revisions/index.ts';
import type { Property } from '../../shared/fbc/types.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { previewCrdDeletion, previewSummary } from './index.ts';

const NS = 'olmv1-system';
const owner = (ext: string) => ({ 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': ext });

function crd(group: string, kind: string, ext: string | undefined, scope = 'Namespaced'): KubeObject {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, ...(ext === undefined ? {} : { labels: owner(ext) }) },
    spec: {
      group,
      scope,
      names: { kind, plural },
      versions: [
        { name: 'v1', served: true, storage: true },
        { name: 'v1beta1', served: true, storage: false },
      ],
    },
  };
}

function release(ext: string, objects: KubeObject[], properties: unknown[] = [], status: Release['status'] = 'deployed'): Release {
  return {
    extension: ext,
    extensionUID: '',
    revision: 1,
    status,
    bundle: { package: ext, name: `${ext}.v1.0.0`, version: '1.0.0', image: `registry.example/${ext}:v1` },
    manifest: Manifest.ofObjects(objects),
    properties: [{ type: 'olm.package', value: { packageName: ext, version: '1.0.0' } }, ...properties],
    description: 'Install complete',
  };
}

const cr = (kind: string, name: string, namespace?: string): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind,
  metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
});

async function clusterWith(objects: KubeObject[], releases: Release[]): Promise<FakeCluster> {
  const cluster = fakeCluster();
  for (const o of objects) cluster.seed(o);
  const store = createReleaseStore({ client: cluster.client, namespace: NS });
  for (const r of releases) await store.create(r);
  return cluster;
}

const preview = (cluster: FakeCluster, ext = 'demo') =>
  previewCrdDeletion({ client: cluster.client, revisions: createRevisionReader({ client: cluster.client, namespace: NS }) }, ext);

const widgets = crd('example.com', 'Widget', 'demo');
const gadgets = crd('example.com', 'ClusterGadget', 'demo', 'Cluster');

describe('previewCrdDeletion', () => {
  it('lists the CRDs the release names or labels for the extension, counting custom resources per namespace', async () => {
    const kept = crd('example.com', 'Gizmo', 'demo'); // kept by an earlier revision's uninstall: labels only
    const cluster = await clusterWith(
      [
        widgets,
        gadgets,
        kept,
        crd('example.com', 'Other', undefined),
        cr('Widget', 'a', 'ns-a'),
        cr('Widget', 'b', 'ns-a'),
        cr('Widget', 'c', 'ns-b'),
        cr('ClusterGadget', 'g'),
      ],
      [release('demo', [widgets, gadgets, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'op', namespace: 'demo' } }])],
    );
    const p = await preview(cluster);
    expect(p.refusals).toEqual([]);
    expect(previewSummary(p)).toEqual({
      extension: 'demo',
      customResourceDefinitions: [
        {
          name: 'clustergadgets.example.com',
          group: 'example.com',
          kind: 'ClusterGadget',
          scope: 'Cluster',
          customResources: [{ namespace: '', count: 1 }],
        },
        { name: 'gizmos.example.com', group: 'example.com', kind: 'Gizmo', scope: 'Namespaced', customResources: [] },
        {
          name: 'widgets.example.com',
          group: 'example.com',
          kind: 'Widget',
          scope: 'Namespaced',
          customResources: [
            { namespace: 'ns-a', count: 2 },
            { namespace: 'ns-b', count: 1 },
          ],
        },
      ],
    });
    // Each CRD is identified by the uid read, for the deletion's precondition.
    expect(p.crds.map((c) => c.uid)).toEqual(p.crds.map((c) => cluster.objects.get(`CustomResourceDefinition ${c.name}`)?.metadata.uid));
    // Reads only.
    expect(cluster.writes.filter((w) => !w.includes('Secret'))).toEqual([]);
  });

  it('refuses a CRD the release names but another ClusterExtension owns, and one nobody labelled', async () => {
    const taken = crd('example.com', 'Widget', 'other');
    const unlabelled = crd('example.com', 'Gadget', undefined);
    const cluster = await clusterWith([taken, unlabelled], [release('demo', [taken, unlabelled])]);
    const p = await preview(cluster);
    expect(p.crds).toEqual([]);
    expect(p.refusals).toEqual([
      { crd: 'gadgets.example.com', reason: `it does not carry ClusterExtension "demo"'s owner labels` },
      { crd: 'widgets.example.com', reason: 'ClusterExtension "other" owns it' },
    ]);
  });

  it("refuses a CRD another extension's release includes", async () => {
    const cluster = await clusterWith([widgets, gadgets], [release('demo', [widgets, gadgets]), release('copy', [widgets], [], 'failed')]);
    const p = await preview(cluster);
    expect(p.refusals).toEqual([{ crd: 'widgets.example.com', reason: 'the release of ClusterExtension "copy" includes it' }]);
  });

  it("refuses a CRD whose API another installed extension's bundle requires, naming it and the API", async () => {
    const needsWidgets = { type: 'olm.gvk.required', value: { group: 'example.com', version: 'v1', kind: 'Widget' } };
    const provides = [
      { type: 'olm.gvk', value: { group: 'example.com', version: 'v1', kind: 'Widget' } },
      { type: 'olm.gvk', value: { group: 'example.com', version: 'v1', kind: 'ClusterGadget' } },
    ];
    const cluster = await clusterWith([widgets, gadgets], [release('demo', [widgets, gadgets], provides), release('user', [], [needsWidgets])]);
    const p = await preview(cluster);
    expect(p.refusals).toEqual([
      { crd: 'widgets.example.com', reason: 'ClusterExtension "user" requires API example.com/v1 Widget (olm.gvk.required)' },
    ]);
  });

  it('does not refuse for a requirement something else still meets, or one that was never met', async () => {
    const needsWidgets = { type: 'olm.gvk.required', value: { group: 'example.com', version: 'v1', kind: 'Widget' } };
    const needsNothingHere = { type: 'olm.gvk.required', value: { group: 'elsewhere.io', version: 'v1', kind: 'Thing' } };
    const alsoProvides = { type: 'olm.gvk', value: { group: 'example.com', version: 'v1', kind: 'Widget' } };
    const cluster = await clusterWith(
      [widgets],
      [release('demo', [widgets]), release('user', [], [needsWidgets]), release('twin', [], [alsoProvides]), release('lost', [], [needsNothingHere])],
    );
    expect((await preview(cluster)).refusals).toEqual([]);
  });

  it("reads installed bundles' catalog properties, where a CSV's required CRDs are, and says when a catalog cannot be read", async () => {
    const cluster = await clusterWith([widgets], [release('demo', [widgets]), release('user', []), release('unread', [])]);
    const catalog: Record<string, Property[]> = {
      'demo.v1.0.0': [{ type: 'olm.gvk', value: { group: 'example.com', version: 'v1', kind: 'Widget' } }],
      'user.v1.0.0': [{ type: 'olm.gvk.required', value: { group: 'example.com', version: 'v1', kind: 'Widget' } }],
    };
    const p = await previewCrdDeletion(
      {
        client: cluster.client,
        revisions: createRevisionReader({ client: cluster.client, namespace: NS }),
        catalogProperties: (pkg, bundle) => {
          if (pkg === 'unread') return Promise.reject(new Error('catalogd unreachable'));
          return Promise.resolve(catalog[bundle]);
        },
      },
      'demo',
    );
    expect(p.refusals).toEqual([
      { crd: 'widgets.example.com', reason: 'ClusterExtension "user" requires API example.com/v1 Widget (olm.gvk.required)' },
    ]);
    expect(p.unchecked).toEqual(['ClusterExtension "unread" (catalogd unreachable)']);
    // Without the catalogs, the records alone do not show the requirement.
    expect((await preview(cluster)).refusals).toEqual([]);
  });
});
