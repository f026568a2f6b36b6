// The apply step's decisions with a fake cluster and store: refused releases (single
// ownership), the walk up a version range, drift-cache knowledge instead of reads. The
// end-to-end proof is test/e2e/operator-controller-ownership.test.ts.
import { describe, expect, it } from 'vitest';
import { withOwnerLabels } from '../applier/index.ts';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import type { EventRecorder, KubeObject } from '../../shared/kube/index.ts';
import { Manifest, deployedRelease, type Release, type ReleaseStore, type ReleaseSummary } from '../release/index.ts';
import type { CatalogPackage, ResolveInput } from '../resolve/index.ts';
import type { DriftTracker } from '../drift/index.ts';
import { createReleaseApplier, type DriftMemory } from '../applier/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { applyStep, type ApplyPorts } from './steps-apply.ts';
import { makePlan } from './plan.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import { copiedRelease } from '../../../test/support/extension-ports.ts';

const cm = (name: string): KubeObject =>
  withOwnerLabels([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: {} }], 'ext')[0]!;

class MemoryStore implements Pick<ReleaseStore, 'history' | 'deployed' | 'create' | 'update'> {
  readonly records: Release[] = [];
  history(): Promise<Release[]> {
    return Promise.resolve([...this.records].sort((a, b) => b.revision - a.revision));
  }
  async deployed(): Promise<ReleaseSummary | undefined> {
    return deployedRelease(await this.history());
  }
  create(r: Release): Promise<void> {
    this.records.push(copiedRelease(r));
    return Promise.resolve();
  }
  update(r: Release): Promise<void> {
    const i = this.records.findIndex((x) => x.revision === r.revision);
    this.records[i] = copiedRelease(r);
    return Promise.resolve();
  }
}

/** A resolution request over one catalog whose channel chains `versions` by replaces edges (package p). */
function chainRequest(versions: string[]): ResolveInput {
  const name = (v: string): string => `p.v${v}`;
  const fbc = {
    packages: [{ schema: 'olm.package', name: 'p', defaultChannel: 'stable' }],
    channels: [
      {
        schema: 'olm.channel',
        name: 'stable',
        package: 'p',
        entries: versions.map((v, i) => ({ name: name(v), ...(i === 0 ? {} : { replaces: name(versions[i - 1] ?? '') }) })),
      },
    ],
    bundles: versions.map((v) => ({
      schema: 'olm.bundle',
      name: name(v),
      package: 'p',
      image: `r/p:v${v}`,
      properties: [{ type: 'olm.package', value: { packageName: 'p', version: v } }],
    })),
    deprecations: [],
    others: [],
  };
  return { packageName: 'p', versionRange: '>=1.0.0', catalogs: [{ name: 'c', priority: 0, package: fbc as CatalogPackage['package'] }] };
}

function depsFor(
  cluster: FakeCluster,
  store: MemoryStore,
  uid: (obj: KubeObject) => string | undefined = () => undefined,
  seen: { events: string[]; drifted?: string[]; inSync?: (obj: KubeObject) => boolean; answers?: string[] } = { events: [] },
): ApplyPorts {
  const drift = {
    track: () => Promise.resolve(),
    expectDeletes: () => undefined,
    ownedUid: (_e: string, o: KubeObject) => uid(o),
    takeDrifted: () => seen.drifted?.splice(0) ?? [],
    listed: async () => undefined,
    inSync: (_e: string, o: KubeObject) => seen.inSync?.(o) ?? false,
    noteApplied: (_e: string, a: KubeObject) => void seen.answers?.push(`${a.kind} ${a.metadata.name ?? ''} ${a.metadata.uid ?? ''}`),
  } satisfies DriftMemory & Partial<DriftTracker>;
  const events = { event: (_o, type, reason, action, note) => void seen.events.push(`${type} ${reason} ${action}: ${note}`) } satisfies EventRecorder;
  const scoped = { forServiceAccount: () => cluster.client };
  // The applier writes with create and update, and reads with history and deployed only.
  return { applier: createReleaseApplier({ scoped, releases: store as unknown as ReleaseStore, drift }), events };
}

