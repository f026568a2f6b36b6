// Operators' Upgradeable=False in operator-controller's gate (decision 0118): the holds step and
// its metric, and the condition the conditions step writes beside upstream's, which the olm
// ClusterOperator's Upgradeable then carries. End to end (olmv1 status): test/e2e/cluster-gate.test.ts.
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { NoKindMatchError, type KubeObject } from '../../shared/kube/index.ts';
import type { GateVerdict } from '../gating/index.ts';
import { holdsStep } from './holds.ts';
import { OLM_CLUSTER_OPERATOR, OLM_OPERATOR } from './openshift.ts';
import { conditionsStep, gateInputs, type GateState } from './steps.ts';

const ce = (name: string, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterExtension',
  metadata: { name, uid: name, ...(annotations === undefined ? {} : { annotations }) },
});
const hold = (message: string) => ({ 'olm.operatorframework.io/upgradeable': 'False', 'olm.operatorframework.io/upgradeable-message': message });
const newState = (): GateState => ({ log: pino({ level: 'silent' }), signal: new AbortController().signal, deployed: [], extra: [] });

describe('holds step', () => {
  it('lists the extensions that say Upgradeable=False, sorted, and counts them in the metric', async () => {
    const registry = new Registry();
    let items = [ce('zeta', hold('busy')), ce('mid', { 'olm.operatorframework.io/upgradeable': 'True' }), ce('alpha', hold('migrating'))];
    const step = holdsStep({ extensions: { list: () => items }, registry });
    const state = newState();
    await step.run(state);
    expect(state.holds).toEqual([
      { extension: 'alpha', message: 'migrating' },
      { extension: 'zeta', message: 'busy' },
    ]);
    const value = async () => (await registry.getSingleMetric('olmv1_cluster_upgrade_not_upgradeable')?.get())?.values[0]?.value;
    expect(await value()).toBe(2);
    items = [ce('zeta')];
    await step.run(newState());
    expect(await value()).toBe(0);
  });

  it('an annotation change is a gate input (the watch evaluates again)', () => {
    expect(gateInputs(ce('a', hold('x')))).not.toEqual(gateInputs(ce('a')));
    expect(gateInputs(ce('a', hold('x')))).not.toEqual(gateInputs(ce('a', hold('y'))));
  });
});

describe('conditions step with holds', () => {
  const allowed: GateVerdict = { current: '4.18', next: '4.19', upgradeable: true, blockers: [], errors: [], maxVersions: {} };

  function cluster() {
    const objects = new Map<string, KubeObject>([
      [OLM_OPERATOR.kind, { apiVersion: OLM_OPERATOR.apiVersion, kind: OLM_OPERATOR.kind, metadata: { name: OLM_OPERATOR.name }, status: {} }],
      [
        OLM_CLUSTER_OPERATOR.kind,
        { apiVersion: OLM_CLUSTER_OPERATOR.apiVersion, kind: OLM_CLUSTER_OPERATOR.kind, metadata: { name: OLM_CLUSTER_OPERATOR.name }, status: {} },
      ],
    ]);
    const client = {
      get: <T extends KubeObject>(ref: { kind: string }) => {
        const obj = objects.get(ref.kind);
        if (obj === undefined) return Promise.reject(new NoKindMatchError({ group: 'openshift.io', version: 'v1', kind: ref.kind }));
        return Promise.resolve(structuredClone(obj) as T);
      },
      updateStatus: <T extends KubeObject>(obj: KubeObject) => {
        objects.set(obj.kind, obj);
        return Promise.resolve(obj as T);
      },
    };
    const conditions = (kind: string) =>
      ((objects.get(kind)?.status as { conditions?: Array<Record<string, unknown>> } | undefined)?.conditions ?? []).map(
        ({ type, status, reason, message }) => ({ type, status, reason, message }),
      );
    return { step: conditionsStep({ client, now: () => new Date('2026-03-01T00:00:00Z') }), conditions };
  }

  it('writes ClusterExtensionsUpgradeable=False beside upstream condition, and the ClusterOperator carries it', async () => {
    const c = cluster();
    await c.step.run({ ...newState(), verdict: allowed, holds: [{ extension: 'a', message: 'migrating' }] });
    expect(c.conditions(OLM_OPERATOR.kind)).toEqual([
      { type: 'InstalledOLMOperatorsUpgradeable', status: 'True', reason: '', message: '' },
      {
        type: 'ClusterExtensionsUpgradeable',
        status: 'False',
        reason: 'UpgradeableFalse',
        message: 'ClusterExtension "a": Upgradeable=False: migrating',
      },
    ]);
    expect(c.conditions(OLM_CLUSTER_OPERATOR.kind)).toEqual([
      {
        type: 'Upgradeable',
        status: 'False',
        reason: 'ClusterExtensions_UpgradeableFalse',
        message: 'ClusterExtensionsUpgradeable: ClusterExtension "a": Upgradeable=False: migrating',
      },
    ]);
    // Lifted: set back to True, and the ClusterOperator follows.
    await c.step.run({ ...newState(), verdict: allowed, holds: [] });
    expect(c.conditions(OLM_OPERATOR.kind)[1]).toEqual({ type: 'ClusterExtensionsUpgradeable', status: 'True', reason: '', message: '' });
    expect(c.conditions(OLM_CLUSTER_OPERATOR.kind)[0]).toMatchObject({ status: 'True', reason: 'AsExpected' });
  });

  it('writes nothing of its own when no operator ever held', async () => {
    const c = cluster();
    await c.step.run({ ...newState(), verdict: allowed, holds: [] });
    expect(c.conditions(OLM_OPERATOR.kind).map((x) => x.type)).toEqual(['InstalledOLMOperatorsUpgradeable']);
  });
});
