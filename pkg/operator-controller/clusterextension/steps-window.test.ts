// The maintenance-window step (decision 0122): outside its window a move to another bundle is
// held (the installed release stays the target), the condition and one Event say when the
// window opens, and the reconcile comes back then; never a first install, a re-apply or an
// approved upgrade. End to end: test/e2e/maintenance-window.test.ts.
import { describe, expect, it } from 'vitest';
import { APPROVED_BUNDLE_ANNOTATION } from '../../shared/api/index.ts';
import type { EventRecorder, KubeObject } from '../../shared/kube/index.ts';
import { MAINTENANCE_WINDOW_ANNOTATION, parseMaintenanceWindow } from '../maintenance/index.ts';
import { Manifest } from '../release/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { makePlan } from './plan.ts';
import { MAX_WINDOW_REQUEUE_MS, windowStep } from './steps-window.ts';
import { bundleOfP, deployedState } from '../../../test/support/extension-state.ts';

const bundle = bundleOfP;
const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { a: name } });

function stateFor(annotations: Record<string, string> | undefined, to: string, installedVersion: string | null = '1.0.0'): ExtensionState {
  const state = deployedState(annotations, installedVersion);
  state.plan = makePlan(state, { bundle: bundle(to) }, { objects: Manifest.ofObjects([configMap('new')]), properties: [] });
  return state;
}

// Wednesday 2026-06-10 12:00 UTC (14:00 in Berlin).
const NOW = Date.parse('2026-06-10T12:00:00Z');

function harness(o: { clusterDefault?: string; now?: number } = {}) {
  const events: string[] = [];
  const recorder = { event: (_o, type, reason, _action, note) => void events.push(`${type} ${reason}: ${note}`) } satisfies EventRecorder;
  let clusterDefault;
  if (o.clusterDefault !== undefined) {
    const w = parseMaintenanceWindow(o.clusterDefault);
    if (!w.ok) throw new Error(w.error);
    clusterDefault = w.value;
  }
  const step = windowStep({ events: recorder, now: () => o.now ?? NOW, ...(clusterDefault === undefined ? {} : { clusterDefault }) });
  return { step, events };
}

const condition = (s: ExtensionState) => s.ce.status?.conditions?.find((c) => c.type === 'UpgradeAvailable');
const saturdays = { [MAINTENANCE_WINDOW_ANNOTATION]: '0 2 * * SAT 4h Europe/Berlin' };

