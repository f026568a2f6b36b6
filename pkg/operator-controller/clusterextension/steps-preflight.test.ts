// The preflight step with a fake ServiceAccount client (what it reads, when it skips, how it
// reports); the end-to-end behaviour is test/e2e/operator-controller-crd-upgrade.test.ts.
import { describe, expect, it } from 'vitest';
import { ApiError, type EventRecorder, type KubeClient, type KubeObject, type ObjectRef } from '../../shared/kube/index.ts';
import { Manifest, type Release } from '../release/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { makePlan } from './plan.ts';
import { preflightStep, type PreflightPorts } from './steps-preflight.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { revisionRecord } from '../../../test/support/revision-fixtures.ts';

function crd(name: string, props: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: props } } }],
    },
    status: { storedVersions: ['v1'] },
  };
}

/** Ports whose ServiceAccount client answers GETs from `cluster` (an Error is thrown); `reads` records them. */
function depsWith(cluster: Record<string, KubeObject | Error>, reads: string[], events: string[] = []): PreflightPorts {
  const c = fakeCluster();
  for (const [name, found] of Object.entries(cluster)) {
    if (found instanceof Error) c.refuse(`get CustomResourceDefinition ${name}`, found);
    else c.seed(found);
  }
  // The step reads with `get` only.
  const client: KubeClient = {
    ...c.client,
    get: <T extends KubeObject>(ref: ObjectRef, o?: { signal?: AbortSignal }) => {
      reads.push(ref.name);
      return c.client.get<T>(ref, o);
    },
  };
  const scoped = { forServiceAccount: () => client } satisfies PreflightPorts['scoped'];
  const recorder = { event: (_o, type, reason, _action, note) => void events.push(`${type} ${reason}: ${note}`) } satisfies EventRecorder;
  return { scoped, events: recorder };
}

const preflight = async (ports: PreflightPorts, state: ExtensionState) => preflightStep(ports).run(state);

function stateWith(objects: KubeObject[], install?: object): ExtensionState {
  const s = extensionState(install === undefined ? {} : { spec: { install } });
  const bundle = { package: 'p', name: 'p.v2.0.0', version: '2.0.0', image: 'img' };
  s.plan = makePlan(s, { bundle }, { objects: Manifest.ofObjects(objects), properties: [] });
  return s;
}

function progressing(state: ExtensionState): unknown {
  return state.ce.status?.conditions?.find((c) => c.type === 'Progressing');
}

