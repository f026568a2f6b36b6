// The apply step's keep mode, as a decision table over a fake cluster and release store: after a
// reconcile stopped before its apply, the deployed release is put back as the ServiceAccount with the
// ownership check and nothing recorded; nothing is written when nothing is
// deployed, a newer revision exists, the extension is being deleted or the reconcile was
// cancelled. The end-to-end proof is test/e2e/operator-controller-repair-while-upgrade-waits.test.ts.
import { describe, expect, it } from 'vitest';
import { createReleaseApplier, withOwnerLabels } from '../applier/index.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { MemoryReleaseStore } from '../../../test/support/extension-ports.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import type { EventRecorder, KubeObject } from '../../shared/kube/index.ts';
import { ReleaseStatus, type Release, Manifest } from '../release/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { applyStep, type ApplyPorts } from './steps-apply.ts';

const cm = (name: string): KubeObject =>
  withOwnerLabels([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { k: 'v' } }], 'ext')[0]!;

function release(revision: number, status: Release['status'], version: string): Release {
  return {
    description: status,
    extension: 'ext',
    extensionUID: 'u',
    revision,
    status,
    namespace: 'ns',
    bundle: { package: 'p', name: `p.v${version}`, version, image: `r/p:v${version}` },
    properties: [],
    manifest: Manifest.ofObjects([cm('a'), cm('b')]),
  };
}

interface Setup {
  /** The release records, newest first; the deployed one is `state.installed`. */
  history: Release[];
  state?: Partial<ExtensionState>;
  /** Objects the cluster already holds (all but these are absent). */
  present?: KubeObject[];
  /** A seeded object of the same name that nobody owns. */
  foreign?: KubeObject;
}

async function runRepair(s: Setup) {
  const cluster = fakeCluster();
  for (const o of s.present ?? []) cluster.seed(o);
  if (s.foreign !== undefined) cluster.seed(s.foreign);
  const store = new MemoryReleaseStore();
  for (const r of s.history) await store.create(r);
  const events: string[] = [];
  const scopedAs: string[] = [];
  const drift = {
    ownedUid: () => undefined,
    inSync: () => false,
    noteApplied: () => undefined,
    takeDrifted: () => ['ConfigMap ns/a'],
    listed: async () => undefined,
    expectDeletes: () => undefined,
    track: async () => undefined,
  };
  const scoped = {
    forServiceAccount: (ns: string, name: string) => {
      scopedAs.push(`${ns}/${name}`);
      return cluster.client;
    },
  };
  const ports = {
    applier: createReleaseApplier({ scoped, releases: store, drift }),
    events: { event: (_o, type, reason, _a, note) => void events.push(`${type} ${reason}: ${note}`) } satisfies EventRecorder,
  } satisfies ApplyPorts;
  const history = await store.history('ext');
  const installed = history.find((r) => r.status === ReleaseStatus.Deployed);
  const state = extensionState({ history, ...(installed === undefined ? {} : { installed }), ...s.state });
  const step = applyStep(ports);
  // An earlier step stopped the reconcile.
  const outcome = await step.run(state, true);
  return { outcome, step, cluster, events, scopedAs, records: (await store.history('ext')).map((r) => `${r.revision} ${r.status}`) };
}

describe('apply step, when an earlier step stopped the reconcile: the deployed release kept', () => {
  it('runs even after an earlier step stopped the reconcile', () => {
    expect(applyStep({} as ApplyPorts).always).toBe(true);
  });

  it("without a stop and without a plan it is out of the pipeline's order", () => {
    const state = extensionState({ history: [release(1, ReleaseStatus.Deployed, '1.0.0')] });
    expect(() => applyStep({} as ApplyPorts).run(state, false)).toThrow(/run without the state's plan/);
  });

  it('a stop before the apply: the deployed release is re-applied as the ServiceAccount, nothing recorded, the repair reported', async () => {
    const r = await runRepair({ history: [release(1, ReleaseStatus.Deployed, '1.0.0')], present: [cm('b')] });
    expect(r.outcome).toBeUndefined();
    expect(r.scopedAs).toEqual(['ns/sa']);
    // The ownership check reads what the drift cache does not know, then every object is applied.
    expect(r.cluster.writes).toEqual(['apply ConfigMap ns/a', 'apply ConfigMap ns/b']);
    expect(r.cluster.live(cm('a'))?.data).toEqual({ k: 'v' });
    expect(r.records).toEqual(['1 deployed']);
    expect(r.events).toEqual(['Normal DriftRepaired: Restored 1 changed or deleted object(s): ConfigMap ns/a']);
  });

  it('a superseded revision below the deployed one changes nothing', async () => {
    const r = await runRepair({ history: [release(2, ReleaseStatus.Deployed, '1.1.0'), release(1, ReleaseStatus.Superseded, '1.0.0')] });
    expect(r.cluster.writes).toEqual(['apply ConfigMap ns/a', 'apply ConfigMap ns/b']);
    expect(r.records).toEqual(['2 deployed', '1 superseded']);
  });

  it('an object of the same name nobody owns refuses the repair: nothing written, an Event, the stop stays the outcome', async () => {
    const foreign = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data: { mine: 'yes' } };
    const r = await runRepair({ history: [release(1, ReleaseStatus.Deployed, '1.0.0')], foreign });
    expect(r.outcome).toBeUndefined();
    expect(r.cluster.writes).toEqual([]);
    expect(r.cluster.live(foreign)?.data).toEqual({ mine: 'yes' });
    expect(r.events).toEqual([
      'Warning OwnershipConflict: Cannot install bundle p.v1.0.0 (version 1.0.0): ConfigMap ns/a already exist(s) and are not owned by this extension; nothing was applied',
    ]);
  });

  const untouched: [string, Setup][] = [
    ['nothing is deployed', { history: [] }],
    ['only a failed install is recorded', { history: [release(1, ReleaseStatus.Failed, '1.0.0')] }],
    [
      'a failed upgrade is newer than the deployed revision',
      { history: [release(2, ReleaseStatus.Failed, '1.1.0'), release(1, ReleaseStatus.Deployed, '1.0.0')] },
    ],
    [
      'an upgrade left pending by a crash is newer than the deployed revision',
      { history: [release(2, ReleaseStatus.PendingUpgrade, '1.1.0'), release(1, ReleaseStatus.Deployed, '1.0.0')] },
    ],
    ['no installer (validate stopped the reconcile)', { history: [release(1, ReleaseStatus.Deployed, '1.0.0')], state: { installer: undefined } }],
    ['the reconcile was cancelled', { history: [release(1, ReleaseStatus.Deployed, '1.0.0')], state: { signal: AbortSignal.abort() } }],
  ];
  it.each(untouched)('nothing is written when %s', async (_name, setup) => {
    const r = await runRepair(setup);
    expect(r.outcome).toBeUndefined();
    expect(r.cluster.calls).toEqual([]);
    expect(r.events).toEqual([]);
  });

  it('nothing is written when the extension is being deleted', async () => {
    const ce = extensionState().ce;
    ce.metadata.deletionTimestamp = '2026-11-25T00:00:00Z';
    const r = await runRepair({ history: [release(1, ReleaseStatus.Deployed, '1.0.0')], state: { ce } });
    expect(r.cluster.calls).toEqual([]);
  });
});
