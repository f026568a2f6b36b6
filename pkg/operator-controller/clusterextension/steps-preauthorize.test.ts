// The preauthorize step's decision table with fakes of its ports: a release that is already
// deployed is not checked again; missing permissions are a wait (POLL) with the whole list on
// Progressing and one Event; a review that fails is an error for the bundle. End to end:
// test/e2e/operator-controller-failures.test.ts.
import { describe, expect, it, vi } from 'vitest';
import { withOwnerLabels } from '../applier/index.ts';
import { POLL } from '../../shared/controller/index.ts';
import { ApiError, type KubeObject } from '../../shared/kube/index.ts';
import { widgetCrd } from '../../../test/support/crd-builders.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { recordingEvents, releaseApplier, withRulesReviews } from '../../../test/support/extension-ports.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import { revisionRecord } from '../../../test/support/revision-fixtures.ts';
import { Manifest, ReleaseStatus, type Release } from '../release/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { makePlan } from './plan.ts';
import { preauthorizeStep, type ApplyPorts } from './steps-apply.ts';

const BUNDLE = { package: 'p', name: 'p.v2.0.0', version: '2.0.0', image: 'registry.example/p-bundle:v2.0.0' };
const OBJECTS: KubeObject[] = withOwnerLabels([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p', namespace: 'ns' }, data: {} }], 'ext');

function harness(granted: 'all' | 'none' | Error) {
  const reviews: string[] = [];
  const events: string[] = [];
  const client = withRulesReviews(fakeCluster().client, granted, reviews);
  const ports = { applier: releaseApplier({ scoped: { forServiceAccount: () => client } }), events: recordingEvents(events) } satisfies ApplyPorts;
  const step = preauthorizeStep(ports);
  const run = async (s: ExtensionState) => step.run(s);
  return { run, reviews, events };
}

/** A reconcile after render: `objects` of BUNDLE to apply, with `o`'s state fields. */
function stateWith(o: Partial<ExtensionState> = {}, objects: Manifest = Manifest.ofObjects(OBJECTS)): ExtensionState {
  const s = extensionState(o);
  s.plan = makePlan(s, { bundle: BUNDLE }, { objects, properties: [] });
  return s;
}

function condition(s: ExtensionState, type: string) {
  return s.ce.status?.conditions?.find((c) => c.type === type);
}

describe('preauthorize step', () => {
  it('with every permission held: continues, after one rules review per namespace that needs any (here only ns)', async () => {
    const h = harness('all');
    const s = stateWith();
    expect(await h.run(s)).toBeUndefined();
    expect(h.reviews).toEqual(['ns']);
    expect(s.ce.status).toBeUndefined();
    expect(h.events).toEqual([]);
  });

  it("missing permissions: POLL, Progressing Retrying with upstream's text exactly, Installed from the deployed revision, one Event with the fix per check", async () => {
    const h = harness('none');
    const s = stateWith();
    expect(await h.run(s)).toBe(POLL);
    expect(condition(s, 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'Retrying',
      message: [
        'error for resolved bundle "p.v2.0.0" with version "2.0.0": pre-authorization failed: service account requires the following permissions to manage cluster extension:',
        '  Namespace:"ns" APIGroups:[] Resources:[configmaps] ResourceNames:[p] Verbs:[create,delete,get,patch]',
        '  Namespace:"ns" APIGroups:[] Resources:[configmaps] Verbs:[list,watch]',
      ].join('\n'),
    });
    expect(condition(s, 'Installed')).toMatchObject({ status: 'False', message: 'No bundle installed' });
    // What upstream's text does not say (the command that prints the RBAC) is in the Event.
    const note = [
      'Warning PreAuthorizationFailed: error for resolved bundle "p.v2.0.0" with version "2.0.0": pre-authorization failed: service account requires the following permissions to manage cluster extension:',
      'Service account ns/sa lacks 2 permission(s) needed to install bundle p.v2.0.0 (version 2.0.0); the Progressing condition lists them.',
      'grant them with the RBAC printed by: olmv1 rbac registry.example/p-bundle:v2.0.0 --install-namespace ns --service-account sa',
    ].join('\n');
    expect(h.events).toEqual([note]);
    // Each check records it again, the same note (the recorder counts the repeats in one series).
    expect(await h.run(stateWith())).toBe(POLL);
    expect(h.events).toEqual([note, note]);
  });

  it('the release already deployed unchanged: nothing asked (a drift repair needs nothing new)', async () => {
    const h = harness('none');
    const installed: Release = {
      extension: 'ext',
      extensionUID: 'u',
      revision: 1,
      status: 'deployed',
      bundle: BUNDLE,
      manifest: Manifest.ofObjects(OBJECTS),
      properties: [],
      description: 'Install complete',
    };
    const s = stateWith({ installed, history: [installed] });
    expect(await h.run(s)).toBeUndefined();
    expect(h.reviews).toEqual([]);
  });

  it('BoxcutterRuntime: the revision rolling out holds the release: nothing asked again; a blocked or another revision is checked', async () => {
    const revisionOf = (status?: ReleaseStatus, objects = Manifest.ofObjects(OBJECTS)): Release => {
      const desired = stateWith({}, objects).plan?.desired;
      if (desired === undefined) throw new Error('no plan');
      return revisionRecord(desired, status);
    };
    const h = harness('all');
    expect(await h.run(stateWith({ history: [revisionOf()] }))).toBeUndefined();
    expect(await h.run(stateWith({ history: [revisionOf(ReleaseStatus.PendingUpgrade)] }))).toBeUndefined();
    expect(h.reviews).toEqual([]);
    // Failed (Blocked, past its deadline: it may lack permissions): checked, as any other move.
    expect(await h.run(stateWith({ history: [revisionOf(ReleaseStatus.Failed)] }))).toBeUndefined();
    expect(h.reviews).toEqual(['ns']);
    // A revision rolling out with other content: the move to this one is checked.
    const other = withOwnerLabels([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'q', namespace: 'ns' }, data: {} }], 'ext');
    expect(await h.run(stateWith({ history: [revisionOf(undefined, Manifest.ofObjects(other))] }))).toBeUndefined();
    expect(h.reviews).toEqual(['ns', 'ns']);
  });

  it('a review that fails: the error for the resolved bundle, thrown, Progressing Retrying', async () => {
    const h = harness(new ApiError(503, 'ServiceUnavailable', 'the server is currently unable to handle the request'));
    const s = stateWith();
    await expect(h.run(s)).rejects.toThrow(
      'error for resolved bundle "p.v2.0.0" with version "2.0.0": the server is currently unable to handle the request',
    );
    expect(condition(s, 'Progressing')).toMatchObject({ status: 'True', reason: 'Retrying' });
  });

  it('a rendering held as lines asks and reports exactly what its objects as an array do, and stays unparsed', async () => {
    const crd = widgetCrd();
    const objects = withOwnerLabels(
      [
        crd,
        { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns' } },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'r' },
          rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: 'b' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [{ kind: 'ServiceAccount', name: 'x', namespace: 'ns' }],
        },
        ...OBJECTS,
      ],
      'ext',
    );
    const messages: (string | undefined)[] = [];
    const notes: string[][] = [];
    for (const rendered of [
      Manifest.ofObjects(objects),
      Manifest.ofLines(
        objects.map((o) => JSON.stringify(o)),
        'the rendering',
      ),
    ]) {
      const h = harness('none');
      const s = stateWith({}, rendered);
      expect(await h.run(s)).toBe(POLL);
      messages.push(condition(s, 'Progressing')?.message);
      notes.push(h.events);
      expect(h.reviews).toEqual(['olmv1.cluster-scope', 'ns']);
    }
    expect(messages[0]).toContain('Resources:[widgets]');
    expect(messages[1]).toBe(messages[0]);
    // The binding of cluster-admin is flagged in the Event, which is the same for both.
    expect(notes[0]?.join('')).toContain('binds ClusterRole "cluster-admin"');
    expect(notes[1]).toEqual(notes[0]);
    const lines = Manifest.ofLines(
      objects.map((o) => JSON.stringify(o)),
      'the rendering',
    );
    const whole = vi.spyOn(lines, 'objects');
    const s = stateWith({}, lines);
    await harness('none').run(s);
    expect(s.plan?.desired.manifest).toBe(lines);
    expect(whole).not.toHaveBeenCalled();
  });
});
