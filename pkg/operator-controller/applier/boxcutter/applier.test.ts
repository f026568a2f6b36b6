import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ApiError, type KubeClient, type KubeObject, type ObjectRef } from '../../../shared/kube/index.ts';
import { fakeCluster, type FakeCluster } from '../../../../test/support/fake-cluster.ts';
import { Manifest } from '../../release/index.ts';
import { createBoxcutterApplier } from './applier.ts';
import { releaseCrdReferences } from '../keep-objects.ts';
import { desiredRevision, inlineObjects, keptCrdNames, sameRevisionContent, type ObjectSetManifest } from './revision.ts';
import { createObjectSetReleases, deleteRevisions } from './store.ts';
import type { DesiredRevision } from '../revision.ts';
import { BundleBudget } from '../../bundlepull/index.ts';

const NS = 'olmv1-system';
const ext = { name: 'test-ext', uid: 'ce-uid', installNamespace: 'ns' };
const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
  data,
});
const deployment: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'op', namespace: 'ns' }, spec: { replicas: 1 } };

const desired = (objects: KubeObject[], version = '1.0.0', image = `img:${version}`): DesiredRevision => ({
  extension: ext.name,
  extensionUID: ext.uid,
  installNamespace: ext.installNamespace,
  bundle: { package: 'p', name: `p.v${version}`, version, image },
  manifest: Manifest.ofObjects(objects),
  properties: [],
});

/**
 * `cluster.client` as operator-controller's own client on a real cluster (config/rbac): CRDs
 * listed and watched, never read by name or patched (403).
 */
function asOperatorController(client: KubeClient): KubeClient {
  const forbidden = (ref: ObjectRef): ApiError =>
    new ApiError(403, 'Forbidden', `customresourcedefinitions.apiextensions.k8s.io "${ref.name}" is forbidden: operator-controller`);
  return {
    ...client,
    get: async (ref, o) => {
      if (ref.kind === 'CustomResourceDefinition') throw forbidden(ref);
      return client.get(ref, o);
    },
    patch: async (ref, body, type, o) => {
      if (ref.kind === 'CustomResourceDefinition') throw forbidden(ref);
      return client.patch(ref, body, type, o);
    },
  };
}

function setup(cluster: FakeCluster = fakeCluster(), o: { installers?: string[] } = {}) {
  const applier = createBoxcutterApplier({
    client: asOperatorController(cluster.client),
    systemNamespace: NS,
    scoped: {
      forServiceAccount: (namespace, name) => {
        o.installers?.push(`${namespace}/${name}`);
        return cluster.client;
      },
    },
  });
  const releases = createObjectSetReleases(cluster.client);
  const request = async (extension: typeof ext & { progressDeadlineMinutes?: number } = ext) => ({
    extension,
    installer: { name: 'installer', namespace: 'ns' },
    history: await releases.history(ext.name),
    log: pino({ level: 'silent' }),
    signal: new AbortController().signal,
  });
  const sets = () =>
    [...cluster.objects.values()]
      .filter((o): o is ObjectSetManifest => o.kind === 'ClusterObjectSet')
      .sort((a, b) => a.spec.revision - b.spec.revision);
  const secrets = () => [...cluster.objects.values()].filter((o) => o.kind === 'Secret');
  /** What the ClusterObjectSet controller reports once a revision rolled out. */
  const succeed = (name: string) =>
    cluster.edit({ kind: 'ClusterObjectSet', metadata: { name } }, (s) => {
      s['status'] = {
        conditions: [
          {
            type: 'Succeeded',
            status: 'True',
            reason: 'Succeeded',
            message: 'Revision succeeded rolling out.',
            lastTransitionTime: '2026-11-28T00:00:00Z',
          },
        ],
      };
    });
  return { cluster, applier, releases, request, sets, secrets, succeed };
}

