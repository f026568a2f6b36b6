// The policy step with fakes of its ports (decision 0096): what it leaves alone without a
// policy, what a held move turns the reconcile into, and what it reports. End to end:
// test/e2e/update-policy.test.ts.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { APPROVED_BUNDLE_ANNOTATION, UPDATE_POLICY_ANNOTATION } from '../../shared/api/index.ts';
import type { EventRecorder, KubeObject } from '../../shared/kube/index.ts';
import { Manifest, type Release, type ReleaseBundle } from '../release/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { policyStep } from './steps-policy.ts';
import { createUpgradeNotices } from './upgrade-notices.ts';
import { makePlan } from './plan.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';

const bundle = (version: string): ReleaseBundle => ({ package: 'p', name: `p.v${version}`, version, image: `img:${version}` });

function role(resources: string[]): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'p-controller' },
    rules: [{ apiGroups: ['p.test'], resources, verbs: ['get', 'list'] }],
  } as KubeObject;
}

const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { a: name } });

const installedRelease = (manifest: KubeObject[]): Release =>
  ({
    extension: 'ext',
    revision: 1,
    status: 'deployed',
    bundle: bundle('1.0.0'),
    manifest: Manifest.ofObjects(manifest),
    properties: [],
  }) as unknown as Release;

/** A reconcile of `ext` with 1.0.0 installed and `to` resolved and rendered as `objects`. */
function stateFor(
  annotations: Record<string, string> | undefined,
  to: string,
  objects: KubeObject[],
  installed = [role(['widgets'])],
): ExtensionState {
  const release = installedRelease(installed);
  const base = extensionState();
  const state = extensionState({
    ce: { ...base.ce, metadata: { ...base.ce.metadata, ...(annotations === undefined ? {} : { annotations }) } },
    history: [release],
    installed: release,
  });
  state.plan = makePlan(state, { bundle: bundle(to) }, { objects: Manifest.ofObjects(objects), properties: [] });
  return state;
}

function harness() {
  const registry = new Registry();
  const events: string[] = [];
  const recorder = { event: (_o, type, reason, _action, note) => void events.push(`${type} ${reason}: ${note}`) } satisfies EventRecorder;
  // The installed CRDs, read as the ServiceAccount.
  const cluster = fakeCluster();
  const scoped = { forServiceAccount: () => cluster.client };
  const step = policyStep({ upgrades: createUpgradeNotices(registry), events: recorder, scoped });
  const series = async () => ((await registry.getSingleMetric('olmv1_extension_upgrade_available')?.get())?.values ?? []).map((v) => v.labels);
  return { step, events, series, cluster };
}

const condition = (s: ExtensionState) => s.ce.status?.conditions?.find((c) => c.type === 'UpgradeAvailable');