const applyBundle = async (ports: ApplyPorts, s: ExtensionState) => applyStep(ports).run(s);

/** A reconcile after render: `objects` of bundle `version` (resolved with `request`) to apply over `installed`. */
function stateFor(version: string, objects: KubeObject[], installed?: Release, request?: ResolveInput): ExtensionState {
  const bundle = { package: 'p', name: `p.v${version}`, version, image: `r/p:v${version}` };
  const state = extensionState({ history: installed === undefined ? [] : [installed], ...(installed === undefined ? {} : { installed }) });
  const resolution = request === undefined ? {} : { resolution: { request, deprecation: null } };
  state.plan = makePlan(state, { bundle, ...resolution }, { objects: Manifest.ofObjects(objects), properties: [] });
  return state;
}

function condition(s: ExtensionState, type: string): { status: string; reason: string; message: string } | undefined {
  return s.ce.status?.conditions?.find((c) => c.type === type);
}

describe('apply step', () => {
  it('refuses a release whose object someone else made: nothing written or recorded, Retrying with upstream message', async () => {
    const cluster = fakeCluster();
    cluster.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'ns' } });
    const store = new MemoryStore();
    const s = stateFor('1.0.0', [cm('a'), cm('b')]);
    await expect(applyBundle(depsFor(cluster, store), s)).rejects.toThrow();
    expect(cluster.writes).toEqual([]);
    expect(store.records).toEqual([]);
    expect(condition(s, 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'Retrying',
      message:
        'error for resolved bundle "p.v1.0.0" with version "1.0.0": failed to get release state using server-side dry-run: ' +
        "ConfigMap 'b' already exists in namespace 'ns' and cannot be managed by operator-controller",
    });
    expect(condition(s, 'Installed')).toMatchObject({ status: 'False', message: 'No bundle installed' });
  });

  it('records Installed, Upgraded, Downgraded, DriftRepaired and the refusals as events on the extension', async () => {
    const cluster = fakeCluster();
    const store = new MemoryStore();
    const seen: { events: string[]; drifted?: string[] } = { events: [] };
    await applyBundle(depsFor(cluster, store, undefined, seen), stateFor('1.0.0', [cm('a')]));
    let [installed] = await store.history();
    await applyBundle(depsFor(cluster, store, undefined, seen), stateFor('1.1.0', [cm('a')], installed));
    [installed] = await store.history();
    await applyBundle(depsFor(cluster, store, undefined, seen), stateFor('1.0.0', [cm('a')], installed));
    [installed] = await store.history();
    // An unchanged release: DriftRepaired only when the drift watches saw objects change.
    await applyBundle(depsFor(cluster, store, undefined, seen), stateFor('1.0.0', [cm('a')], installed));
    seen.drifted = ['ConfigMap ns/a'];
    await applyBundle(depsFor(cluster, store, undefined, seen), stateFor('1.0.0', [cm('a')], installed));
    cluster.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'ns' } });
    await expect(applyBundle(depsFor(cluster, store, undefined, seen), stateFor('1.2.0', [cm('a'), cm('b')], installed))).rejects.toThrow();
    expect(seen.events).toEqual([
      'Normal Installed Install: Installed bundle p.v1.0.0 (version 1.0.0), revision 1',
      'Normal Upgraded Upgrade: Upgraded to bundle p.v1.1.0 (version 1.1.0) from version 1.0.0, revision 2',
      'Normal Downgraded Upgrade: Downgraded to bundle p.v1.0.0 (version 1.0.0) from version 1.1.0, revision 3',
      'Normal DriftRepaired Reconcile: Restored 1 changed or deleted object(s): ConfigMap ns/a',
      'Warning OwnershipConflict Apply: Cannot install bundle p.v1.2.0 (version 1.2.0): ConfigMap ns/b already exist(s) and are not owned by this extension; nothing was applied',
    ]);
  });

  it('asks for another reconcile after a move when the catalogs offer a further hop, so a range is walked to its top', async () => {
    const cluster = fakeCluster();
    const store = new MemoryStore();
    const request = chainRequest(['1.0.0', '1.1.0', '1.2.0']);
    const first = stateFor('1.0.0', [cm('a')], undefined, request);
    expect(await applyBundle(depsFor(cluster, store), first)).toEqual({ requeue: true });
    expect(condition(first, 'Progressing')).toMatchObject({ reason: 'Succeeded', message: 'Desired state reached' });
    let [installed] = await store.history();
    // The same bundle again: nothing moved, nothing to walk.
    expect(await applyBundle(depsFor(cluster, store), stateFor('1.0.0', [cm('a')], installed, request))).toBeUndefined();
    expect(await applyBundle(depsFor(cluster, store), stateFor('1.1.0', [cm('a')], installed, request))).toEqual({
      requeue: true,
    });
    [installed] = await store.history();
    // At the top of the range: no further reconcile.
    expect(await applyBundle(depsFor(cluster, store), stateFor('1.2.0', [cm('a')], installed, request))).toBeUndefined();
  });

  it('repairs an unchanged release without reading objects the drift watches know are ours', async () => {
    const cluster = fakeCluster();
    const store = new MemoryStore();
    await applyBundle(depsFor(cluster, store), stateFor('1.0.0', [cm('a'), cm('b')]));
    const [installed] = await store.history();
    cluster.calls.length = 0;
    await applyBundle(
      depsFor(cluster, store, (o) => cluster.live(o)?.metadata.uid),
      stateFor('1.0.0', [cm('a'), cm('b')], installed),
    );
    expect(cluster.calls).toEqual(['apply ConfigMap ns/a', 'apply ConfigMap ns/b']);
  });

  it('applies only the objects of an unchanged release that are not as its last apply left them, and notes each answer', async () => {
    const cluster = fakeCluster();
    const store = new MemoryStore();
    const answers: string[] = [];
    await applyBundle(depsFor(cluster, store, undefined, { events: [], answers }), stateFor('1.0.0', [cm('a'), cm('b')]));
    expect(answers).toEqual([`ConfigMap a ${cluster.live(cm('a'))?.metadata.uid}`, `ConfigMap b ${cluster.live(cm('b'))?.metadata.uid}`]);
    const [installed] = await store.history();
    cluster.calls.length = 0;
    const known = (o: KubeObject) => cluster.live(o)?.metadata.uid;
    const inSync = (o: KubeObject) => o.metadata.name === 'a';
    const s = stateFor('1.0.0', [cm('a'), cm('b')], installed);
    await applyBundle(depsFor(cluster, store, known, { events: [], inSync }), s);
    expect(cluster.calls).toEqual(['apply ConfigMap ns/b']);
    cluster.calls.length = 0;
    await applyBundle(depsFor(cluster, store, known, { events: [], inSync: () => true }), stateFor('1.0.0', [cm('a'), cm('b')], installed));
    expect(cluster.calls).toEqual([]);
    expect(condition(s, 'Progressing')).toMatchObject({ status: 'True', reason: 'Succeeded' });
  });

  it('does not repair into an object a user made after ours was deleted', async () => {
    const cluster = fakeCluster();
    const store = new MemoryStore();
    await applyBundle(depsFor(cluster, store), stateFor('1.0.0', [cm('a')]));
    const [installed] = await store.history();
    cluster.objects.delete('ConfigMap ns/a');
    cluster.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } });
    const s = stateFor('1.0.0', [cm('a')], installed);
    await expect(applyBundle(depsFor(cluster, store), s)).rejects.toThrow('already exists');
    expect(cluster.live(cm('a'))?.metadata.labels).toBeUndefined();
    expect(condition(s, 'Installed')).toMatchObject({ status: 'True' });
  });
});
