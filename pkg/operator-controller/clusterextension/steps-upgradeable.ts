/**
 * The Upgradeable step (decision 0118), right after the policy step: while the extension's
 * operator says `Upgradeable=False` (the annotation pair of pkg/operator-controller/gating,
 * OLM classic's OperatorCondition in OLM v1), a move from the installed bundle to another is
 * held, whatever the update policy or an approval says. As a held approval, the installed
 * release stays the target, so the reconcile goes on as when nothing new is offered (the record
 * re-applied, drift repaired). Our UpgradeAvailable condition (True, reason
 * `UpgradeableFalse`) and one Event per held bundle and message name the operator's message;
 * upstream's conditions are untouched. A first install is never held.
 */
import { UpgradeConditionType } from '../../shared/api/index.ts';
import type { Step, StepOutcome } from '../../shared/controller/index.ts';
import type { EventRecorder } from '../../shared/kube/index.ts';
import { formatUpgradeHold, upgradeHoldOf, UPGRADEABLE_ANNOTATION } from '../gating/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { recordEvent } from './recorded-events.ts';
import { setCondition } from './status.ts';
import { makePlan, recordedContent } from './plan.ts';
import { plannedStep } from './phases.ts';

/** The UpgradeAvailable reason while the operator's Upgradeable=False holds an upgrade. */
const UPGRADEABLE_FALSE_REASON = 'UpgradeableFalse';

/** What the step uses: the Events recorder. */
interface UpgradeablePorts {
  events: EventRecorder;
}

/** Holds the move to the resolved bundle while the operator says Upgradeable=False; see the module comment. */
export function upgradeableStep(ports: UpgradeablePorts): Step<ExtensionState> {
  // What was announced per extension (bundle and message), so an Event is recorded once per change.
  const announced = new Map<string, string>();
  return plannedStep('upgradeable', (state): StepOutcome => {
    const name = state.ce.metadata.name;
    const hold = upgradeHoldOf(name, state.ce.metadata.annotations);
    const installed = state.installed;
    const plan = state.plan;
    if (hold === undefined || installed === undefined || plan.desired.bundle.name === installed.bundle.name) {
      announced.delete(name);
      return undefined;
    }
    const to = plan.desired.bundle;
    const message =
      `bundle ${JSON.stringify(to.name)} version ${JSON.stringify(to.version)} is available (installed: bundle ` +
      `${JSON.stringify(installed.bundle.name)} version ${JSON.stringify(installed.bundle.version)}) and is held: the operator reports ` +
      `${formatUpgradeHold(hold)} (the annotation ${UPGRADEABLE_ANNOTATION}; the upgrade goes ahead once it is no longer False)`;
    setCondition(state.ce, UpgradeConditionType.UpgradeAvailable, 'True', UPGRADEABLE_FALSE_REASON, message);
    const key = `${to.name}\u0000${hold.message}`;
    if (announced.get(name) !== key) {
      announced.set(name, key);
      recordEvent(ports.events, state, 'UpgradeHeld', message);
    }
    state.log.info({ from: installed.bundle.name, to: to.name }, 'upgrade held: the operator reports Upgradeable=False');
    state.plan = makePlan(state, { ...plan.target, bundle: installed.bundle }, recordedContent(installed));
    return undefined;
  });
}
