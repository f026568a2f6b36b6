import { describe, expect, it, vi } from 'vitest';
import { ApiError, type KubeClient, type KubeObject } from '../../../shared/kube/index.ts';
import {
  deployedRelease,
  manifestLine,
  type Release,
  type ReleaseBundle,
  type ReleaseStore,
  type ReleaseSummary,
  Manifest,
} from '../../release/index.ts';
import { ApplyError } from '../apply-error.ts';
import { withOwnerLabels } from '../objects.ts';
import { applyRelease, sameRecordContent as sameContent } from './apply.ts';
import type { DesiredRevision } from '../revision.ts';
import { uninstallWith } from '../uninstall.ts';
import { fakeCluster, type FakeCluster } from '../../../../test/support/fake-cluster.ts';
import { copiedRelease } from '../../../../test/support/extension-ports.ts';

// ---- fakes ---------------------------------------------------------------------------------

/** An in-memory ReleaseStore recording every call as `<op> r<revision> <status> <description>`. */
class FakeStore implements ReleaseStore {
  readonly records = new Map<number, Release>();
  readonly log: string[] = [];
  deleted: string[] = [];

  constructor(history: readonly Release[] = []) {
    for (const r of history) this.records.set(r.revision, copiedRelease(r));
  }

  history(): Promise<Release[]> {
    return Promise.resolve([...this.records.values()].sort((a, b) => b.revision - a.revision).map((r) => copiedRelease(r)));
  }

  async deployed(): Promise<ReleaseSummary | undefined> {
    const found = deployedRelease(await this.history());
    if (found === undefined) return undefined;
    const { manifest: _objects, ...summary } = found;
    return summary;
  }

  list(): Promise<string[]> {
    return Promise.resolve(this.records.size === 0 ? [] : ['ext']);
  }

  create(release: Release): Promise<void> {
    if (this.records.has(release.revision)) return Promise.reject(new Error(`revision ${release.revision} exists`));
    this.records.set(release.revision, copiedRelease(release));
    this.log.push(`create r${release.revision} ${release.status} ${release.description}`);
    return Promise.resolve();
  }

  update(release: Release): Promise<void> {
    if (!this.records.has(release.revision)) return Promise.reject(new Error(`revision ${release.revision} does not exist`));
    this.records.set(release.revision, copiedRelease(release));
    this.log.push(`update r${release.revision} ${release.status} ${release.description}`);
    return Promise.resolve();
  }

  async deleteAll(extension: string, _signal?: AbortSignal, after?: Promise<unknown>): Promise<void> {
    await after;
    this.deleted.push(extension);
    this.records.clear();
    this.log.push(`deleteAll ${extension}`);
  }
}

/** A fake cluster whose recorded calls are reduced to the writes (apply, delete, patch). */
function fakeClient(
  refuse: Record<string, Error> = {},
  history: readonly Release[] = [],
): { client: KubeClient; calls: string[]; cluster: FakeCluster } {
  const cluster = fakeCluster({ refuse });
  // What the recorded revisions applied is on the cluster (the newest copy of each object).
  for (const r of [...history].reverse()) for (const obj of r.manifest.objects()) cluster.seed(obj);
  return { client: cluster.client, cluster, calls: cluster.writes };
}

// ---- data ----------------------------------------------------------------------------------

const crd = (name: string): KubeObject =>
  withOwnerLabels([{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name } }], 'ext')[0]!;
const cm = (name: string, data: Record<string, string> = {}): KubeObject =>
  withOwnerLabels([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data }], 'ext')[0]!;

const bundle = (version: string): ReleaseBundle => ({
  package: 'pkg',
  name: `pkg.v${version}`,
  version,
  image: `registry.example/pkg@sha256:${version.replace(/\./g, '')}`,
});

