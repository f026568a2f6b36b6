// The applier reading an extension's revisions from the ClusterObjectSet informer's copies
// (lists.ts, own-writes.ts; issue 74): no list once the copy holds them, a list while a revision
// it wrote is not in the copy yet, and no write resting on the copy alone: a revision number the
// copy did not show taken fails the create (AlreadyExists, retried on a list), an archived
// revision is collected on the uid the copy holds.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kube/index.ts';
import { fakeCluster, type FakeCluster } from '../../../../test/support/fake-cluster.ts';
import { informerCopy } from '../../../../test/support/informer-copy.ts';
import { Manifest } from '../../release/index.ts';
import { createBoxcutterApplier } from './applier.ts';
import { RevisionLists } from './lists.ts';
import { desiredRevision, type ObjectSetManifest } from './revision.ts';
import { cachedRevisions, listRevisions } from './store.ts';
import type { DesiredRevision } from '../revision.ts';

const NS = 'olmv1-system';
const ext = { name: 'test-ext', uid: 'ce-uid', installNamespace: 'ns' };
const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: {} });

const desired = (objects: KubeObject[], version = '1.0.0'): DesiredRevision => ({
  extension: ext.name,
  extensionUID: ext.uid,
  installNamespace: ext.installNamespace,
  bundle: { package: 'p', name: `p.v${version}`, version, image: `img:${version}` },
  manifest: Manifest.ofObjects(objects),
  properties: [],
});

/** An applier over `cluster` whose reads of revisions go to `copy` (a process of its own: its own memory of its writes). */
function setup(cluster: FakeCluster, copy: ReturnType<typeof informerCopy>) {
  const lists = new RevisionLists((name, signal) => listRevisions(cluster.client, name, signal), cachedRevisions(copy.of));
  const applier = createBoxcutterApplier({ client: cluster.client, systemNamespace: NS, scoped: { forServiceAccount: () => cluster.client }, lists });
  const request = () => ({
    extension: ext,
    installer: { name: 'installer', namespace: 'ns' },
    history: [],
    log: pino({ level: 'silent' }),
    signal: new AbortController().signal,
  });
  return { applier, request };
}

const sets = (cluster: FakeCluster): string[] =>
  [...cluster.objects.values()]
    .filter((o): o is ObjectSetManifest => o.kind === 'ClusterObjectSet')
    .sort((a, b) => a.spec.revision - b.spec.revision)
    .map((s) => s.metadata.name);

/** The lists of ClusterObjectSets `cluster` answered since call `from`. */
const lists = (cluster: FakeCluster, from: number): string[] => cluster.calls.slice(from).filter((c) => c.startsWith('list ClusterObjectSet'));

describe("the Boxcutter applier on the informer's copies (issue 74)", () => {
  it('lists no revision once the copy holds them; lists while a revision it made is not in the copy, making no second one', async () => {
    const cluster = fakeCluster();
    const copy = informerCopy(cluster, 'ClusterObjectSet');
    const { applier, request } = setup(cluster, copy);
    let from = cluster.calls.length;
    expect((await applier.apply(request(), desired([cm('a')]))).changed).toBe(true);
    // The read after its create: the copy does not show test-ext-1 yet, so it is listed.
    expect(lists(cluster, from)).toHaveLength(1);
    from = cluster.calls.length;
    expect((await applier.apply(request(), desired([cm('a')]))).changed).toBe(false);
    expect(lists(cluster, from)).toHaveLength(1);
    expect(sets(cluster)).toEqual(['test-ext-1']);
    copy.sync();
    from = cluster.calls.length;
    expect((await applier.apply(request(), desired([cm('a')]))).changed).toBe(false);
    expect(lists(cluster, from)).toEqual([]);
    expect(cluster.writes.filter((w) => w.includes('ClusterObjectSet'))).toEqual(['create ClusterObjectSet test-ext-1']);
  });

  it('a revision the copy does not show (made before a restart): the create fails with AlreadyExists, nothing is overwritten, the retry lists', async () => {
    const cluster = fakeCluster();
    const copy = informerCopy(cluster, 'ClusterObjectSet');
    await setup(cluster, copy).applier.apply(setup(cluster, copy).request(), desired([cm('a')]));
    const first = structuredClone(cluster.live({ kind: 'ClusterObjectSet', metadata: { name: 'test-ext-1' } }));
    // A restarted process whose copy is still empty, asked for other content.
    const restarted = setup(cluster, copy);
    const from = cluster.calls.length;
    await expect(restarted.applier.apply(restarted.request(), desired([cm('b')], '1.0.1'))).rejects.toThrow(
      'creating new Revision: test-ext-1 exists already, retrying with the revisions listed again',
    );
    expect(lists(cluster, from)).toEqual([]);
    expect(cluster.live({ kind: 'ClusterObjectSet', metadata: { name: 'test-ext-1' } })).toEqual(first);
    // The retry lists the revisions and makes revision 2.
    expect((await restarted.applier.apply(restarted.request(), desired([cm('b')], '1.0.1'))).changed).toBe(true);
    expect(sets(cluster)).toEqual(['test-ext-1', 'test-ext-2']);
  });

  it('after an uninstall, lists until the copy no longer shows the revisions it deleted: the extension made again starts at revision 1', async () => {
    const cluster = fakeCluster();
    const copy = informerCopy(cluster, 'ClusterObjectSet');
    const { applier, request } = setup(cluster, copy);
    await applier.apply(request(), desired([cm('a')]));
    copy.sync();
    await applier.uninstall(ext.name, [], new AbortController().signal);
    expect(sets(cluster)).toEqual([]);
    // The copy still shows test-ext-1: read from it, the next number would be 2.
    const from = cluster.calls.length;
    expect((await applier.apply(request(), desired([cm('b')], '1.0.1'))).changed).toBe(true);
    expect(lists(cluster, from).length).toBeGreaterThan(0);
    expect(sets(cluster)).toEqual(['test-ext-1']);
  });

  it('collects an archived revision on the uid the copy holds: one of that name made since is left alone', async () => {
    const cluster = fakeCluster();
    const seed = (n: number, state: 'Active' | 'Archived') => {
      const s = desiredRevision(ext, desired([cm(`c${n}`)]), n);
      cluster.seed({ ...s, metadata: { ...s.metadata, name: `rev-${n}` }, spec: { ...s.spec, lifecycleState: state } });
    };
    seed(1, 'Archived');
    seed(2, 'Active');
    [3, 4, 5, 6].forEach((n) => seed(n, 'Archived'));
    const copy = informerCopy(cluster, 'ClusterObjectSet');
    // rev-1 deleted and made again since the copy: another object of the same name.
    const key = [...cluster.objects.keys()].find((k) => k.endsWith('rev-1')) ?? '';
    cluster.objects.delete(key);
    seed(1, 'Active');
    const { applier, request } = setup(cluster, copy);
    await applier.apply(request(), desired([cm('new')]));
    expect(cluster.calls.filter((c) => c.startsWith('delete ClusterObjectSet'))).toEqual(['delete ClusterObjectSet rev-1']);
    expect(sets(cluster)).toEqual(['rev-1', 'rev-2', 'rev-3', 'rev-4', 'rev-5', 'rev-6', 'test-ext-7']);
  });
});