describe('createBoxcutterApplier: apply', () => {
  it('makes no new revision for the same bundle held by another active revision while the newest rolls out (no ping-pong between two renderings)', async () => {
    const { applier, request, sets, succeed } = setup();
    // Revision 1 installed with one rendering of 1.0.0, revision 2 rolling out with another (a takeover, say).
    await applier.apply(await request(), desired([cm('a', { strategy: '{}' })]));
    succeed('test-ext-1');
    await applier.apply(await request(), desired([cm('a')]));
    expect(sets().map((s) => s.metadata.name)).toEqual(['test-ext-1', 'test-ext-2']);
    // The installed revision's content comes back (its record stood in for a pull): nothing new, revision 2 goes on.
    const again = await applier.apply(await request(), desired([cm('a', { strategy: '{}' })]));
    expect(again.changed).toBe(false);
    expect(sets().map((s) => s.metadata.name)).toEqual(['test-ext-1', 'test-ext-2']);
    // Another bundle (going back to an older version) still makes a revision.
    const older = await applier.apply(await request(), desired([cm('a', { strategy: '{}' })], '0.9.0'));
    expect(older.changed).toBe(true);
    expect(sets().map((s) => s.metadata.name)).toEqual(['test-ext-1', 'test-ext-2', 'test-ext-3']);
  });

  it('makes revision 1 with its objects in owned, immutable Secrets', async () => {
    const { cluster, applier, request, sets, secrets } = setup();
    const applied = await applier.apply(await request(), desired([cm('a'), deployment]));
    expect(applied.changed).toBe(true);
    expect(applied.release).toMatchObject({
      extension: 'test-ext',
      extensionUID: 'ce-uid',
      revision: 1,
      status: 'pending-install',
      bundle: { version: '1.0.0' },
    });
    expect(applied.release.manifest.objects().map((o) => o.metadata.name)).toEqual(['a', 'op']);
    const [set] = sets();
    expect(set?.metadata.name).toBe('test-ext-1');
    expect(set?.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterExtension',
        name: 'test-ext',
        uid: 'ce-uid',
        blockOwnerDeletion: true,
        controller: true,
      },
    ]);
    expect(set?.spec.phases.map((p) => p.name)).toEqual(['configuration', 'deploy']);
    expect(set?.spec.phases.flatMap((p) => p.objects).every((o) => o.object === undefined && o.ref?.namespace === NS)).toBe(true);
    expect(secrets()).toHaveLength(1);
    expect(secrets()[0]?.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'ClusterObjectSet', name: 'test-ext-1', uid: set?.metadata.uid, controller: true }),
    ]);
    // Secrets first, the revision, then its ownership of them: a crash leaves nothing unowned for long
    expect(cluster.writes.map((w) => w.split(' ').slice(0, 2).join(' '))).toEqual(['create Secret', 'create ClusterObjectSet', 'patch Secret']);
  });

  it('keeps the newest revision when the content is unchanged: nothing written', async () => {
    const { cluster, applier, request, sets } = setup();
    await applier.apply(await request(), desired([cm('a'), deployment]));
    const writes = cluster.writes.length;
    const again = await applier.apply(await request(), desired([deployment, cm('a')]));
    expect(again.changed).toBe(false);
    expect(again.release.revision).toBe(1);
    expect(again.release.manifest.objects().map((o) => o.metadata.name)).toEqual(['a', 'op']);
    expect(cluster.writes.slice(writes)).toEqual([]);
    expect(sets()).toHaveLength(1);
  });

  it('takes back the CRDs kept for its package (IfNoController), read and unmarked as the installer, and removes their mark once the revision controls them', async () => {
    const installers: string[] = [];
    const { cluster, applier, request, sets } = setup(fakeCluster(), { installers });
    const KEPT = 'olm.operatorframework.io/kept-for-package';
    const crd = (name: string): KubeObject => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name } });
    const live = (name: string, annotations: Record<string, string>, controller?: string): KubeObject => ({
      ...crd(name),
      metadata: {
        name,
        annotations,
        ...(controller === undefined
          ? {}
          : { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: controller, controller: true }] }),
      },
    });
    cluster.seed(live('ours.example.com', { [KEPT]: 'p', 'olm.operatorframework.io/revision': '1' }));
    cluster.seed(live('theirs.example.com', { [KEPT]: 'other' }));
    cluster.seed(live('unmarked.example.com', {}));
    cluster.seed(live('owned.example.com', { [KEPT]: 'p' }, 'someone'));
    const crds = ['ours', 'theirs', 'unmarked', 'owned', 'absent'].map((n) => crd(`${n}.example.com`));
    await applier.apply(await request(), desired([...crds, cm('a')]));
    const [set] = sets();
    expect(set?.spec.phases.flatMap((p) => p.objects.filter((o) => o.collisionProtection !== undefined).map((o) => o.collisionProtection))).toEqual([
      'IfNoController',
    ]);
    // Exactly the CRD kept for this package with no controller: not another package's, an unmarked or an owned one.
    expect(set && keptCrdNames(set, inlineObjects(desiredRevision(ext, desired([...crds, cm('a')]), 1)))).toEqual(new Set(['ours.example.com']));

    // Before the revision controls it, the mark stays; the same content makes no new revision.
    const again = await applier.apply(await request(), desired([...crds, cm('a')]));
    expect(again.changed).toBe(false);
    expect(cluster.live(crd('ours.example.com'))?.metadata.annotations?.[KEPT]).toBe('p');
    // The ClusterObjectSet controller took it back: the next apply removes the mark, of that CRD alone.
    cluster.edit(crd('ours.example.com'), (o) => {
      o.metadata.ownerReferences = [
        { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterObjectSet', name: 'test-ext-1', uid: set?.metadata.uid ?? '', controller: true },
      ];
    });
    const third = await applier.apply(await request(), desired([...crds, cm('a')]));
    expect(third.changed).toBe(false);
    expect(sets()).toHaveLength(1);
    expect(cluster.live(crd('ours.example.com'))?.metadata.annotations?.[KEPT]).toBeUndefined();
    expect(cluster.live(crd('theirs.example.com'))?.metadata.annotations?.[KEPT]).toBe('other');
    expect(cluster.live(crd('owned.example.com'))?.metadata.annotations?.[KEPT]).toBe('p');
    // Read and unmarked as the extension's installer: operator-controller's own client may not (config/rbac).
    expect(new Set(installers)).toEqual(new Set(['ns/installer']));
    // Done once: the next apply reads no CRD.
    const reads = cluster.calls.length;
    await applier.apply(await request(), desired([...crds, cm('a')]));
    expect(cluster.calls.slice(reads).filter((c) => c.includes('CustomResourceDefinition'))).toEqual([]);
  });

  it('takes nothing back, and does not fail, when the installer may not read the kept CRDs', async () => {
    const KEPT = 'olm.operatorframework.io/kept-for-package';
    const crd: KubeObject = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'ours.example.com' } };
    const cluster = fakeCluster({
      refuse: { 'get CustomResourceDefinition ours.example.com': new ApiError(403, 'Forbidden', 'forbidden: the installer') },
    });
    cluster.seed({ ...crd, metadata: { name: 'ours.example.com', annotations: { [KEPT]: 'p' } } });
    const { applier, request, sets } = setup(cluster);
    const applied = await applier.apply(await request(), desired([crd, cm('a')]));
    expect(applied.changed).toBe(true);
    // Upstream's revision: every object under the revision's Prevent (the CRD collides, as before).
    expect(sets().flatMap((set) => set.spec.phases.flatMap((p) => p.objects.map((o) => o.collisionProtection)))).toEqual([undefined, undefined]);
    expect(sets()[0]?.spec.collisionProtection).toBe('Prevent');
  });

  it('makes revision 2 when an object changes, and leaves revision 1 Active (the ClusterObjectSet controller archives it)', async () => {
    const { applier, request, sets, succeed } = setup();
    await applier.apply(await request(), desired([cm('a'), deployment]));
    succeed('test-ext-1');
    const applied = await applier.apply(await request(), desired([cm('a', { k: 'v' }), deployment], '1.1.0'));
    expect(applied.changed).toBe(true);
    expect(applied.release).toMatchObject({ revision: 2, status: 'pending-upgrade' });
    expect(sets().map((s) => [s.metadata.name, s.spec.revision, s.spec.lifecycleState])).toEqual([
      ['test-ext-1', 1, 'Active'],
      ['test-ext-2', 2, 'Active'],
    ]);
    expect(await applier.deployed('test-ext', new AbortController().signal)).toMatchObject({ revision: 1, status: 'deployed' });
  });

  it('updates annotations of the newest revision in place when only they differ', async () => {
    const { cluster, applier, request, sets } = setup();
    await applier.apply(await request(), desired([cm('a')]));
    const writes = cluster.writes.length;
    const applied = await applier.apply(await request({ ...ext, progressDeadlineMinutes: 15 }), desired([cm('a')], '1.0.0', 'mirror/img:1.0.0'));
    expect(applied.changed).toBe(false);
    expect(cluster.writes.slice(writes)).toEqual(['apply ClusterObjectSet test-ext-1']);
    expect(sets()).toHaveLength(1);
    expect(sets()[0]?.metadata.annotations?.['olm.operatorframework.io/bundle-reference']).toBe('mirror/img:1.0.0');
    expect(sets()[0]?.spec.progressDeadlineMinutes).toBe(15);
  });

  it('makes a new revision when the API server refuses the in-place update as a change', async () => {
    const { cluster, applier, request, sets } = setup();
    await applier.apply(await request(), desired([cm('a')]));
    cluster.refuse('apply ClusterObjectSet test-ext-1', new ApiError(422, 'Invalid', 'spec.phases: Invalid value: "array": phases is immutable'));
    const applied = await applier.apply(await request(), desired([cm('a')], '1.0.0', 'other/img'));
    expect(applied.changed).toBe(true);
    expect(sets().map((s) => s.metadata.name)).toEqual(['test-ext-1', 'test-ext-2']);
  });

  it('makes a new revision when the newest one is archived', async () => {
    const { cluster, applier, request, sets } = setup();
    await applier.apply(await request(), desired([cm('a')]));
    cluster.edit({ kind: 'ClusterObjectSet', metadata: { name: 'test-ext-1' } }, (s) => {
      (s as ObjectSetManifest).spec.lifecycleState = 'Archived';
    });
    expect((await applier.apply(await request(), desired([cm('a')]))).changed).toBe(true);
    expect(sets().map((s) => s.metadata.name)).toEqual(['test-ext-1', 'test-ext-2']);
  });

  it('gives Secrets a crash left without owner their owner on the next apply after the restart, looking once per revision (issue 74)', async () => {
    const { cluster, applier, request, secrets } = setup();
    await applier.apply(await request(), desired([cm('a')]));
    // The process that made the revision and owned its Secrets does not list them again.
    cluster.calls.length = 0;
    await applier.apply(await request(), desired([cm('a')]));
    expect(cluster.calls.filter((c) => c.startsWith('list Secret'))).toEqual([]);
    // A crash before the owner patch: the restarted process's first apply gives them their owner.
    cluster.edit(secrets()[0] as KubeObject, (s) => delete s.metadata.ownerReferences);
    const restarted = setup(cluster);
    await restarted.applier.apply(await restarted.request(), desired([cm('a')]));
    expect(secrets()[0]?.metadata.ownerReferences).toHaveLength(1);
  });

  it('deletes archived revisions beyond the five newest before making one', async () => {
    const cluster = fakeCluster();
    const seed = (n: number, state: 'Active' | 'Archived') => {
      const s = desiredRevision(ext, desired([cm(`c${n}`)]), n);
      cluster.seed({ ...s, metadata: { ...s.metadata, name: `rev-${n}` }, spec: { ...s.spec, lifecycleState: state } });
    };
    seed(1, 'Archived');
    seed(2, 'Active');
    [3, 4, 5, 6].forEach((n) => seed(n, 'Archived'));
    const { applier, request, sets } = setup(cluster);
    await applier.apply(await request(), desired([cm('new')]));
    expect(sets().map((s) => s.metadata.name)).toEqual(['rev-2', 'rev-3', 'rev-4', 'rev-5', 'rev-6', 'test-ext-7']);
  });

  it('reports each failing step as upstream words it, and a retry completes', async () => {
    const { cluster, applier, request, sets } = setup();
    cluster.refuse('create ClusterObjectSet test-ext-1', new ApiError(500, 'InternalError', 'etcd down'));
    await expect(applier.apply(await request(), desired([cm('a')]))).rejects.toThrow('creating new Revision: etcd down');
    cluster.refuse('create ClusterObjectSet test-ext-1', undefined);
    expect((await applier.apply(await request(), desired([cm('a')]))).changed).toBe(true);
    expect(sets()).toHaveLength(1);

    const listing = setup(fakeCluster({ refuse: { 'list ClusterObjectSet': new ApiError(403, 'Forbidden', 'no') } }));
    await expect(listing.applier.apply({ ...(await request()), history: [] }, desired([cm('a')]))).rejects.toThrow('listing revisions: no');
  });

  it('keeps the deployed revision without writing, and refuses to keep when there is none (as upstream)', async () => {
    const { cluster, applier, request, succeed } = setup();
    await expect(applier.apply(await request(), undefined)).rejects.toThrow('catalog content unavailable and no revision installed');
    await applier.apply(await request(), desired([cm('a')]));
    succeed('test-ext-1');
    await applier.apply(await request(), desired([cm('b')], '2.0.0'));
    const writes = cluster.writes.length;
    const kept = await applier.apply(await request(), undefined);
    expect(kept).toMatchObject({ changed: false, repaired: [], release: { revision: 1, status: 'deployed' } });
    expect(kept.release.manifest.objects().map((o) => o.metadata.name)).toEqual(['a']);
    expect(cluster.writes.slice(writes)).toEqual([]);
  });

  it('describes no ownership conflicts: collisions are the revision status', () => {
    expect(setup().applier.conflicts(new Error('x'))).toBeUndefined();
  });
});

