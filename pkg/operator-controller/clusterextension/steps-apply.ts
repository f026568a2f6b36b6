/**
 * The writing steps of a ClusterExtension reconcile: pre-authorization of the extension's
 * ServiceAccount, then the apply through the Applier port: the planned release, or, when an
 * earlier step stopped the reconcile, the deployed release kept (drift repair); and the success
 * status.
 */
import type { Applier } from '../applier/index.ts';
import { POLL, type Step, type StepOutcome } from '../../shared/controller/index.ts';
import type { EventRecorder } from '../../shared/kube/index.ts';
import type { Release } from '../release/index.ts';
import { deprecationConditions, resolve } from '../resolve/index.ts';
import { fail, forBundle } from './failures.ts';
import { finalStep, plannedStep } from './phases.ts';
import type { ExtensionState, Plan, PlannedState, ValidatedState } from './pipeline-state.ts';
import {
  preAuthorizationNote,
  recordApplyFailed,
  recordDeployed,
  recordDriftRepaired,
  recordEvent,
  recordRevisionCreated,
} from './recorded-events.ts';
import { setDeprecation, setFromRollout, setInstalledFrom, setProgressingRetrying, setProgressingSucceeded } from './status.ts';

/** What the preauthorize and apply steps use: the Applier port and the Events recorder. */
export interface ApplyPorts {
  applier: Applier;
  events: EventRecorder;
}

/** The request the Applier is given for this reconcile's extension. */
function applyRequest({ ce, installer, history, log, signal }: ValidatedState) {
  const { name, uid = '', generation } = ce.metadata;
  const extension = { name, uid, installNamespace: ce.spec.namespace, progressDeadlineMinutes: ce.spec.progressDeadlineMinutes, generation };
  return { extension, installer, history, log, signal };
}

/**
 * Before anything new is written, checks as the ServiceAccount every permission the release
 * needs; all missing ones are reported at once and the step waits (polling) until they are
 * granted. Skipped when the release is unchanged (nothing new to authorize) or is the revision
 * rolling out (`written`: authorized before it was written).
 */
export function preauthorizeStep(ports: ApplyPorts): Step<ExtensionState> {
  return plannedStep('preauthorize', (state) => preauthorize(ports, state));
}

async function preauthorize(ports: ApplyPorts, state: PlannedState): Promise<StepOutcome> {
  const { desired, unchanged, written } = state.plan;
  if (unchanged || written) return undefined;
  const inline = state.ce.spec.config?.inline['watchNamespace'];
  const watchNamespace = typeof inline === 'string' ? inline : undefined;
  let authorization;
  try {
    authorization = await ports.applier.authorize(applyRequest(state), desired, { bundleImage: desired.bundle.image, watchNamespace });
  } catch (err) {
    setInstalledFrom(state.ce, state.installed);
    fail(state, forBundle(desired.bundle, err));
  }
  const missing = authorization.missing;
  if (missing === undefined) return undefined;
  // The condition: upstream's text exactly; the command that prints the fix and the escalation
  // warning go to the PreAuthorizationFailed Event, recorded at each check as before (the
  // recorder counts the repeats in one series).
  setInstalledFrom(state.ce, state.installed);
  const message = forBundle(desired.bundle, new Error(missing.message)).message;
  setProgressingRetrying(state.ce, message);
  const sa = state.installer;
  const note = preAuthorizationNote(message, desired.bundle, missing.count, `${sa.namespace}/${sa.name}`, missing.advice);
  recordEvent(ports.events, state, 'PreAuthorizationFailed', note);
  return POLL;
}

/**
 * True when the catalogs offer another bundle from the one just deployed (the same question
 * the resolution answered, asked again for the new installed bundle, in memory): the next hop
 * of a version range. Asked only after a move to another bundle from the catalogs.
 */
function furtherHop(state: ExtensionState, plan: Plan, deployed: Release): boolean {
  const moved = state.installed === undefined || state.installed.bundle.name !== deployed.bundle.name;
  const request = plan.target.resolution?.request;
  if (!moved || request === undefined) return false;
  const b = deployed.bundle;
  const next = resolve({ ...request, installed: { name: b.name, version: b.version, release: b.release ?? null } });
  return next.ok && next.value.bundle.name !== b.name;
}

/**
 * Applies the planned release as the ServiceAccount and reports the outcome. Objects that are
 * not the extension's refuse the release with nothing written (single ownership, decision 0049).
 * A reconcile that moved the extension to another bundle is followed by another one at once, so
 * a version range is walked hop by hop to its top without outside help (status-only updates do
 * not start a reconcile, extension-events.ts). When an earlier step stopped the reconcile, the
 * deployed release is kept instead (see `keepDeployed`).
 */
export function applyStep(ports: ApplyPorts): Step<ExtensionState> {
  return finalStep(
    'apply',
    (state) => applyPlan(ports, state),
    (state) => keepDeployed(ports, state),
  );
}