function desired(version: string, objects: KubeObject[], extra: Partial<DesiredRevision> = {}): DesiredRevision {
  return {
    extension: 'ext',
    extensionUID: 'uid-1',
    installNamespace: 'ns',
    bundle: bundle(version),
    manifest: Manifest.ofObjects(objects),
    properties: [{ type: 'olm.package' }],
    ...extra,
  };
}

function recorded(revision: number, status: Release['status'], d: DesiredRevision, extra: Partial<Release> = {}): Release {
  return {
    extension: d.extension,
    extensionUID: d.extensionUID,
    revision,
    status,
    bundle: d.bundle,
    manifest: d.manifest,
    properties: d.properties,
    ...(d.config === undefined ? {} : { config: d.config }),
    notes: {},
    description: status === 'deployed' ? 'Install complete' : 'x',
    firstDeployed: '2024-01-01T00:00:00.000Z',
    lastDeployed: '2024-01-01T00:00:00.000Z',
    ...extra,
  };
}

const NOW = new Date('2025-06-01T12:00:00.000Z');

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

// ---- tests ---------------------------------------------------------------------------------

describe('applyRelease', () => {
  it('install: records pending-install, applies, then deployed "Install complete"', async () => {
    const store = new FakeStore();
    const { client, calls } = fakeClient();
    const want = desired('1.0.0', [crd('w.example.com'), cm('a')], {
      config: { replicas: 2 },
      droppedFields: [{ object: 'ConfigMap ns/a', paths: ['.x'] }],
    });
    const out = await applyRelease({ client, store, now: () => NOW }, [], want);
    expect(store.log).toEqual(['create r1 pending-install Initial install underway', 'update r1 deployed Install complete']);
    expect(calls).toEqual(['apply CustomResourceDefinition w.example.com', 'apply ConfigMap ns/a']);
    expect(out.changed).toBe(true);
    expect(out.release).toMatchObject({
      revision: 1,
      status: 'deployed',
      manifest: want.manifest,
      config: { replicas: 2 },
      properties: [{ type: 'olm.package' }],
      notes: { droppedFields: [{ object: 'ConfigMap ns/a', paths: ['.x'] }] },
      firstDeployed: NOW.toISOString(),
      lastDeployed: NOW.toISOString(),
    });
    expect(store.records.get(1)).toEqual(out.release);
  });

  it('upgrade: records pending-upgrade, deletes dropped objects but keeps dropped CRDs, supersedes the old revision', async () => {
    const old = desired('1.0.0', [crd('old.example.com'), crd('kept.example.com'), cm('a'), cm('gone')]);
    const history = [recorded(1, 'deployed', old)];
    const store = new FakeStore(history);
    const { client, calls } = fakeClient({}, history);
    const want = desired('1.1.0', [crd('kept.example.com'), cm('a', { k: 'v' }), cm('new')]);
    const out = await applyRelease({ client, store, now: () => NOW }, history, want);
    expect(store.log).toEqual([
      'create r2 pending-upgrade Upgrade underway',
      'update r2 deployed Upgrade complete',
      'update r1 superseded Superseded',
    ]);
    expect(calls).toEqual([
      'apply CustomResourceDefinition kept.example.com',
      'apply ConfigMap ns/a',
      'apply ConfigMap ns/new',
      'delete ConfigMap ns/gone',
    ]);
    expect(out).toMatchObject({
      changed: true,
      release: { revision: 2, status: 'deployed', notes: { keptObjects: ['CustomResourceDefinition old.example.com'] } },
    });
    expect(out.release.firstDeployed).toBe('2024-01-01T00:00:00.000Z');
    expect(out.release.lastDeployed).toBe(NOW.toISOString());
    expect(store.records.get(1)?.status).toBe('superseded');
  });

  it.each([
    ['an upgrade', '1.1.0'],
    ['a re-apply of the same content', '1.0.0'],
  ])("taking over upstream's objects in %s: their owner references to the extension go before the first write", async (_name, version) => {
    const ref = {
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterExtension',
      name: 'ext',
      uid: 'uid-1',
      controller: true,
      blockOwnerDeletion: true,
    };
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'someone', uid: 'uid-x' };
    const old = desired('1.0.0', [crd('w.example.com'), cm('a')]);
    const history = [recorded(1, 'deployed', old)];
    const store = new FakeStore(history);
    const { client, calls, cluster } = fakeClient({}, history);
    cluster.live(crd('w.example.com'))!.metadata.ownerReferences = [ref];
    cluster.live(cm('a'))!.metadata.ownerReferences = [other, ref];
    await applyRelease({ client, store }, history, desired(version, [crd('w.example.com'), cm('a')]));
    expect(calls.slice(0, 3)).toEqual([
      'patch CustomResourceDefinition w.example.com',
      'patch ConfigMap ns/a',
      'apply CustomResourceDefinition w.example.com',
    ]);
  });

  it('unchanged content re-applies every object without recording a revision', async () => {
    const d = desired('1.0.0', [cm('a'), crd('w.example.com')], { config: { a: 1 } });
    const history = [recorded(1, 'deployed', d)];
    const store = new FakeStore(history);
    const { client, calls } = fakeClient({}, history);
    const out = await applyRelease({ client, store }, history, desired('1.0.0', [cm('a'), crd('w.example.com')], { config: { a: 1 } }));
    expect(out).toEqual({ release: history[0], changed: false });
    expect(store.log).toEqual([]);
    expect(calls).toEqual(['apply CustomResourceDefinition w.example.com', 'apply ConfigMap ns/a']);
  });

  it.each([
    ['another bundle', desired('1.0.1', [cm('a')], { config: { a: 1 } })],
    ['another object', desired('1.0.0', [cm('a', { k: 'v' })], { config: { a: 1 } })],
    ['another config', desired('1.0.0', [cm('a')], { config: { a: 2 } })],
    ['no config', desired('1.0.0', [cm('a')])],
  ])('sameContent is false for %s', (_name, other) => {
    const base = recorded(1, 'deployed', desired('1.0.0', [cm('a')], { config: { a: 1 } }));
    expect(sameContent(base, desired('1.0.0', [cm('a')], { config: { a: 1 } }))).toBe(true);
    expect(sameContent(base, other)).toBe(false);
  });

  it('records a move to a lower version as "Downgrade complete"', async () => {
    const history = [recorded(1, 'deployed', desired('2.0.0', [cm('a')]))];
    const { client } = fakeClient({}, history);
    const out = await applyRelease({ client, store: new FakeStore(history) }, history, desired('1.0.0', [cm('a')]));
    expect(out.release.description).toBe('Downgrade complete');
  });

  it('an upgrade from a record read as text never parses its objects whole (decision 0098)', async () => {
    const old = recorded(1, 'deployed', desired('1.0.0', [crd('kept.example.com'), cm('same'), cm('changed', { v: '1' }), cm('gone')]));
    const text = Manifest.ofText(old.manifest.objects().map(manifestLine).join(''), 'Secret "ns/r1"');
    const whole = vi.spyOn(text, 'objects');
    const history = [{ ...old, manifest: text }];
    const { client, cluster } = fakeClient({}, [old]);
    // The store holds its own copy (structuredClone reads every property).
    const out = await applyRelease(
      { client, store: new FakeStore([old]) },
      history,
      desired('1.1.0', [crd('kept.example.com'), cm('same'), cm('changed', { v: '2' }), cm('new')]),
    );
    expect(out.release.status).toBe('deployed');
    expect(cluster.calls.filter((c) => c.startsWith('dry-run'))).toEqual(['dry-run ConfigMap ns/changed', 'dry-run ConfigMap ns/new']);
    expect(cluster.writes).toContain('delete ConfigMap ns/gone');
    expect(whole).not.toHaveBeenCalled();
  });

  it('a rendering held as lines is dry-run, applied, compared and recorded one object at a time, never parsed whole (decision 0098)', async () => {
    const old = recorded(1, 'deployed', desired('1.0.0', [crd('kept.example.com'), cm('same'), cm('changed', { v: '1' }), cm('gone')]));
    const text = Manifest.ofText(old.manifest.objects().map(manifestLine).join(''), 'Secret "ns/r1"');
    const history = [{ ...old, manifest: text }];
    const objects = [crd('kept.example.com'), cm('same'), cm('changed', { v: '2' }), cm('new')];
    const lines = Manifest.ofLines(
      objects.map((o) => JSON.stringify(o)),
      'the rendering',
    );
    const want: DesiredRevision = { ...desired('1.1.0', objects), manifest: lines };
    const parsedWhole = [vi.spyOn(text, 'objects'), vi.spyOn(lines, 'objects')];
    const written: Manifest[] = [];
    // Keeps the manifest it is given (the real store encodes the lines as they are).
    const store = new (class extends FakeStore {
      override create(release: Release): Promise<void> {
        written.push(release.manifest);
        this.records.set(release.revision, { ...release });
        return Promise.resolve();
      }
      override update(release: Release): Promise<void> {
        written.push(release.manifest);
        this.records.set(release.revision, { ...release });
        return Promise.resolve();
      }
    })([old]);
    const { client, cluster } = fakeClient({}, [old]);
    const out = await applyRelease({ client, store }, history, want);
    expect(out.release.status).toBe('deployed');
    expect(cluster.calls.filter((c) => c.startsWith('dry-run'))).toEqual(['dry-run ConfigMap ns/changed', 'dry-run ConfigMap ns/new']);
    expect(cluster.writes).toContain('delete ConfigMap ns/gone');
    expect(cluster.objects.get('ConfigMap ns/changed')).toMatchObject({ data: { v: '2' } });
    // Pending, then deployed, then the old revision superseded: each written as it was held (lines, text).
    expect(written).toEqual([lines, lines, text]);
    expect(written[0]).toBe(lines);
    expect(written[2]).toBe(text);
    for (const spy of parsedWhole) expect(spy).not.toHaveBeenCalled();
    expect(store.records.get(2)?.manifest.objects()).toEqual(objects);
    // The same rendering again is the deployed revision: a repair, nothing recorded.
    const again = await applyRelease({ client, store }, await store.history(), {
      ...want,
      manifest: Manifest.ofLines(
        objects.map((o) => JSON.stringify(o)),
        'x',
      ),
    });
    expect(again.changed).toBe(false);
  });

  it('an upgrade dry-runs only the objects that differ from the deployed revision', async () => {
    const history = [recorded(1, 'deployed', desired('1.0.0', [cm('same'), cm('changed', { v: '1' })]))];
    const { client, cluster } = fakeClient({}, history);
    await applyRelease({ client, store: new FakeStore(history) }, history, desired('1.1.0', [cm('same'), cm('changed', { v: '2' }), cm('new')]));
    expect(cluster.calls.filter((c) => c.startsWith('dry-run'))).toEqual(['dry-run ConfigMap ns/changed', 'dry-run ConfigMap ns/new']);
  });

  it('an upgrade applies only new and changed objects and those not in sync; after a failed revision, everything', async () => {
    const v1 = desired('1.0.0', [cm('same'), cm('drifted'), cm('changed', { v: '1' })]);
    const v2 = desired('1.1.0', [cm('same'), cm('drifted'), cm('changed', { v: '2' }), cm('new')]);
    const inSync = (obj: KubeObject): boolean => obj.metadata.name !== 'drifted';
    const history = [recorded(1, 'deployed', v1)];
    const { client, cluster } = fakeClient({}, history);
    const store = new FakeStore(history);
    const out = await applyRelease({ client, store, inSync }, history, v2);
    expect(cluster.calls.filter((c) => c.startsWith('apply'))).toEqual([
      'apply ConfigMap ns/drifted',
      'apply ConfigMap ns/changed',
      'apply ConfigMap ns/new',
    ]);
    // The record holds the whole release, the skipped object included.
    expect(out.release.manifest.identities().map((o) => o.metadata.name)).toEqual(['same', 'drifted', 'changed', 'new']);
    expect((await store.history()).map((r) => r.status)).toEqual(['deployed', 'superseded']);

    // A failed revision since the deployed one may have applied other content: nothing is skipped.
    const failed = [recorded(2, 'failed', v2), recorded(1, 'deployed', v1)];
    const again = fakeClient({}, failed);
    await applyRelease({ client: again.client, store: new FakeStore(failed), inSync }, failed, desired('1.2.0', [cm('same'), cm('drifted')]));
    expect(again.cluster.calls.filter((c) => c.startsWith('apply'))).toEqual(['apply ConfigMap ns/same', 'apply ConfigMap ns/drifted']);
  });

  it('a refusal in the dry run records a failed revision with the message and applies nothing', async () => {
    const store = new FakeStore();
    const refusal = new ApiError(422, 'Invalid', 'ConfigMap "b" is invalid');
    const { client, calls, cluster } = fakeClient({ 'dry-run ConfigMap ns/b': refusal });
    const e = await rejection(applyRelease({ client, store }, [], desired('1.0.0', [cm('a'), cm('b'), cm('c')])));
    expect(e).toBeInstanceOf(ApplyError);
    expect((e as Error).message).toBe('failed to get release state using server-side dry-run: ConfigMap "b" is invalid');
    expect(cluster.calls.filter((c) => c.startsWith('dry-run'))).toEqual(['dry-run ConfigMap ns/a', 'dry-run ConfigMap ns/b']);
    expect(calls).toEqual([]);
    expect(store.log).toEqual([
      'create r1 failed Release "ext" failed: failed to get release state using server-side dry-run: ConfigMap "b" is invalid',
    ]);
    // When it was tried, as Helm records a failed release.
    expect(store.records.get(1)?.lastDeployed).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('a failed install (past the dry run) leaves a failed revision with the message and rethrows', async () => {
    const store = new FakeStore();
    const refusal = new ApiError(500, 'InternalError', 'etcd is down');
    const { client, calls } = fakeClient({ 'apply ConfigMap ns/b': refusal });
    const e = await rejection(applyRelease({ client, store }, [], desired('1.0.0', [cm('a'), cm('b'), cm('c')])));
    expect((e as Error).message).toBe('error applying ConfigMap ns/b: etcd is down');
    expect(calls).toEqual(['apply ConfigMap ns/a', 'apply ConfigMap ns/b']);
    expect(store.log).toEqual([
      'create r1 pending-install Initial install underway',
      'update r1 failed Release "ext" failed: error applying ConfigMap ns/b: etcd is down',
    ]);
  });

  it('a failed upgrade leaves the new revision failed and the old one deployed', async () => {
    const history = [recorded(1, 'deployed', desired('1.0.0', [cm('a'), cm('gone')]))];
    const store = new FakeStore(history);
    const forbidden = new ApiError(403, 'Forbidden', 'configmaps "gone" is forbidden: User "x" cannot delete resource "configmaps"');
    const { client, calls } = fakeClient({ 'delete ConfigMap ns/gone': forbidden }, history);
    const e = await rejection(applyRelease({ client, store }, history, desired('1.1.0', [cm('a')])));
    expect((e as Error).message).toBe(`error deleting ConfigMap ns/gone: ${forbidden.message}`);
    expect(calls).toEqual(['apply ConfigMap ns/a', 'delete ConfigMap ns/gone']);
    expect(store.log).toEqual([
      'create r2 pending-upgrade Upgrade underway',
      `update r2 failed Upgrade "ext" failed: error deleting ConfigMap ns/gone: ${forbidden.message}`,
    ]);
    expect(store.records.get(1)?.status).toBe('deployed');
  });

  it('takes over a pending-upgrade latest revision (same number) instead of recording a new one', async () => {
    const v1 = desired('1.0.0', [cm('a')]);
    const history = [recorded(2, 'pending-upgrade', desired('1.1.0', [cm('a')])), recorded(1, 'deployed', v1)];
    const store = new FakeStore(history);
    const { client } = fakeClient();
    const out = await applyRelease({ client, store }, history, desired('1.1.0', [cm('a'), cm('b')]));
    expect(store.log).toEqual([
      'update r2 pending-upgrade Upgrade underway',
      'update r2 deployed Upgrade complete',
      'update r1 superseded Superseded',
    ]);
    expect(out.release).toMatchObject({ revision: 2, status: 'deployed' });
    expect(store.records.size).toBe(2);
  });

  it('takes over a pending-install latest revision', async () => {
    const want = desired('1.0.0', [cm('a')]);
    const history = [recorded(1, 'pending-install', want, { firstDeployed: undefined, lastDeployed: undefined })];
    const store = new FakeStore(history);
    const { client } = fakeClient();
    const out = await applyRelease({ client, store, now: () => NOW }, history, want);
    expect(store.log).toEqual(['update r1 pending-install Initial install underway', 'update r1 deployed Install complete']);
    expect(out).toMatchObject({ changed: true, release: { revision: 1, status: 'deployed', firstDeployed: NOW.toISOString() } });
  });

  it('retrying a failed revision with the same content reuses its number (no revision per retry)', async () => {
    const want = desired('1.0.0', [cm('a')]);
    const history = [recorded(1, 'failed', want, { firstDeployed: undefined, lastDeployed: undefined })];
    const store = new FakeStore(history);
    const { client } = fakeClient();
    const out = await applyRelease({ client, store }, history, want);
    expect(store.log).toEqual(['update r1 pending-install Initial install underway', 'update r1 deployed Install complete']);
    expect(out.release.revision).toBe(1);
  });

  it('after a failed revision, records the next revision even for the deployed content', async () => {
    const v1 = desired('1.0.0', [cm('a')]);
    const history = [recorded(2, 'failed', desired('1.1.0', [cm('a'), cm('b')])), recorded(1, 'deployed', v1)];
    const store = new FakeStore(history);
    const { client } = fakeClient();
    const out = await applyRelease({ client, store }, history, v1);
    expect(store.log).toEqual([
      'create r3 pending-upgrade Upgrade underway',
      'update r3 deployed Upgrade complete',
      'update r1 superseded Superseded',
    ]);
    expect(out.release.revision).toBe(3);
    expect(store.records.get(2)?.status).toBe('failed');
  });
});

describe('applyRelease after a crash', () => {
  it('re-applying the deployed revision supersedes an older one a crash left deployed too', async () => {
    const v2 = desired('1.1.0', [cm('a')]);
    const history = [recorded(2, 'deployed', v2), recorded(1, 'deployed', desired('1.0.0', [cm('a')]))];
    const store = new FakeStore(history);
    const { client, calls } = fakeClient({}, history);
    const out = await applyRelease({ client, store }, history, v2);
    expect(out).toEqual({ release: history[0], changed: false });
    expect(calls).toEqual(['apply ConfigMap ns/a']);
    expect(store.log).toEqual(['update r1 superseded Superseded']);
  });

  it('taking over a pending revision with other content deletes the objects only that revision had', async () => {
    const history = [
      recorded(2, 'pending-upgrade', desired('1.1.0', [cm('a'), cm('only-in-2')])),
      recorded(1, 'deployed', desired('1.0.0', [cm('a'), cm('gone')])),
    ];
    const store = new FakeStore(history);
    const { client, calls } = fakeClient({}, history);
    await applyRelease({ client, store }, history, desired('1.2.0', [cm('a'), cm('c')]));
    expect(calls).toEqual(['apply ConfigMap ns/a', 'apply ConfigMap ns/c', 'delete ConfigMap ns/only-in-2', 'delete ConfigMap ns/gone']);
    expect(store.log).toEqual([
      'update r2 pending-upgrade Upgrade underway',
      'update r2 deployed Upgrade complete',
      'update r1 superseded Superseded',
    ]);
  });

  it('a new revision after a failed one deletes what the failed one may have created', async () => {
    const history = [
      recorded(3, 'failed', desired('1.2.0', [cm('a'), cm('only-in-3')])),
      recorded(2, 'deployed', desired('1.1.0', [cm('a')])),
      recorded(1, 'superseded', desired('1.0.0', [cm('a'), cm('long-gone')])),
    ];
    const { client, calls } = fakeClient({}, history);
    await applyRelease({ client, store: new FakeStore(history) }, history, desired('1.3.0', [cm('a')]));
    expect(calls).toEqual(['apply ConfigMap ns/a', 'delete ConfigMap ns/only-in-3']);
  });
});

/** The uninstall of the port over `store`'s records, deleting as `client`. */
const uninstallRelease = (deps: { client: KubeClient; store: FakeStore }, name: string, history: Release[]) =>
  uninstallWith((n, signal, after) => deps.store.deleteAll(n, signal, after))(name, history, new AbortController().signal, { client: deps.client });

describe('uninstall (uninstall.ts)', () => {
  it('deletes the union of every revision objects except CRDs, newest order reversed, then the records', async () => {
    // All in the last apply phase: the CRDs kept go with it, after the deletes are sent.
    const history = [
      recorded(3, 'failed', desired('1.2.0', [crd('c3.example.com'), cm('a'), cm('three')])),
      recorded(2, 'deployed', desired('1.1.0', [crd('c2.example.com'), cm('a'), cm('two')])),
      recorded(1, 'superseded', desired('1.0.0', [cm('one'), cm('a')])),
    ];
    const store = new FakeStore(history);
    const { client, calls, cluster } = fakeClient({}, history);
    cluster.objects.delete('ConfigMap ns/two'); // gone already
    const outcome = await uninstallRelease({ client, store }, 'ext', history);
    expect(calls).toEqual([
      'delete ConfigMap ns/one',
      'delete ConfigMap ns/three',
      'delete ConfigMap ns/a',
      'patch CustomResourceDefinition c2.example.com',
      'patch CustomResourceDefinition c3.example.com',
    ]);
    expect(outcome).toEqual({
      deleted: ['ConfigMap ns/one', 'ConfigMap ns/three', 'ConfigMap ns/a'],
      kept: ['CustomResourceDefinition c3.example.com', 'CustomResourceDefinition c2.example.com'],
      skipped: [],
    });
    // Kept CRDs are marked for the installed package, so its next install takes them back.
    expect(cluster.live(crd('c2.example.com'))?.metadata.annotations).toEqual({ 'olm.operatorframework.io/kept-for-package': 'pkg' });
    expect(store.log).toEqual(['deleteAll ext']);
    expect(store.records.size).toBe(0);
  });

  it('keeps the records when a delete is refused', async () => {
    const history = [recorded(1, 'deployed', desired('1.0.0', [cm('a'), cm('b')]))];
    const store = new FakeStore(history);
    const forbidden = new ApiError(403, 'Forbidden', 'configmaps "a" is forbidden: User "x" cannot delete resource "configmaps"');
    const { client, calls } = fakeClient({ 'delete ConfigMap ns/a': forbidden }, history);
    const e = await rejection(uninstallRelease({ client, store }, 'ext', history));
    expect((e as Error).message).toBe(`error deleting ConfigMap ns/a: ${forbidden.message}`);
    expect(calls).toEqual(['delete ConfigMap ns/b', 'delete ConfigMap ns/a']);
    expect(store.deleted).toEqual([]);
    expect(store.records.size).toBe(1);
  });
});