describe('preflight step', () => {
  const installed = crd('a.example.com', { spec: { type: 'object', properties: { x: { type: 'string' } } } });
  const unsafe = crd('a.example.com', { spec: { type: 'object', properties: { x: { type: 'integer' } } } });
  const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } };

  it('fails with every unsafe CRD, reads only CRDs, and a CRD not in the cluster passes', async () => {
    const reads: string[] = [];
    const other = crd('b.example.com', { spec: { type: 'string' } });
    const state = stateWith([cm, unsafe, crd('new.example.com', {}), other]);
    const events: string[] = [];
    const deps = depsWith({ 'a.example.com': installed, 'b.example.com': crd('b.example.com', { spec: { type: 'object' } }) }, reads, events);
    await expect(preflight(deps, state)).rejects.toThrow(
      'error for resolved bundle "p.v2.0.0" with version "2.0.0": validating upgrade for CRD "a.example.com": v1: ^.spec.x: type: type changed : "string" -> "integer"\n' +
        'validating upgrade for CRD "b.example.com": v1: ^.spec: type: type changed : "object" -> "string"',
    );
    expect(reads).toEqual(['a.example.com', 'new.example.com', 'b.example.com']);
    expect(events).toEqual([
      'Warning PreflightFailed: CRD upgrade safety check refused bundle p.v2.0.0 (version 2.0.0): unsafe changes to CustomResourceDefinition a.example.com, b.example.com',
    ]);
    expect(progressing(state)).toMatchObject({ status: 'True', reason: 'Retrying' });
    expect(state.ce.status?.conditions?.find((c) => c.type === 'Installed')).toMatchObject({
      status: 'False',
      message: 'No bundle installed',
    });
  });

  it('passes a safe change', async () => {
    const reads: string[] = [];
    await expect(preflight(depsWith({ 'a.example.com': installed }, reads), stateWith([installed]))).resolves.toBeUndefined();
    expect(reads).toEqual(['a.example.com']);
  });

  it('reads nothing when enforcement is None', async () => {
    const reads: string[] = [];
    const state = stateWith([unsafe], { preflight: { crdUpgradeSafety: { enforcement: 'None' } } });
    await expect(preflight(depsWith({ 'a.example.com': installed }, reads), state)).resolves.toBeUndefined();
    expect(reads).toEqual([]);
  });

  it('reads nothing when the release equals the deployed one', async () => {
    const reads: string[] = [];
    const state = stateWith([unsafe]);
    if (state.plan !== undefined) state.plan = { ...state.plan, unchanged: true };
    await expect(preflight(depsWith({ 'a.example.com': installed }, reads), state)).resolves.toBeUndefined();
    expect(reads).toEqual([]);
  });

  it('BoxcutterRuntime: reads nothing when the release is the revision rolling out (checked before it was written)', async () => {
    const reads: string[] = [];
    const state = stateWith([unsafe]);
    const desired = state.plan?.desired;
    if (desired === undefined) throw new Error('no plan');
    state.history = [revisionRecord(desired)];
    state.plan = makePlan(state, state.plan?.target ?? { bundle: desired.bundle }, { objects: desired.manifest, properties: [] });
    await expect(preflight(depsWith({ 'a.example.com': installed }, reads), state)).resolves.toBeUndefined();
    expect(reads).toEqual([]);
  });

  it("reports a read error other than not found with upstream's text", async () => {
    const forbidden = new ApiError(403, 'Forbidden', 'customresourcedefinitions.apiextensions.k8s.io "a.example.com" is forbidden');
    const state = stateWith([unsafe]);
    await expect(preflight(depsWith({ 'a.example.com': forbidden }, []), state)).rejects.toThrow(
      'error for resolved bundle "p.v2.0.0" with version "2.0.0": getting existing resource for CRD "a.example.com": customresourcedefinitions.apiextensions.k8s.io "a.example.com" is forbidden',
    );
  });

  it('does not read a CRD the upgrade leaves as the deployed revision applied it and in sync; reads it otherwise', async () => {
    const other = crd('b.example.com', { spec: { type: 'object' } });
    const release = (revision: number, status: Release['status']): Release => ({
      extension: 'ext',
      extensionUID: 'u',
      revision,
      status,
      bundle: { package: 'p', name: 'p.v1.0.0', version: '1.0.0', image: 'img' },
      manifest: Manifest.ofObjects([installed, other]),
      properties: [],
      description: 'Install complete',
    });
    const run = async (history: Release[], inSync: boolean): Promise<string[]> => {
      const reads: string[] = [];
      const state = stateWith([installed, crd('b.example.com', { spec: { type: 'string' } })]);
      state.history = history;
      state.installed = history.find((r) => r.status === 'deployed');
      const deps = { ...depsWith({ 'a.example.com': installed, 'b.example.com': other }, reads), drift: { inSync: () => inSync } };
      await preflight(deps, state).catch(() => undefined);
      return reads;
    };
    expect(await run([release(1, 'deployed')], true)).toEqual(['b.example.com']);
    expect(await run([release(1, 'deployed')], false)).toEqual(['a.example.com', 'b.example.com']);
    // A failed revision since the deployed one may have applied another version of it.
    expect(await run([release(2, 'failed'), release(1, 'deployed')], true)).toEqual(['a.example.com', 'b.example.com']);
  });

  it('names the failing stored objects by default; with the opt-in, lets a tightening through when every stored object passes', async () => {
    const widgets = (props: Record<string, unknown>): KubeObject => {
      const c = crd('widgets.example.com', { spec: { type: 'object', properties: props } });
      return { ...c, spec: { ...(c['spec'] as object), group: 'example.com', names: { kind: 'Widget', plural: 'widgets' } } };
    };
    const loose = widgets({ replicas: { type: 'integer' } });
    const tight = widgets({ replicas: { type: 'integer', maximum: 5 } });
    const widget = (name: string, replicas: number): KubeObject => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name, namespace: 'ns' },
      spec: { replicas },
    });
    const run = async (annotated: boolean, stored: KubeObject[]): Promise<{ events: string[]; result: unknown }> => {
      const events: string[] = [];
      const deps = depsWith(
        { 'widgets.example.com': loose, ...Object.fromEntries(stored.map((w) => [`w:${w.metadata.name ?? ''}`, w])) },
        [],
        events,
      );
      const state = stateWith([tight]);
      if (annotated) state.ce.metadata.annotations = { 'olm.operatorframework.io/crd-upgrade-check-stored-objects': 'true' };
      const result = await preflight(deps, state).then(
        () => 'passed',
        (e: unknown) => (e as Error).message,
      );
      return { events, result };
    };
    const upstream =
      'error for resolved bundle "p.v2.0.0" with version "2.0.0": validating upgrade for CRD "widgets.example.com": v1: ^.spec.replicas: maximum: maximum constraint added when there was none previously : 5';
    // Without the opt-in: upstream's verdict, the stored objects named in the Event (decision 0129).
    expect(await run(false, [widget('a', 1)])).toEqual({
      result: upstream,
      events: [
        'Warning PreflightFailed: CRD upgrade safety check refused bundle p.v2.0.0 (version 2.0.0): unsafe changes to CustomResourceDefinition widgets.example.com; ' +
          'CRD widgets.example.com: all 1 stored objects pass the new schema (the annotation olm.operatorframework.io/crd-upgrade-check-stored-objects=true would let it through)',
      ],
    });
    expect(await run(false, [widget('a', 1), widget('b', 9)])).toEqual({
      result: upstream,
      events: [
        'Warning PreflightFailed: CRD upgrade safety check refused bundle p.v2.0.0 (version 2.0.0): unsafe changes to CustomResourceDefinition widgets.example.com; ' +
          'CRD widgets.example.com: 1 of 2 stored objects fail the new schema: ns/b (spec.replicas: Invalid value: 9: spec.replicas in body should be less than or equal to 5)',
      ],
    });
    expect(await run(true, [widget('a', 1)])).toEqual({ result: 'passed', events: [] });
    expect(await run(true, [widget('a', 1), widget('b', 9)])).toEqual({
      result: upstream,
      events: [
        'Warning PreflightFailed: CRD upgrade safety check refused bundle p.v2.0.0 (version 2.0.0): unsafe changes to CustomResourceDefinition widgets.example.com; ' +
          'CRD widgets.example.com: 1 of 2 stored objects fail the new schema: ns/b (spec.replicas: Invalid value: 9: spec.replicas in body should be less than or equal to 5)',
      ],
    });
  });
});
