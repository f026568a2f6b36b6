/**
 * The maintenance-window step (decision 0122), right after the policy step: a move from the
 * installed bundle to another that the update policy lets go waits, outside the extension's
 * maintenance window (its annotation, else operator-controller's `--maintenance-window`), for
 * the window to open. As a held approval, the installed release stays the target; our
 * UpgradeAvailable condition (True, reason `OutsideMaintenanceWindow`) and one Event per held
 * bundle and opening say when the window opens, and the reconcile stops there (the deployed
 * release kept and its drift repaired by the apply step) to come back at the opening.
 *
 * Never held: a first install, and an upgrade approved for that very bundle (the update
 * policy's approval annotation: the administrator chose now). An annotation that is not a
 * window holds the upgrade as a Manual policy would, and says why (a Warning Event): whoever
 * wrote it asked for upgrades at chosen times only.
 */
import { APPROVED_BUNDLE_ANNOTATION, CLUSTER_EXTENSION, UpgradeConditionType, type ClusterExtension } from '../../shared/api/index.ts';
import type { Step, StepOutcome } from '../../shared/controller/index.ts';
import type { EventRecorder } from '../../shared/kube/index.ts';
import { formatOpening, MAINTENANCE_WINDOW_ANNOTATION, windowAt, windowSetting, type MaintenanceWindow } from '../maintenance/index.ts';
import type { ReleaseBundle } from '../release/index.ts';
import type { ExtensionState, PlannedState } from './pipeline-state.ts';
import { plannedStep } from './phases.ts';
import { makePlan, recordedContent } from './plan.ts';
import { setCondition } from './status.ts';

/** UpgradeAvailable's reason while a window holds an upgrade. */
const OUTSIDE_WINDOW_REASON = 'OutsideMaintenanceWindow';
/** UpgradeAvailable's reason while an annotation that is not a window holds an upgrade. */
const INVALID_WINDOW_REASON = 'InvalidMaintenanceWindow';
/**
 * The longest a held reconcile waits to come back: an opening further away is reached in
 * steps of this (timers do not run past 24.8 days, and a day bounds the effect of a clock set
 * wrong).
 */
export const MAX_WINDOW_REQUEUE_MS = 24 * 60 * 60 * 1000;

/** What the step uses. */
interface WindowPorts {
  events: EventRecorder;
  /** The cluster-wide default (`--maintenance-window`); none: only annotated extensions wait. */
  clusterDefault?: MaintenanceWindow;
  /** The clock (ms since the epoch); Date.now by default. */
  now?: () => number;
}

/** Holds an automatic upgrade until the extension's maintenance window; see the module comment. */
export function windowStep(ports: WindowPorts): Step<ExtensionState> {
  const now = ports.now ?? Date.now;
  // What was announced per extension (bundle, window, opening), so an Event is recorded once per change.
  const announced = new Map<string, string>();
  return plannedStep('window', (state): StepOutcome => {
    const name = state.ce.metadata.name;
    const installed = state.installed;
    const to = state.plan.desired.bundle;
    const annotations = state.ce.metadata.annotations;
    const setting = windowSetting(annotations, ports.clusterDefault);
    if (setting.kind === 'none' || installed === undefined || to.name === installed.bundle.name) {
      announced.delete(name);
      return undefined;
    }
    if ((annotations?.[APPROVED_BUNDLE_ANNOTATION] ?? '').trim() === to.name) {
      announced.delete(name);
      state.log.info({ from: installed.bundle.name, to: to.name }, 'approved upgrade goes ahead whatever the maintenance window');
      return undefined;
    }
    const offer = `${bundleText(to)} is available (installed: ${bundleText(installed.bundle)})`;
    const approve = `approve it to upgrade now with "olmv1 upgrade approve ${name} ${to.version}" (the annotation ${APPROVED_BUNDLE_ANNOTATION}=${to.name})`;
    if (setting.kind === 'invalid') {
      const message =
        `${offer} and is held: the annotation ${MAINTENANCE_WINDOW_ANNOTATION} ${JSON.stringify(setting.text)} is not a maintenance window: ` +
        `${setting.error}; correct it (or set it to None for no window), or ${approve}`;
      hold(state, INVALID_WINDOW_REASON, message);
      announce(ports.events, announced, state.ce, `${to.name}\u0000invalid\u0000${setting.text}`, 'Warning', message);
      state.log.info({ from: installed.bundle.name, to: to.name }, 'upgrade held: the maintenance window annotation is invalid');
      return undefined;
    }
    const window = setting.window;
    const at = now();
    const verdict = windowAt(window, at);
    if (verdict.open) {
      announced.delete(name);
      return undefined;
    }
    const source = setting.from === 'annotation' ? `the annotation ${MAINTENANCE_WINDOW_ANNOTATION}` : `operator-controller's --maintenance-window`;
    const when = verdict.opensAt === undefined ? 'it does not open within 28 years' : `it opens at ${formatOpening(window, verdict.opensAt)}`;
    const message = `${offer} and waits for the maintenance window ${JSON.stringify(window.text)} (${source}): ${when}; or ${approve}`;
    hold(state, OUTSIDE_WINDOW_REASON, message);
    announce(ports.events, announced, state.ce, `${to.name}\u0000${window.text}\u0000${verdict.opensAt ?? ''}`, 'Normal', message);
    state.log.info({ from: installed.bundle.name, to: to.name, opensAt: verdict.opensAt }, 'upgrade held until the maintenance window');
    if (verdict.opensAt === undefined) return undefined;
    // Back at the opening: the reconcile stops here, the apply step keeping the deployed release.
    return { requeueAfterMs: Math.min(Math.max(verdict.opensAt - at, 1000), MAX_WINDOW_REQUEUE_MS) };
  });
}

/** The installed release stays the target, and UpgradeAvailable says why. */
function hold(state: PlannedState, reason: string, message: string): void {
  const installed = state.installed;
  if (installed === undefined) return;
  setCondition(state.ce, UpgradeConditionType.UpgradeAvailable, 'True', reason, message);
  state.plan = makePlan(state, { ...state.plan.target, bundle: installed.bundle }, recordedContent(installed));
}

function announce(
  events: EventRecorder,
  announced: Map<string, string>,
  ce: ClusterExtension,
  key: string,
  type: 'Normal' | 'Warning',
  note: string,
): void {
  if (announced.get(ce.metadata.name) === key) return;
  announced.set(ce.metadata.name, key);
  events.event({ apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, metadata: ce.metadata }, type, 'UpgradeHeld', 'Hold', note);
}

function bundleText(b: Pick<ReleaseBundle, 'name' | 'version'>): string {
  return `bundle ${JSON.stringify(b.name)} version ${JSON.stringify(b.version)}`;
}