describe('window step', () => {
  it('outside the window: the installed release stays the target, the condition and one Event say when it opens, back then', async () => {
    const h = harness();
    const s = stateFor(saturdays, '1.1.0');
    const outcome = await h.step.run(s);
    expect(s.plan?.desired.bundle).toEqual(bundle('1.0.0'));
    expect(s.plan?.desired.manifest).toBe(s.installed?.manifest);
    // Saturday 02:00 in Berlin (summer time) is 00:00 UTC, 2.5 days away: back in a day (then at the opening, below).
    expect(outcome).toEqual({ requeueAfterMs: MAX_WINDOW_REQUEUE_MS });
    expect(condition(s)).toMatchObject({ status: 'True', reason: 'OutsideMaintenanceWindow' });
    expect(condition(s)?.message).toBe(
      'bundle "p.v1.1.0" version "1.1.0" is available (installed: bundle "p.v1.0.0" version "1.0.0") and waits for the maintenance window ' +
        `"0 2 * * SAT 4h Europe/Berlin" (the annotation ${MAINTENANCE_WINDOW_ANNOTATION}): it opens at 2026-06-13T00:00:00Z (2026-06-13 02:00 Europe/Berlin); ` +
        `or approve it to upgrade now with "olmv1 upgrade approve ext 1.1.0" (the annotation ${APPROVED_BUNDLE_ANNOTATION}=p.v1.1.0)`,
    );
    expect(h.events).toEqual([`Normal UpgradeHeld: ${condition(s)?.message}`]);
    // Held again: no second Event; a newer bundle is announced.
    await h.step.run(stateFor(saturdays, '1.1.0'));
    expect(h.events).toHaveLength(1);
    await h.step.run(stateFor(saturdays, '1.2.0'));
    expect(h.events).toHaveLength(2);
  });

  it('inside the window the move goes ahead, nothing reported', async () => {
    const h = harness({ now: Date.parse('2026-06-13T03:59:00Z') });
    const s = stateFor(saturdays, '1.1.0');
    expect(await h.step.run(s)).toBeUndefined();
    expect(s.plan?.desired.bundle.name).toBe('p.v1.1.0');
    expect(condition(s)).toBeUndefined();
    expect(h.events).toEqual([]);
  });

  it('never holds a first install, nor the installed bundle re-applied', async () => {
    const h = harness();
    const first = stateFor(saturdays, '1.1.0', null);
    expect(await h.step.run(first)).toBeUndefined();
    expect(first.plan?.desired.bundle.name).toBe('p.v1.1.0');
    const same = stateFor(saturdays, '1.0.0');
    expect(await h.step.run(same)).toBeUndefined();
    expect(condition(same)).toBeUndefined();
    expect(h.events).toEqual([]);
  });

  it('an upgrade approved for that bundle goes at once; an approval of another bundle does not', async () => {
    const h = harness();
    const approved = stateFor({ ...saturdays, [APPROVED_BUNDLE_ANNOTATION]: 'p.v1.1.0' }, '1.1.0');
    expect(await h.step.run(approved)).toBeUndefined();
    expect(approved.plan?.desired.bundle.name).toBe('p.v1.1.0');
    const stale = stateFor({ ...saturdays, [APPROVED_BUNDLE_ANNOTATION]: 'p.v1.1.0' }, '1.2.0');
    expect(await h.step.run(stale)).toMatchObject({ requeueAfterMs: expect.any(Number) });
    expect(stale.plan?.desired.bundle.name).toBe('p.v1.0.0');
  });

  it('the cluster-wide default holds extensions without the annotation; None opts out; the annotation wins', async () => {
    const h = harness({ clusterDefault: '0 3 * * * 1h' });
    const plain = stateFor(undefined, '1.1.0');
    // Back exactly at the opening, 15 hours away.
    expect(await h.step.run(plain)).toEqual({ requeueAfterMs: Date.parse('2026-06-11T03:00:00Z') - NOW });
    expect(condition(plain)?.message).toContain(`"0 3 * * * 1h" (operator-controller's --maintenance-window): it opens at 2026-06-11T03:00:00Z;`);
    const optedOut = stateFor({ [MAINTENANCE_WINDOW_ANNOTATION]: 'None' }, '1.1.0');
    expect(await h.step.run(optedOut)).toBeUndefined();
    expect(optedOut.plan?.desired.bundle.name).toBe('p.v1.1.0');
    const own = stateFor({ [MAINTENANCE_WINDOW_ANNOTATION]: '0 12 * * * 1h' }, '1.1.0');
    expect(await h.step.run(own)).toBeUndefined();
  });

  it('an annotation that is not a window holds the upgrade, and a Warning Event says why (once)', async () => {
    const h = harness();
    const s = stateFor({ [MAINTENANCE_WINDOW_ANNOTATION]: 'weekends 4h' }, '1.1.0');
    expect(await h.step.run(s)).toBeUndefined();
    expect(s.plan?.desired.bundle.name).toBe('p.v1.0.0');
    expect(condition(s)).toMatchObject({ status: 'True', reason: 'InvalidMaintenanceWindow' });
    expect(condition(s)?.message).toMatch(
      new RegExp(`the annotation ${MAINTENANCE_WINDOW_ANNOTATION} "weekends 4h" is not a maintenance window: a schedule and a duration are required`),
    );
    expect(condition(s)?.message).toContain('set it to None for no window');
    await h.step.run(stateFor({ [MAINTENANCE_WINDOW_ANNOTATION]: 'weekends 4h' }, '1.1.0'));
    expect(h.events).toHaveLength(1);
    expect(h.events[0]).toMatch(/^Warning UpgradeHeld: /);
  });

  it('a window weeks away is waited for a day at a time', async () => {
    const h = harness();
    const s = stateFor({ [MAINTENANCE_WINDOW_ANNOTATION]: '0 0 1 1 * 1h' }, '1.1.0');
    expect(await h.step.run(s)).toEqual({ requeueAfterMs: MAX_WINDOW_REQUEUE_MS });
    expect(condition(s)?.message).toContain('it opens at 2027-01-01T00:00:00Z');
  });

  it('an extension no longer held is announced again when held again', async () => {
    const h = harness();
    await h.step.run(stateFor(saturdays, '1.1.0'));
    await h.step.run(stateFor(undefined, '1.1.0'));
    await h.step.run(stateFor(saturdays, '1.1.0'));
    expect(h.events).toHaveLength(2);
  });
});
