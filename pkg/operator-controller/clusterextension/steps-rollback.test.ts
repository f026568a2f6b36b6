// Undo on failure (decision 0123): the rollback step over the release-record Applier, a fake
// cluster, records in memory and a fixed clock. The Healthy condition is set as the health step
// would; the condition's memory (last Healthy revision, the bundle undone) is read back as the
// next reconcile would. The end-to-end proof is test/e2e/rollback-on-failure-on-node.test.ts.
import { describe, expect, it } from 'vitest';
import { findCondition } from '../../shared/api/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { createBoxcutterApplier, createObjectSetReleases, listRevisions, newestSummary, withOwnerLabels } from '../applier/index.ts';
import { Manifest, type Release } from '../release/index.ts';
import { ROLLBACK_ON_FAILURE_ANNOTATION } from '../rollback/index.ts';
import { widgetCrd } from '../../../test/support/crd-builders.ts';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import { MemoryReleaseStore, recordingEvents, releaseApplier } from '../../../test/support/extension-ports.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { makePlan } from './plan.ts';
import { setCondition } from './status.ts';
import { rollbackHoldStep, rollbackStep, ROLLED_BACK_CONDITION } from './steps-rollback.ts';

const EXT = { name: 'ext', uid: 'u', installNamespace: 'ns' };
const INSTALLER = { namespace: 'ns', name: 'sa' };

function crd(versions: string[]): KubeObject {
  return widgetCrd(
    versions.map((name, i) => ({ name, served: true, storage: i === versions.length - 1, schema: { openAPIV3Schema: { type: 'object' } } })),
  );
}

function deployment(version: string): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'op', namespace: 'ns' },
    spec: { template: { metadata: { labels: { v: version } } } },
  };
}

/** A cluster, records and the real release Applier over them; `deploy` records a revision as the apply step would. */
function fixture() {
  const cluster: FakeCluster = fakeCluster();
  const releases = new MemoryReleaseStore();
  const scoped = { forServiceAccount: () => cluster.client };
  const applier = releaseApplier({ scoped, releases });
  const events: string[] = [];
  let clock = 0;
  const ports = { applier, scoped, events: recordingEvents(events), now: () => new Date(clock) };
  const step = rollbackStep(ports);
  const history = (): Promise<Release[]> => releases.history('ext');
  const deploy = async (version: string, crdVersions = ['v1']): Promise<Release> => {
    const h = await history();
    const objects = withOwnerLabels([crd(crdVersions), deployment(version)], 'ext');
    const bundle = { package: 'p', name: `p.v${version}`, version, image: `r/p:v${version}` };
    const desired = makePlan(extensionState(), { bundle }, { objects: Manifest.ofObjects(objects), properties: [] }).desired;
    const state = extensionState();
    const applied = await applier.apply({ extension: EXT, installer: INSTALLER, history: h, log: state.log, signal: state.signal }, desired);
    return applied.release;
  };
  /** A reconcile's state after health: the records read, `healthy` as the health step reported, `seconds` after `release`'s deploy. */
  const reconcile = async (o: { healthy: boolean; seconds: number; release: Release; annotation?: string | null; from?: ExtensionState }) => {
    const h = await history();
    const installed = h.find((r) => r.status === 'deployed');
    const state = extensionState({ history: h, ...(installed === undefined ? {} : { installed }) });
    if (o.from !== undefined) state.ce = o.from.ce;
    const annotation = o.annotation === undefined ? '30s' : o.annotation;
    state.ce.metadata.annotations = annotation === null ? {} : { [ROLLBACK_ON_FAILURE_ANNOTATION]: annotation };
    state.ce.status = { ...state.ce.status, install: { bundle: { name: o.release.bundle.name, version: o.release.bundle.version } } };
    setCondition(
      state.ce,
      'Healthy',
      o.healthy ? 'True' : 'False',
      o.healthy ? 'Healthy' : 'Unhealthy',
      o.healthy ? 'All available' : 'Deployment ns/op: crash loop',
    );
    clock = Date.parse(o.release.lastDeployed ?? '') + o.seconds * 1000;
    const outcome = await step.run(state);
    return { state, outcome, condition: findCondition(state.ce.status?.conditions, ROLLED_BACK_CONDITION) };
  };
  return { cluster, releases, events, history, deploy, reconcile, ports };
}