async function applyPlan(ports: ApplyPorts, state: PlannedState): Promise<StepOutcome> {
  const plan = state.plan;
  const { desired } = plan;
  let applied;
  try {
    applied = await ports.applier.apply(applyRequest(state), desired);
  } catch (err) {
    recordApplyFailed(ports.events, state, desired.bundle, err, ports.applier.conflicts(err));
    // What is deployed now (the failed apply may have recorded a failed revision), without its objects.
    const deployed = await ports.applier
      .deployed(state.ce.metadata.name, state.signal)
      .catch(() => state.history.find((r) => r.status === 'deployed'));
    setInstalledFrom(state.ce, deployed);
    fail(state, forBundle(desired.bundle, err));
  }
  // Under BoxcutterRuntime another controller rolls the revision out (upstream's Boxcutter apply
  // step): the status its revisions give (Progressing is theirs, not "Desired state reached"),
  // RevisionCreated when a revision was made, deprecation once one is installed; the next hop of
  // a version range comes with the reconcile its revision's success queues.
  const rollout = applied.rollout;
  if (rollout === undefined) setInstalledFrom(state.ce, applied.release);
  else setFromRollout(state.ce, rollout);
  if (!applied.changed) recordDriftRepaired(ports.events, state, applied.repaired);
  else if (rollout === undefined) recordDeployed(ports.events, state, applied.release);
  else recordRevisionCreated(ports.events, state, applied.release);
  const resolution = plan.target.resolution;
  const installed = rollout === undefined ? applied.release : rollout.installed;
  if (resolution !== undefined && installed !== undefined) {
    const channels = state.ce.spec.source.catalog.channels ?? [];
    setDeprecation(state.ce, deprecationConditions(installed.bundle.name, resolution.deprecation, true, channels));
  }
  // The installed bundle is kept applied while its catalogs cannot offer it: say why, and retry.
  if (state.resolutionError !== undefined) fail(state, state.resolutionError);
  if (rollout !== undefined) return undefined;
  setProgressingSucceeded(state.ce);
  if (!applied.changed) return undefined;
  state.log.info(
    { bundle: applied.release.bundle.name, version: applied.release.bundle.version, revision: applied.release.revision },
    'release deployed',
  );
  return furtherHop(state, plan, applied.release) ? { requeue: true } : undefined;
}

/**
 * Drift repair of the deployed release when the reconcile stopped before its apply (issue #42
 * item 3), whatever stopped it: a resolution error, a pull of the next bundle that is pending,
 * failed or refused (404), a rendering error, missing permissions, an unsafe CRD change, a held
 * upgrade. Those stops keep their conditions and their outcome (an error retried with backoff,
 * a wait, a poll): this writes objects, never status.
 *
 * Why at the end, and not first: a reconcile cannot know before it resolves and pulls whether
 * it will move to a new release, and repairing first would re-apply the old release just before
 * an upgrade rewrites it. Nor does a reconcile know that drift queued it (the queue holds names
 * only; objects deleted while no replica led are noticed by a watch's first list). Keeping the
 * deployed release when the pipeline stopped short covers every such stop in one place, with
 * the Applier's keep mode: the release record re-applied as the extension's ServiceAccount,
 * after the ownership check, nothing recorded. Without it, an upgrade whose bundle could not be
 * pulled left deleted objects of the installed release deleted until the pull succeeded.
 *
 * Not when nothing is deployed, the extension is being deleted, the reconcile was cancelled, or
 * a newer revision than the deployed one exists (pending after a crash, or failed): applying the
 * deployed release would then record a new revision, which is for a planned apply to do.
 *
 * A repair that fails is logged and reported as an Event; the reconcile's outcome stays the
 * stop's. The cost is nothing when no object drifted: objects the drift watches hold as the last
 * apply left them are neither read nor sent (applier `inSync`).
 */
async function keepDeployed(ports: ApplyPorts, state: ExtensionState): Promise<StepOutcome> {
  const installed = state.installed;
  const installer = state.installer;
  if (installed === undefined || installer === undefined) return undefined;
  if (state.signal.aborted || state.ce.metadata.deletionTimestamp !== undefined) return undefined;
  if (state.history[0] !== installed) return undefined;
  let applied;
  try {
    applied = await ports.applier.apply(applyRequest({ ...state, installer }), undefined);
  } catch (err) {
    // The stop's own outcome is the reconcile's; a cancelled reconcile is no failure.
    if (state.signal.aborted) return undefined;
    state.log.warn({ err }, 'drift repair of the deployed release failed');
    recordApplyFailed(ports.events, state, installed.bundle, err, ports.applier.conflicts(err));
    return undefined;
  }
  // Unreachable for a deployed newest record (the content is the record's); kept loud.
  if (applied.changed) state.log.warn({ revision: applied.release.revision }, 'drift repair recorded a new revision');
  recordDriftRepaired(ports.events, state, applied.repaired);
  state.log.debug({ bundle: installed.bundle.name, revision: installed.revision }, 'deployed release re-applied while the reconcile stopped');
  return undefined;
}