describe('policy step', () => {
  it('without a policy leaves the move, the status and the metric alone', async () => {
    const h = harness();
    const objects = [role(['widgets', 'secrets'])];
    const s = stateFor(undefined, '2.0.0', objects);
    expect(await h.step.run(s)).toBeUndefined();
    expect(s.plan?.desired.bundle.name).toBe('p.v2.0.0');
    expect(s.plan?.desired.manifest.objects()).toBe(objects);
    expect(condition(s)).toBeUndefined();
    expect(await h.series()).toEqual([]);
  });

  it('Manual: the installed release becomes the target again, and the hold is reported once', async () => {
    const h = harness();
    const installed = [role(['widgets']), configMap('old')];
    const s = stateFor({ [UPDATE_POLICY_ANNOTATION]: 'Manual' }, '1.1.0', [role(['widgets']), configMap('new')], installed);
    await h.step.run(s);
    expect(s.plan?.target).toEqual({ bundle: bundle('1.0.0') });
    expect(s.plan?.desired.bundle).toEqual(bundle('1.0.0'));
    expect(s.plan?.desired.manifest.objects()).toEqual(installed);
    expect(s.plan?.desired.manifest).toBe(s.installed?.manifest);
    expect(condition(s)).toMatchObject({ status: 'True', reason: 'ApprovalRequired' });
    expect(condition(s)?.message).toBe(
      'bundle "p.v1.1.0" version "1.1.0" is available (installed: bundle "p.v1.0.0" version "1.0.0") and waits for approval: ' +
        'the update policy is Manual; objects: 1 added, 1 removed, 0 changed; CRD upgrade safety: no CRDs. See it with "olmv1 upgrade plan ext"; ' +
        `approve it with "olmv1 upgrade approve ext 1.1.0" (the annotation ${APPROVED_BUNDLE_ANNOTATION}=p.v1.1.0)`,
    );
    expect(await h.series()).toEqual([{ name: 'ext', from: '1.0.0', to: '1.1.0' }]);
    // The next reconcile holds the same bundle: no second Event.
    await h.step.run(stateFor({ [UPDATE_POLICY_ANNOTATION]: 'Manual' }, '1.1.0', [configMap('new')], installed));
    expect(h.events).toHaveLength(1);
    expect(h.events[0]).toMatch(/^Normal UpgradeAvailable: bundle "p\.v1\.1\.0"/);
  });

  it('an approval of the picked bundle lets it through and clears the metric', async () => {
    const h = harness();
    await h.step.run(stateFor({ [UPDATE_POLICY_ANNOTATION]: 'Manual' }, '1.1.0', [role(['widgets'])]));
    const s = stateFor({ [UPDATE_POLICY_ANNOTATION]: 'Manual', [APPROVED_BUNDLE_ANNOTATION]: 'p.v1.1.0' }, '1.1.0', [role(['widgets'])]);
    await h.step.run(s);
    expect(s.plan?.desired.bundle.name).toBe('p.v1.1.0');
    expect(condition(s)).toMatchObject({ status: 'False', reason: 'UpToDate', message: 'upgrading to bundle "p.v1.1.0" version "1.1.0" (approved)' });
    expect(await h.series()).toEqual([]);
  });

  it('AutomaticPatch: a patch release granting more permissions is held with them in the message', async () => {
    const h = harness();
    const s = stateFor({ [UPDATE_POLICY_ANNOTATION]: 'AutomaticPatch' }, '1.0.1', [role(['widgets', 'secrets'])]);
    await h.step.run(s);
    expect(s.plan?.desired.bundle.name).toBe('p.v1.0.0');
    expect(condition(s)?.message).toMatch(/waits for approval: it grants more permissions: .*secrets/);
  });

  it('AutomaticPatch: a patch release granting nothing new goes through', async () => {
    const h = harness();
    const s = stateFor({ [UPDATE_POLICY_ANNOTATION]: 'AutomaticPatch' }, '1.0.1', [role(['widgets'])]);
    await h.step.run(s);
    expect(s.plan?.desired.bundle.name).toBe('p.v1.0.1');
    expect(condition(s)?.message).toBe('upgrading to bundle "p.v1.0.1" version "1.0.1" (allowed by the update policy AutomaticPatch)');
  });

  it('reports nothing waiting when the target is the installed bundle, and drops the condition when the policy goes', async () => {
    const h = harness();
    const s = stateFor({ [UPDATE_POLICY_ANNOTATION]: 'Manual' }, '1.0.0', [role(['widgets'])]);
    await h.step.run(s);
    expect(condition(s)).toMatchObject({ status: 'False', reason: 'UpToDate', message: 'no upgrade is waiting for approval' });
    const after = stateFor({ [UPDATE_POLICY_ANNOTATION]: 'Automatic' }, '1.0.0', [role(['widgets'])]);
    after.ce.status = s.ce.status;
    await h.step.run(after);
    expect(condition(after)).toBeUndefined();
  });

  it('lets the first install through, reporting nothing waiting', async () => {
    const h = harness();
    const s = extensionState({
      ce: { ...extensionState().ce, metadata: { name: 'ext', generation: 1, annotations: { [UPDATE_POLICY_ANNOTATION]: 'Manual' } } },
    });
    s.plan = makePlan(s, { bundle: bundle('1.0.0') }, { objects: Manifest.ofObjects([]), properties: [] });
    await h.step.run(s);
    expect(s.plan.desired.bundle.name).toBe('p.v1.0.0');
    expect(condition(s)).toMatchObject({ status: 'False', reason: 'UpToDate' });
  });

  it('says what the CRD upgrade-safety preflight would make of a held bundle', async () => {
    const crd = (versions: string[], stored: string[]): KubeObject => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.p.test' },
      spec: {
        group: 'p.test',
        scope: 'Namespaced',
        names: { plural: 'widgets', kind: 'Widget' },
        versions: versions.map((name, i) => ({ name, served: true, storage: i === 0, schema: { openAPIV3Schema: { type: 'object' } } })),
      },
      status: { storedVersions: stored },
    });
    const manual = { [UPDATE_POLICY_ANNOTATION]: 'Manual' };
    const h = harness();
    const fresh = stateFor(manual, '2.0.0', [crd(['v1'], [])]);
    await h.step.run(fresh);
    expect(condition(fresh)?.message).toContain('; CRD upgrade safety: safe. ');
    h.cluster.seed(crd(['v1', 'v2'], ['v1', 'v2']));
    const dropping = stateFor(manual, '2.0.0', [crd(['v1'], [])]);
    await h.step.run(dropping);
    expect(condition(dropping)?.message).toContain('; CRD upgrade safety: unsafe changes to widgets.p.test, the upgrade would be refused. ');
    const unenforced = stateFor(manual, '2.0.0', [crd(['v1'], [])]);
    unenforced.ce.spec = { ...unenforced.ce.spec, install: { preflight: { crdUpgradeSafety: { enforcement: 'None' } } } };
    await h.step.run(unenforced);
    expect(condition(unenforced)?.message).toContain('; CRD upgrade safety: not enforced. ');
  });
});