/** A plan to `version` over `state`'s installed release, as render makes it. */
function planTo(state: ExtensionState, version: string): void {
  const bundle = { package: 'p', name: `p.v${version}`, version, image: `r/p:v${version}` };
  state.plan = makePlan(state, { bundle }, { objects: Manifest.ofObjects([]), properties: [] });
}

describe('rollback on failure step', () => {
  it('annotation absent: nothing read, written or recorded, and its condition removed', async () => {
    const f = fixture();
    const r1 = await f.deploy('1.0.0');
    const first = await f.reconcile({ healthy: true, seconds: 30, release: r1 });
    expect(first.condition).toMatchObject({ status: 'False', reason: 'Watching' });
    const r2 = await f.deploy('1.0.1');
    const before = f.cluster.writes.length;
    const { outcome, condition } = await f.reconcile({ healthy: false, seconds: 3600, release: r2, annotation: null, from: first.state });
    expect(outcome).toBeUndefined();
    expect(condition).toBeUndefined();
    expect(f.cluster.writes).toHaveLength(before);
    expect((await f.history()).map((r) => `${r.revision} ${r.status}`)).toEqual(['2 deployed', '1 superseded']);
    expect(f.events).toEqual([]);
  });

  it('healthy in time: awaited until the deadline (a requeue at it), then remembered as the last Healthy revision; nothing rolled back', async () => {
    const f = fixture();
    const r1 = await f.deploy('1.0.0');
    const first = await f.reconcile({ healthy: true, seconds: 30, release: r1 });
    const r2 = await f.deploy('1.0.1');
    const waiting = await f.reconcile({ healthy: false, seconds: 10, release: r2, from: first.state });
    expect(waiting.outcome).toEqual({ requeueAfterMs: 20_000 });
    expect(waiting.condition).toMatchObject({ status: 'False', reason: 'AwaitingHealthy' });
    expect(waiting.condition?.message).toMatch(
      /^revision 2 \(bundle "p\.v1\.0\.1" version "1\.0\.1"\) is not Healthy yet .* it is rolled back to revision 1 \[last Healthy revision: 1\]$/,
    );
    // Healthy before the deadline settles nothing yet: judged at the deadline.
    const early = await f.reconcile({ healthy: true, seconds: 20, release: r2, from: waiting.state });
    expect(early.outcome).toEqual({ requeueAfterMs: 10_000 });
    expect(early.condition).toMatchObject({ status: 'False', reason: 'AwaitingHealthy' });
    expect(early.condition?.message).toMatch(/^revision 2 \(bundle "p\.v1\.0\.1" version "1\.0\.1"\) is Healthy; if it is not Healthy at /);
    const ok = await f.reconcile({ healthy: true, seconds: 30, release: r2, from: early.state });
    expect(ok.outcome).toBeUndefined();
    expect(ok.condition).toMatchObject({ status: 'False', reason: 'Watching' });
    expect(ok.condition?.message).toMatch(/\[last Healthy revision: 2\]$/);
    // Healthy once: an outage later is no failed upgrade.
    const later = await f.reconcile({ healthy: false, seconds: 3600, release: r2, from: ok.state });
    expect(later.condition).toMatchObject({ status: 'False', reason: 'Watching' });
    expect((await f.history()).map((r) => `${r.revision} ${r.status}`)).toEqual(['2 deployed', '1 superseded']);
    expect(f.events).toEqual([]);
  });

  it('unhealthy past the deadline: rolled back to the last Healthy revision as a new one, Warning Event, condition, and the bundle not planned again until the spec changes', async () => {
    const f = fixture();
    const r1 = await f.deploy('1.0.0');
    const first = await f.reconcile({ healthy: true, seconds: 30, release: r1 });
    const r2 = await f.deploy('1.0.1');
    // Right after the deploy the verdict may still be the old Pods': Healthy, then not.
    const transient = await f.reconcile({ healthy: true, seconds: 1, release: r2, from: first.state });
    expect(transient.condition).toMatchObject({ status: 'False', reason: 'AwaitingHealthy' });
    const { state, outcome, condition } = await f.reconcile({ healthy: false, seconds: 31, release: r2, from: transient.state });
    expect(outcome).toBeUndefined();
    const history = await f.history();
    expect(history.map((r) => `${r.revision} ${r.bundle.version} ${r.status}: ${r.description}`)).toEqual([
      '3 1.0.0 deployed: Rollback to 1',
      '2 1.0.1 failed: Upgrade "ext" failed: not Healthy 30s after its deploy; rolled back to revision 1',
      '1 1.0.0 superseded: Superseded',
    ]);
    // Revision 1's objects are back.
    expect(f.cluster.live(deployment('1.0.0'))?.['spec']).toMatchObject({ template: { metadata: { labels: { v: '1.0.0' } } } });
    expect(condition).toMatchObject({ status: 'True', reason: 'UnhealthyUpgrade', observedGeneration: 1 });
    expect(condition?.message).toMatch(
      /^bundle "p\.v1\.0\.1" version "1\.0\.1" \(revision 2\) was not Healthy 30s after its deploy \(Healthy=False Unhealthy: Deployment ns\/op: crash loop\): rolled back to revision 1 \(bundle "p\.v1\.0\.0" version "1\.0\.0"\) as revision 3; bundle "p\.v1\.0\.1" is not installed again until/,
    );
    expect(f.events).toHaveLength(1);
    expect(f.events[0]).toMatch(/^Warning RolledBack: bundle "p\.v1\.0\.1" .* as revision 3;/);
    expect(findCondition(state.ce.status?.conditions, 'Installed')).toMatchObject({
      status: 'True',
      message: 'Installed bundle r/p:v1.0.0 successfully',
    });

    // The next reconcile: resolution picks 1.0.1 again; the hold keeps the installed release.
    const records = await f.history();
    const rolled = records[0];
    const next = extensionState({ history: records, ...(rolled === undefined ? {} : { installed: rolled }) });
    next.ce = state.ce;
    planTo(next, '1.0.1');
    await rollbackHoldStep().run(next);
    expect(next.plan?.desired.bundle.name).toBe('p.v1.0.0');
    expect(next.plan?.unchanged).toBe(true);
    // Another bundle goes ahead.
    planTo(next, '1.0.2');
    await rollbackHoldStep().run(next);
    expect(next.plan?.desired.bundle.name).toBe('p.v1.0.2');
    // The rollback revision becoming Healthy keeps the memory and notes it.
    const healthy = await f.reconcile({ healthy: true, seconds: 30, release: history[0]!, from: { ...next, ce: state.ce } });
    expect(healthy.condition).toMatchObject({ status: 'True', reason: 'UnhealthyUpgrade' });
    expect(healthy.condition?.message).toMatch(/\[last Healthy revision: 3\]$/);
    // Told: a new generation of the spec lifts the hold.
    const told = extensionState({ history: records, ...(rolled === undefined ? {} : { installed: rolled }) });
    told.ce = structuredClone(healthy.state.ce);
    told.ce.metadata.generation = 2;
    planTo(told, '1.0.1');
    await rollbackHoldStep().run(told);
    expect(told.plan?.desired.bundle.name).toBe('p.v1.0.1');
    expect(f.events).toHaveLength(1);
  });

  it('CRD-unsafe way back (a stored version the old revision lacks): nothing written, the condition and one Warning Event say why', async () => {
    const f = fixture();
    const r1 = await f.deploy('1.0.0', ['v1alpha1']);
    const first = await f.reconcile({ healthy: true, seconds: 30, release: r1 });
    const r2 = await f.deploy('1.0.1', ['v1alpha1', 'v1']);
    f.cluster.edit(crd([]), (live) => {
      live['status'] = { storedVersions: ['v1alpha1', 'v1'] };
    });
    const before = f.cluster.writes.length;
    const once = await f.reconcile({ healthy: false, seconds: 60, release: r2, from: first.state });
    const twice = await f.reconcile({ healthy: false, seconds: 90, release: r2, from: once.state });
    expect(twice.outcome).toBeUndefined();
    expect(f.cluster.writes).toHaveLength(before);
    expect((await f.history()).map((r) => `${r.revision} ${r.status}`)).toEqual(['2 deployed', '1 superseded']);
    expect(twice.condition).toMatchObject({ status: 'False', reason: 'RollbackRefused' });
    expect(twice.condition?.message).toMatch(
      /would lose data, so nothing was changed: CRD "widgets\.example\.com" may have objects stored at \[v1\]/,
    );
    expect(f.events).toHaveLength(1);
    expect(f.events[0]).toMatch(/^Warning RollbackRefused: revision 2 .* would lose data/);
  });

  it('no earlier revision seen Healthy (a first install): nothing to roll back to, said once', async () => {
    const f = fixture();
    const r1 = await f.deploy('1.0.0');
    const waiting = await f.reconcile({ healthy: false, seconds: 5, release: r1 });
    expect(waiting.outcome).toEqual({ requeueAfterMs: 25_000 });
    expect(waiting.condition?.message).toMatch(/it is rolled back to nothing: no earlier revision was seen Healthy$/);
    const late = await f.reconcile({ healthy: false, seconds: 40, release: r1, from: waiting.state });
    await f.reconcile({ healthy: false, seconds: 50, release: r1, from: late.state });
    expect(late.condition).toMatchObject({ status: 'False', reason: 'NoHealthyRevision' });
    expect(late.condition?.message).toMatch(/no earlier revision was seen Healthy: nothing to roll back to, it stays as it is$/);
    expect(f.events).toEqual([expect.stringMatching(/^Warning NothingToRollBackTo: revision 1 \(bundle "p\.v1\.0\.0"/)]);
    expect(await f.history()).toHaveLength(1);
  });

  it('a verdict not known at the deadline (watches not listed yet): asked again, nothing rolled back', async () => {
    const f = fixture();
    const r1 = await f.deploy('1.0.0');
    const first = await f.reconcile({ healthy: true, seconds: 30, release: r1 });
    const r2 = await f.deploy('1.0.1');
    const state = extensionState({ history: await f.history() });
    state.ce = first.state.ce;
    state.installed = state.history[0];
    setCondition(state.ce, 'Healthy', 'Unknown', 'NotObserved', "The release's objects have not been listed yet");
    const outcome = await rollbackStep({ ...f.ports, now: () => new Date(Date.parse(r2.lastDeployed ?? '') + 60_000) }).run(state);
    expect(outcome).toEqual({ requeueAfterMs: 10_000 });
    expect(findCondition(state.ce.status?.conditions, ROLLED_BACK_CONDITION)).toMatchObject({ status: 'False', reason: 'AwaitingHealthy' });
    expect(await f.history()).toHaveLength(2);
    expect(f.events).toEqual([]);
  });

  it('an invalid deadline: said on the condition, nothing else', async () => {
    const f = fixture();
    const r1 = await f.deploy('1.0.0');
    const { outcome, condition } = await f.reconcile({ healthy: false, seconds: 3600, release: r1, annotation: '5 minutes' });
    expect(outcome).toBeUndefined();
    expect(condition).toMatchObject({ status: 'False', reason: 'InvalidDeadline' });
    expect(f.events).toEqual([]);
  });
});

// Under BoxcutterRuntime: the real Boxcutter applier and revision store over the fake cluster; the
// ClusterObjectSet controller's verdicts (Succeeded) and the creation times are set by hand.
describe('rollback on failure step under BoxcutterRuntime', () => {
  /** Revisions over a fake cluster, the step with the `newest` port as cmd/operator-controller composes it. */
  function boxcutterFixture() {
    const cluster: FakeCluster = fakeCluster();
    const scoped = { forServiceAccount: () => cluster.client };
    const applier = createBoxcutterApplier({ client: cluster.client, systemNamespace: 'olmv1-system', scoped });
    const revisions = createObjectSetReleases(cluster.client, { systemNamespace: 'olmv1-system' });
    const events: string[] = [];
    let clock = 0;
    const newest = async (name: string, signal: AbortSignal) => newestSummary(await listRevisions(cluster.client, name, signal));
    const step = rollbackStep({ applier, scoped, events: recordingEvents(events), now: () => new Date(clock), newest });
    const CREATED = Date.parse('2026-11-28T10:00:00Z');
    /** Revision `n` as the ClusterObjectSet controller and the API server leave it: created at CREATED + n minutes, Succeeded or not. */
    const settle = (n: number, succeeded: boolean) =>
      cluster.edit({ kind: 'ClusterObjectSet', metadata: { name: `ext-${n}` } }, (s) => {
        (s['metadata'] as { creationTimestamp?: string }).creationTimestamp = new Date(CREATED + n * 60_000).toISOString();
        s['status'] = succeeded
          ? { conditions: [{ type: 'Succeeded', status: 'True', reason: 'Succeeded', message: 'ok', lastTransitionTime: '2026-11-28T10:00:00Z' }] }
          : {
              conditions: [
                {
                  type: 'Progressing',
                  status: 'True',
                  reason: 'RollingOut',
                  message: 'Revision is rolling out.',
                  lastTransitionTime: '2026-11-28T10:00:00Z',
                },
              ],
            };
      });
    const deploy = async (version: string) => {
      const objects = withOwnerLabels([crd(['v1']), deployment(version)], 'ext');
      const bundle = { package: 'p', name: `p.v${version}`, version, image: `r/p:v${version}` };
      const desired = makePlan(extensionState(), { bundle }, { objects: Manifest.ofObjects(objects), properties: [] }).desired;
      const state = extensionState();
      const history = await revisions.history('ext');
      await applier.apply({ extension: EXT, installer: INSTALLER, history, log: state.log, signal: state.signal }, desired);
    };
    /** A reconcile after health, `seconds` after revision `n`'s creation. */
    const reconcile = async (o: { n: number; healthy: boolean; seconds: number; from?: ExtensionState }) => {
      const history = await revisions.history('ext');
      const installed = history.find((r) => r.status === 'deployed');
      const state = extensionState({ history, ...(installed === undefined ? {} : { installed }) });
      if (o.from !== undefined) state.ce = o.from.ce;
      state.ce.metadata.annotations = { [ROLLBACK_ON_FAILURE_ANNOTATION]: '30s' };
      setCondition(
        state.ce,
        'Healthy',
        o.healthy ? 'True' : 'False',
        o.healthy ? 'Healthy' : 'Unhealthy',
        o.healthy ? 'All available' : 'crash loop',
      );
      clock = CREATED + o.n * 60_000 + o.seconds * 1000;
      const outcome = await step.run(state);
      return { state, outcome, condition: findCondition(state.ce.status?.conditions, ROLLED_BACK_CONDITION) };
    };
    const sets = () =>
      [...cluster.objects.values()]
        .filter((o) => o.kind === 'ClusterObjectSet')
        .map((o) => `${o.metadata.name} ${o.metadata.annotations?.['olm.operatorframework.io/bundle-version'] ?? '?'}`)
        .sort();
    return { cluster, events, settle, deploy, reconcile, sets };
  }

  it('a newest revision still rolling out (probes failing) at its creation plus the deadline: the last Healthy content applied as a new revision, no record written', async () => {
    const f = boxcutterFixture();
    await f.deploy('1.0.0');
    f.settle(1, true);
    const first = await f.reconcile({ n: 1, healthy: true, seconds: 30 });
    expect(first.condition?.message).toMatch(/\[last Healthy revision: 1\]$/);
    // 1.0.1 never succeeds: revision 1 stays the installed one, revision 2 the judged one.
    await f.deploy('1.0.1');
    f.settle(2, false);
    const waiting = await f.reconcile({ n: 2, healthy: false, seconds: 10, from: first.state });
    expect(waiting.outcome).toEqual({ requeueAfterMs: 20_000 });
    expect(waiting.condition?.message).toMatch(/^revision 2 \(bundle "p\.v1\.0\.1" version "1\.0\.1"\) is not Healthy yet /);
    const { state, condition } = await f.reconcile({ n: 2, healthy: false, seconds: 31, from: waiting.state });
    // Revision 3 with 1.0.0's content; revisions 1 and 2 untouched (the ClusterObjectSet controller archives them once 3 succeeds).
    expect(f.sets()).toEqual(['ext-1 1.0.0', 'ext-2 1.0.1', 'ext-3 1.0.0']);
    expect(condition).toMatchObject({ status: 'True', reason: 'UnhealthyUpgrade' });
    expect(condition?.message).toMatch(
      /^bundle "p\.v1\.0\.1" version "1\.0\.1" \(revision 2\) was not Healthy 30s after its deploy .*: rolled back to revision 1 \(bundle "p\.v1\.0\.0" version "1\.0\.0"\) as revision 3; /,
    );
    expect(f.events).toHaveLength(1);
    expect(f.events[0]).toMatch(/^Warning RolledBack: /);
    // status.install is left to the apply step's rollout (revision 1 is still the installed one).
    expect(state.ce.status?.install?.bundle.name).toBeUndefined();

    // Revision 3 rolling out with the old content is judged next; it is not rolled back onto itself.
    f.settle(3, false);
    const again = await f.reconcile({ n: 3, healthy: false, seconds: 120, from: state });
    expect(again.condition).toMatchObject({ status: 'True', reason: 'UnhealthyUpgrade' });
    expect(f.sets()).toHaveLength(3);
    expect(f.events).toHaveLength(1);
    // Healthy at its deadline: remembered, the hold kept.
    f.settle(3, true);
    const healthy = await f.reconcile({ n: 3, healthy: true, seconds: 30, from: again.state });
    expect(healthy.condition).toMatchObject({ status: 'True', reason: 'UnhealthyUpgrade' });
    expect(healthy.condition?.message).toMatch(/\[last Healthy revision: 3\]$/);
  });
});