describe('createObjectSetReleases', () => {
  it("reads a revision's Secrets once: its objects never change (phases and Secrets are immutable)", async () => {
    const cluster = fakeCluster();
    const { applier, request } = setup(cluster);
    await applier.apply(await request(), desired([cm('a'), deployment]));
    const secretGets = () => cluster.calls.filter((c) => c.startsWith('get Secret')).length;
    const releases = createObjectSetReleases(cluster.client);
    const first = await releases.history('test-ext');
    const afterFirst = secretGets();
    expect(afterFirst).toBeGreaterThan(0);
    expect(await releases.history('test-ext')).toEqual(first);
    expect(secretGets()).toBe(afterFirst);
    // Past the byte bound nothing is kept: each history reads them again.
    const uncached = createObjectSetReleases(cluster.client, { cacheBytes: 0 });
    await uncached.history('test-ext');
    await uncached.history('test-ext');
    expect(secretGets()).toBe(3 * afterFirst);
  });

  it("keeps revisions' objects under the memory port's budget, giving them back when a reconcile needs the bytes", async () => {
    const cluster = fakeCluster();
    const { applier, request } = setup(cluster);
    await applier.apply(await request(), desired([cm('a'), deployment]));
    const secretGets = () => cluster.calls.filter((c) => c.startsWith('get Secret')).length;
    const budget = new BundleBudget(1 << 20);
    const releases = createObjectSetReleases(cluster.client, { budget });
    await releases.history('test-ext');
    const perRead = secretGets();
    // Kept: counted in the budget, read once.
    expect(budget.held).toBeGreaterThan(0);
    await releases.history('test-ext');
    expect(secretGets()).toBe(perRead);
    // A reconcile's lease that would not fit beside them: they go, the lease is granted at once.
    const lease = await budget.acquire((1 << 20) - 10);
    expect(budget.held).toBe((1 << 20) - 10);
    // With the budget taken, nothing is kept: each history reads the Secrets again.
    await releases.history('test-ext');
    await releases.history('test-ext');
    expect(secretGets()).toBe(3 * perRead);
    lease.release();
    expect(budget.held).toBe(0);
  });

  it('reads the revisions as records, newest first, with their objects from the Secrets', async () => {
    const { applier, releases, request, succeed } = setup();
    await applier.apply(await request(), desired([cm('a'), deployment]));
    succeed('test-ext-1');
    await applier.apply(await request(), desired([cm('b')], '2.0.0'));
    const history = await releases.history('test-ext');
    expect(history.map((r) => [r.revision, r.status, r.bundle.version])).toEqual([
      [2, 'pending-upgrade', '2.0.0'],
      [1, 'deployed', '1.0.0'],
    ]);
    expect(history[1]?.manifest.objects()).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'a',
          namespace: 'ns',
          labels: { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'test-ext' },
          annotations: { 'olm.operatorframework.io/bundle-version': '1.0.0', 'olm.operatorframework.io/package-name': 'p' },
        },
        data: {},
      },
      expect.objectContaining({ kind: 'Deployment' }),
    ]);
    expect(await releases.deployed('test-ext')).toMatchObject({ revision: 1 });
    // the plan's "unchanged" under the gate: a record holds its desired release, not another
    expect(sameRevisionContent(history[1]!, desired([deployment, cm('a')]))).toBe(true);
    expect(sameRevisionContent(history[1]!, desired([cm('a', { k: 'v' }), deployment]))).toBe(false);
    expect(sameRevisionContent(history[1]!, desired([cm('a'), deployment], '1.0.0', 'other/img'))).toBe(false);
    expect(sameRevisionContent(history[0]!, desired([cm('b')], '2.0.0'))).toBe(true);
    expect(await releases.history('other')).toEqual([]);
  });
});

