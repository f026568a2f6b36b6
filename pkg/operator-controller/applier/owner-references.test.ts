import { describe, expect, it } from 'vitest';
import { ApiError, type KubeObject } from '../../shared/kube/index.ts';
import type { OwnerReference } from '../../shared/unstructured/index.ts';
import { deleteOwnedObjects } from './delete.ts';
import { orphanObjects, releaseCrdReferences } from './keep-objects.ts';
import { withOwnerLabels } from './objects.ts';
import { ownerReferencesPatch, refersToExtension, releaseOwnerReferences } from './owner-references.ts';
import { checkOwnership } from './ownership.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { extensionOwnerRef } from '../../../test/support/revision-fixtures.ts';

/** An owner reference as upstream's Helm applier writes it. */
const upstreamRef = (name: string, uid?: string): OwnerReference => extensionOwnerRef(name, uid);
const otherRef: OwnerReference = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'ext', uid: 'uid-deploy' };

const crd = (name: string, refs: OwnerReference[], extension = 'ext'): KubeObject =>
  withOwnerLabels(
    [{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name, ownerReferences: refs } }],
    extension,
  )[0]!;
const cm = (name: string, refs: OwnerReference[]): KubeObject =>
  withOwnerLabels([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', ownerReferences: refs } }], 'ext')[0]!;

describe('refersToExtension', () => {
  it.each([
    ['the extension, v1', upstreamRef('ext'), true],
    ['the extension, another version of the group', { ...upstreamRef('ext'), apiVersion: 'olm.operatorframework.io/v1alpha1' }, true],
    ['another ClusterExtension', upstreamRef('other'), false],
    ['a kind named alike in another group', { ...upstreamRef('ext'), apiVersion: 'example.com/v1' }, false],
    ['a Deployment named like the extension', otherRef, false],
    ['its ClusterObjectSet revision 3', { ...upstreamRef('ext-3'), kind: 'ClusterObjectSet' }, true],
    ["extension ext-1's revision 1", { ...upstreamRef('ext-1-1'), kind: 'ClusterObjectSet' }, false],
    ['a ClusterObjectSet not named as a revision', { ...upstreamRef('ext-x'), kind: 'ClusterObjectSet' }, false],
    ['a ClusterObjectSet named revision 0', { ...upstreamRef('ext-0'), kind: 'ClusterObjectSet' }, false],
  ])('%s: %s', (_name, ref, want) => {
    expect(refersToExtension(ref, 'ext')).toBe(want);
  });
});

describe('ownerReferencesPatch', () => {
  it('tests each reference it removes by uid, and removes from the highest index down', () => {
    expect(ownerReferencesPatch([upstreamRef('ext', 'a'), otherRef, upstreamRef('ext', 'b')], 'ext')).toEqual([
      { op: 'test', path: '/metadata/ownerReferences/0/uid', value: 'a' },
      { op: 'test', path: '/metadata/ownerReferences/2/uid', value: 'b' },
      { op: 'remove', path: '/metadata/ownerReferences/2' },
      { op: 'remove', path: '/metadata/ownerReferences/0' },
    ]);
  });

  it('is undefined with nothing to remove', () => {
    expect(ownerReferencesPatch(undefined, 'ext')).toBeUndefined();
    expect(ownerReferencesPatch([otherRef, upstreamRef('other')], 'ext')).toBeUndefined();
  });
});

describe('releaseOwnerReferences', () => {
  it("removes the extension's references and keeps everyone else's", async () => {
    const cluster = fakeCluster();
    const obj = cm('a', [otherRef, upstreamRef('ext')]);
    cluster.seed(obj);
    expect(await releaseOwnerReferences(cluster.client, obj, cluster.live(obj)?.metadata, 'ext')).toBe(true);
    expect(cluster.live(obj)?.metadata.ownerReferences).toEqual([otherRef]);
  });

  it('reads the object again when its references changed since they were read (the test fails)', async () => {
    const cluster = fakeCluster();
    const obj = cm('a', [otherRef, upstreamRef('ext')]);
    cluster.seed(obj);
    // Read before someone removed the first reference: index 1 no longer holds the extension's.
    const stale = { ownerReferences: [otherRef, upstreamRef('ext')] };
    cluster.live(obj)!.metadata.ownerReferences = [upstreamRef('ext')];
    expect(await releaseOwnerReferences(cluster.client, obj, stale, 'ext')).toBe(true);
    expect(cluster.live(obj)?.metadata.ownerReferences).toEqual([]);
    expect(cluster.calls.filter((c) => c.startsWith('get '))).toHaveLength(1);
  });

  it('reads an object it was given no metadata of (a drift watch vouched for it) before deciding', async () => {
    const cluster = fakeCluster();
    const obj = crd('as.example.com', [otherRef, upstreamRef('ext')]);
    cluster.seed(obj);
    expect(await releaseOwnerReferences(cluster.client, obj, undefined, 'ext')).toBe(true);
    expect(cluster.live(obj)?.metadata.ownerReferences).toEqual([otherRef]);
    expect(await releaseOwnerReferences(cluster.client, crd('gone.example.com', []), undefined, 'ext')).toBe(false);
  });

  it('sends nothing when there is nothing to remove, and nothing for an object that is gone', async () => {
    const cluster = fakeCluster();
    const obj = cm('a', [otherRef]);
    expect(await releaseOwnerReferences(cluster.client, obj, { ownerReferences: [otherRef] }, 'ext')).toBe(false);
    expect(await releaseOwnerReferences(cluster.client, obj, { ownerReferences: [upstreamRef('ext')] }, 'ext')).toBe(false);
    expect(cluster.writes).toEqual(['patch ConfigMap ns/a']);
  });
});

describe('checkOwnership', () => {
  it("reports the objects that are ours and still carry the extension's owner reference", async () => {
    const cluster = fakeCluster();
    const referenced = cm('a', [upstreamRef('ext')]);
    cluster.seed(referenced);
    cluster.seed(cm('b', [otherRef]));
    const report = await checkOwnership(cluster.client, [cm('a', []), cm('b', []), cm('c', [])], {
      extension: 'ext',
      packageName: 'pkg',
      installNamespace: 'ns',
    });
    expect(report.referenced.map((r) => r.object.metadata.name)).toEqual(['a']);
    expect(report.referenced[0]?.ownerReferences).toEqual([upstreamRef('ext')]);
  });
});

describe('deleteOwnedObjects', () => {
  it('removes the owner reference of a CRD it keeps, and deletes the rest', async () => {
    const cluster = fakeCluster();
    const kept = crd('w.example.com', [upstreamRef('ext')]);
    const gone = cm('a', [upstreamRef('ext')]);
    cluster.seed(kept);
    cluster.seed(gone);
    const outcome = await deleteOwnedObjects(cluster.client, [kept, gone], 'ext');
    expect(outcome.kept).toEqual(['CustomResourceDefinition w.example.com']);
    expect(outcome.deleted).toEqual(['ConfigMap ns/a']);
    expect(cluster.live(kept)?.metadata.ownerReferences).toEqual([]);
  });

  it('fails, keeping the CRD, when its reference cannot be removed', async () => {
    const refusal = new ApiError(403, 'Forbidden', 'cannot patch resource "customresourcedefinitions"');
    const cluster = fakeCluster({ refuse: { 'patch CustomResourceDefinition w.example.com': refusal } });
    const kept = crd('w.example.com', [upstreamRef('ext')]);
    cluster.seed(kept);
    await expect(deleteOwnedObjects(cluster.client, [kept], 'ext')).rejects.toThrow(
      'error removing the owner reference to ClusterExtension "ext" from CustomResourceDefinition w.example.com: cannot patch',
    );
    expect(cluster.live(kept)).toBeDefined();
  });
});

describe('releaseCrdReferences', () => {
  it("finds the extension's CRDs by owner labels and removes only its references", async () => {
    const cluster = fakeCluster();
    cluster.seed(crd('a.example.com', [upstreamRef('ext'), otherRef]));
    cluster.seed(crd('b.example.com', []));
    cluster.seed(crd('c.example.com', [upstreamRef('other')], 'other'));
    expect(await releaseCrdReferences(cluster.client, 'ext')).toEqual(['CustomResourceDefinition a.example.com']);
    expect(cluster.live(crd('a.example.com', []))?.metadata.ownerReferences).toEqual([otherRef]);
    expect(cluster.live(crd('c.example.com', []))?.metadata.ownerReferences).toEqual([upstreamRef('other')]);
    expect(cluster.writes).toEqual(['patch CustomResourceDefinition a.example.com']);
  });

  it('names the CRDs it could not release and how to release them by hand', async () => {
    const refusal = new ApiError(403, 'Forbidden', 'cannot patch resource "customresourcedefinitions"');
    const cluster = fakeCluster({ refuse: { 'patch CustomResourceDefinition a.example.com': refusal } });
    cluster.seed(crd('a.example.com', [upstreamRef('ext')]));
    await expect(releaseCrdReferences(cluster.client, 'ext')).rejects.toThrow(
      /CustomResourceDefinitions a\.example\.com \(cannot patch .*\) still carry an owner reference to ClusterExtension "ext".*kubectl patch customresourcedefinition a\.example\.com --type json/,
    );
  });
});

describe('orphanObjects', () => {
  it("leaves every object in place without the extension's owner reference, and touches no one else's", async () => {
    const cluster = fakeCluster();
    const objects = [crd('a.example.com', [upstreamRef('ext')]), cm('a', [upstreamRef('ext')]), cm('b', [])];
    for (const o of objects) cluster.seed(o);
    const foreign: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'f', namespace: 'ns', ownerReferences: [upstreamRef('ext')] },
    };
    cluster.seed(foreign);
    const outcome = await orphanObjects(cluster.client, [...objects, foreign, cm('gone', [])], 'ext');
    expect(outcome).toEqual({ released: ['CustomResourceDefinition a.example.com', 'ConfigMap ns/a'], unreleased: [] });
    for (const o of objects) expect(cluster.live(o)?.metadata.ownerReferences).toEqual([]);
    expect(cluster.live(foreign)?.metadata.ownerReferences).toEqual([upstreamRef('ext')]);
    expect(cluster.writes.filter((w) => w.startsWith('delete'))).toEqual([]);
  });

  it('reports an object it could not release and stops for a CRD', async () => {
    const refusal = new ApiError(403, 'Forbidden', 'cannot patch resource');
    const cluster = fakeCluster({ refuse: { 'patch ConfigMap ns/a': refusal } });
    cluster.seed(cm('a', [upstreamRef('ext')]));
    expect((await orphanObjects(cluster.client, [cm('a', [])], 'ext')).unreleased).toEqual([
      { object: 'ConfigMap ns/a', reason: 'cannot patch resource' },
    ]);
    // A CRD it may not even read is reported, not fatal: the orphan annotation must let go.
    const unreadable = fakeCluster({ refuse: { 'get CustomResourceDefinition a.example.com': refusal } });
    unreadable.seed(crd('a.example.com', [upstreamRef('ext')]));
    expect((await orphanObjects(unreadable.client, [crd('a.example.com', [])], 'ext')).unreleased).toEqual([
      { object: 'CustomResourceDefinition a.example.com', reason: 'cannot patch resource' },
    ]);
    const crdRefused = fakeCluster({ refuse: { 'patch CustomResourceDefinition a.example.com': refusal } });
    crdRefused.seed(crd('a.example.com', [upstreamRef('ext')]));
    await expect(orphanObjects(crdRefused.client, [crd('a.example.com', [])], 'ext')).rejects.toThrow(/still carry an owner reference/);
  });
});
