// The Upgradeable step (decision 0118): an operator's Upgradeable=False holds a move to another
// bundle, never a first install nor a re-apply, and lets it go once the annotation is gone.
// End to end: test/e2e/cluster-gate.test.ts.
import { describe, expect, it } from 'vitest';
import type { EventRecorder, KubeObject } from '../../shared/kube/index.ts';
import { UPGRADEABLE_ANNOTATION, UPGRADEABLE_MESSAGE_ANNOTATION } from '../gating/index.ts';
import { Manifest } from '../release/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { makePlan } from './plan.ts';
import { upgradeableStep } from './steps-upgradeable.ts';
import { bundleOfP, deployedState } from '../../../test/support/extension-state.ts';

const bundle = bundleOfP;
const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { a: name } });

function stateFor(annotations: Record<string, string> | undefined, to: string, installedVersion: string | null = '1.0.0'): ExtensionState {
  const state = deployedState(annotations, installedVersion);
  state.plan = makePlan(state, { bundle: bundle(to) }, { objects: Manifest.ofObjects([configMap('new')]), properties: [] });
  return state;
}

function harness() {
  const events: string[] = [];
  const recorder = { event: (_o, type, reason, _action, note) => void events.push(`${type} ${reason}: ${note}`) } satisfies EventRecorder;
  return { step: upgradeableStep({ events: recorder }), events };
}

const condition = (s: ExtensionState) => s.ce.status?.conditions?.find((c) => c.type === 'UpgradeAvailable');
const held = { [UPGRADEABLE_ANNOTATION]: 'False', [UPGRADEABLE_MESSAGE_ANNOTATION]: 'migrating the widget store' };

describe('upgradeable step', () => {
  it('Upgradeable=False: the installed release stays the target; the condition and one Event name the message', async () => {
    const h = harness();
    const s = stateFor(held, '1.1.0');
    await h.step.run(s);
    expect(s.plan?.desired.bundle).toEqual(bundle('1.0.0'));
    expect(s.plan?.desired.manifest).toBe(s.installed?.manifest);
    expect(condition(s)).toMatchObject({ status: 'True', reason: 'UpgradeableFalse' });
    expect(condition(s)?.message).toBe(
      'bundle "p.v1.1.0" version "1.1.0" is available (installed: bundle "p.v1.0.0" version "1.0.0") and is held: the operator reports ' +
        `Upgradeable=False: migrating the widget store (the annotation ${UPGRADEABLE_ANNOTATION}; the upgrade goes ahead once it is no longer False)`,
    );
    await h.step.run(stateFor(held, '1.1.0'));
    expect(h.events).toHaveLength(1);
    expect(h.events[0]).toMatch(/^Normal UpgradeHeld: .*Upgradeable=False: migrating the widget store/);
    // A new message is announced again.
    await h.step.run(stateFor({ ...held, [UPGRADEABLE_MESSAGE_ANNOTATION]: 'almost done' }, '1.1.0'));
    expect(h.events).toHaveLength(2);
  });

  it.each([
    ['no annotation', undefined],
    ['Upgradeable=True', { [UPGRADEABLE_ANNOTATION]: 'True' }],
    ['a value that is not exactly False', { [UPGRADEABLE_ANNOTATION]: 'false' }],
  ])('%s: the move goes ahead, nothing reported', async (_what, annotations) => {
    const h = harness();
    const s = stateFor(annotations, '1.1.0');
    await h.step.run(s);
    expect(s.plan?.desired.bundle.name).toBe('p.v1.1.0');
    expect(condition(s)).toBeUndefined();
    expect(h.events).toEqual([]);
  });

  it('never holds a first install, nor the installed bundle re-applied', async () => {
    const h = harness();
    const first = stateFor(held, '1.1.0', null);
    await h.step.run(first);
    expect(first.plan?.desired.bundle.name).toBe('p.v1.1.0');
    const same = stateFor(held, '1.0.0');
    await h.step.run(same);
    expect(condition(same)).toBeUndefined();
    expect(h.events).toEqual([]);
  });
});