describe('deleteRevisions (the Boxcutter uninstall)', () => {
  it('deletes the revisions only once no write of theirs is in flight and no CRD of the extension names one as owner (issue 69)', async () => {
    const cluster = fakeCluster();
    const { applier, request } = setup(cluster);
    await applier.apply(await request(), desired([cm('a')]));
    const revision = [...cluster.objects.values()].find((o) => o.kind === 'ClusterObjectSet');
    const labels = { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'test-ext' };
    const owner = {
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterObjectSet',
      name: 'test-ext-1',
      uid: revision?.metadata.uid ?? '',
      controller: true,
    };
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com', labels, ownerReferences: [owner] },
    };
    cluster.seed(crd);
    const settled: string[] = [];
    const deleteAll = deleteRevisions(cluster.client, { systemNamespace: '', settled: (name) => (settled.push(name), Promise.resolve()) });
    await expect(deleteAll('test-ext')).rejects.toThrow(
      'CustomResourceDefinitions widgets.example.com still name a revision of "test-ext" as owner: its revisions are not deleted',
    );
    expect(settled).toEqual(['test-ext']);
    expect(cluster.writes.filter((w) => w.startsWith('delete'))).toEqual([]);
    // Released (what the uninstall's retry does): the revisions go.
    cluster.edit(crd, (c) => delete c.metadata.ownerReferences);
    await deleteAll('test-ext');
    expect(cluster.writes.filter((w) => w.startsWith('delete'))).toEqual(['delete ClusterObjectSet test-ext-1']);
  });

  it('orphaning, deletes the revisions with propagationPolicy Orphan whatever CRDs name them, and their own Secrets only (issue 69)', async () => {
    const cluster = fakeCluster();
    const { applier, request, secrets } = setup(cluster);
    await applier.apply(await request(), desired([cm('a')]));
    const revision = [...cluster.objects.values()].find((o): o is ObjectSetManifest => o.kind === 'ClusterObjectSet')!;
    const own = secrets().map((s) => s.metadata.name);
    expect(own.length).toBeGreaterThan(0);
    // Someone else's Secret the revision also refers to.
    cluster.seed({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'users', namespace: NS }, immutable: true, data: { k: 'e30=' } });
    cluster.edit(revision, (r) => {
      (r as ObjectSetManifest).spec.phases[0]!.objects.push({ ref: { name: 'users', namespace: NS, key: 'k' } });
    });
    const owner = {
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterObjectSet',
      name: 'test-ext-1',
      uid: revision.metadata.uid ?? '',
      controller: true,
    };
    cluster.seed({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com', labels: { 'olm.operatorframework.io/owner-name': 'test-ext' }, ownerReferences: [owner] },
    });
    const policies: (string | undefined)[] = [];
    const client = {
      ...cluster.client,
      delete: (ref: Parameters<typeof cluster.client.delete>[0], o?: Parameters<typeof cluster.client.delete>[1]) => (
        policies.push(`${ref.kind} ${o?.propagationPolicy ?? 'default'}`),
        cluster.client.delete(ref, o)
      ),
    };
    const before = cluster.calls.length;
    await deleteRevisions(client, { systemNamespace: '' })('test-ext', undefined, undefined, true);
    expect(policies).toEqual([...own.map(() => 'Secret default'), 'ClusterObjectSet Orphan']);
    // The Secrets found by one list, not read one by one (issue 74): the revisions' list, the
    // Secrets' list, their deletes and the revision's.
    const calls = cluster.calls.slice(before);
    expect(calls.filter((c) => c.startsWith('get'))).toEqual([]);
    expect(calls.filter((c) => c.startsWith('list'))).toEqual(['list ClusterObjectSet', `list Secret ${NS}`]);
    expect(calls).toHaveLength(2 + own.length + 1);
    expect(secrets().map((s) => s.metadata.name)).toEqual(['users']);
    expect(cluster.live({ kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' } })).toBeDefined();
  });
});

describe('the Boxcutter uninstall: the garbage collector and deletes at once (issue 74)', () => {
  const labels = { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'test-ext' };
  const labelled = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, labels } });

  it('leaves the objects its revisions control to the garbage collector: neither read nor deleted, counted as deleted', async () => {
    const cluster = fakeCluster();
    const { applier, releases, request } = setup(cluster);
    await applier.apply(await request(), desired([cm('a'), cm('b'), deployment]));
    for (const o of [cm('a'), cm('b'), deployment]) cluster.seed(labelled(o));
    const history = await releases.history(ext.name);
    const uidOf = (o: KubeObject) => cluster.live(o)?.metadata.uid;
    const before = cluster.calls.length;
    const outcome = await applier.uninstall(ext.name, history, new AbortController().signal, {
      client: cluster.client,
      knownUid: uidOf,
      // The drift watches saw the ConfigMaps controlled by the revision, not the Deployment.
      revisionControlled: (o) => o.kind === 'ConfigMap',
    });
    const calls = cluster.calls.slice(before);
    // The Deployment at its cached uid, the revisions' list, the CRDs' check, the revision's delete: 4 requests.
    expect([...calls].sort()).toEqual([
      'delete ClusterObjectSet test-ext-1',
      'delete Deployment ns/op',
      'list ClusterObjectSet',
      'list CustomResourceDefinition',
    ]);
    expect(cluster.live(cm('a'))).toBeDefined();
    expect(cluster.live(deployment)).toBeUndefined();
    expect(outcome?.deleted.sort()).toEqual(['ConfigMap ns/a', 'ConfigMap ns/b', 'Deployment ns/op']);
  });

  it("keeps a CRD its revision controls with one release of its owner reference, the uninstall's, and marks it for its package", async () => {
    const cluster = fakeCluster();
    const { applier, releases, request, sets } = setup(cluster);
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', names: { kind: 'Widget', plural: 'widgets' }, scope: 'Namespaced', versions: [] },
    };
    await applier.apply(await request(), desired([crd]));
    const owner = {
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterObjectSet',
      name: 'test-ext-1',
      uid: sets()[0]!.metadata.uid ?? '',
      controller: true,
    };
    cluster.seed({ ...labelled(crd), metadata: { ...labelled(crd).metadata, ownerReferences: [owner] } });
    const history = await releases.history(ext.name);
    const before = cluster.calls.length;
    await applier.uninstall(ext.name, history, new AbortController().signal, {
      client: cluster.client,
      knownUid: (o) => cluster.live(o)?.metadata.uid,
      revisionControlled: () => true,
      after: releaseCrdReferences(cluster.client, ext.name),
    });
    const calls = cluster.calls.slice(before).filter((c) => c.includes('CustomResourceDefinition'));
    // The uninstall's list and release, the keep's mark (no read: the uninstall released it), the revisions' check.
    expect([...calls].sort()).toEqual([
      'list CustomResourceDefinition',
      'list CustomResourceDefinition',
      'patch CustomResourceDefinition widgets.example.com',
      'patch CustomResourceDefinition widgets.example.com',
    ]);
    expect(calls.at(-1)).toBe('list CustomResourceDefinition');
    const kept = cluster.live(crd);
    expect(kept?.metadata.ownerReferences ?? []).toEqual([]);
    expect(kept?.metadata.annotations?.['olm.operatorframework.io/kept-for-package']).toBe('p');
  });

  it('deletes every revision at once, propagationPolicy Background', async () => {
    const cluster = fakeCluster();
    const { applier, request, succeed } = setup(cluster);
    await applier.apply(await request(), desired([cm('a')]));
    succeed('test-ext-1');
    await applier.apply(await request(), desired([cm('a', { k: 'v' })], '2.0.0'));
    let inFlight = 0;
    let most = 0;
    const policies: string[] = [];
    const client = {
      ...cluster.client,
      delete: async (ref: Parameters<typeof cluster.client.delete>[0], o?: Parameters<typeof cluster.client.delete>[1]) => {
        policies.push(`${ref.name} ${o?.propagationPolicy ?? 'default'}`);
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        return cluster.client.delete(ref, o);
      },
    };
    await deleteRevisions(client, { systemNamespace: NS })('test-ext');
    expect(policies.sort()).toEqual(['test-ext-1 Background', 'test-ext-2 Background']);
    expect(most).toBe(2);
    expect(cluster.objects.size).toBeGreaterThan(0);
    expect([...cluster.objects.values()].filter((o) => o.kind === 'ClusterObjectSet')).toEqual([]);
  });
});
