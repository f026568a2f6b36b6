/**
 * The repair step, after apply (issue #42 item 3): drift repair of the deployed release when the
 * reconcile stopped before its apply step, whatever stopped it: a resolution error, a pull of
 * the next bundle that is pending, failed or refused (404), a rendering error, missing
 * permissions, an unsafe CRD change. Those stops keep their conditions and their outcome (an
 * error retried with backoff, a wait, a poll): this step writes objects, never status.
 *
 * Why here, and not first: a reconcile cannot know before it resolves and pulls whether it will
 * move to a new release, and repairing first would re-apply the old release just before an
 * upgrade rewrites it. Nor does a reconcile know that drift queued it (the queue holds names
 * only; objects deleted while no replica led are noticed by a watch's first list). Repairing
 * when the pipeline stopped short of its apply covers every such stop in one place, with the
 * apply step's own unchanged-release path: the release record re-applied as the extension's
 * ServiceAccount, after the ownership check, nothing recorded. Without it, an upgrade whose
 * bundle could not be pulled left deleted objects of the installed release deleted until the
 * pull succeeded.
 *
 * Not when:
 * - the apply step ran: it applied (and so repaired), or its failure is the reconcile's outcome,
 *   and a failed upgrade is not rolled back (as upstream);
 * - nothing is deployed, or the extension is being deleted, or the reconcile was cancelled;
 * - a newer revision than the deployed one exists (pending after a crash, or failed): applying
 *   the deployed release would then record a new revision, which is for the apply step to do.
 *
 * A repair that fails is logged and reported as an Event; the reconcile's outcome stays the
 * stop's (its retry, or the drift watches, bring the next attempt). The cost is nothing when no
 * object drifted: objects the drift watches hold as the last apply left them are neither read
 * nor sent (applier `inSync`); the others are checked and applied, at the pace of the stopped
 * reconciles: their backoff, pull ends and drift events.
 */
import { applyRelease } from '../applier/index.ts';
import type { Step, StepOutcome } from '../../shared/controller/index.ts';
import type { EventRecorder, ScopedClientFactory } from '../../shared/kube/index.ts';
import type { ReleaseStore } from '../release/index.ts';
import type { DriftTracker } from '../drift/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { recordApplyFailed, recordDriftRepaired } from './recorded-events.ts';
import { listedDriftDeps, recordedContent, releaseOf } from './step-support.ts';

/**
 * What the repair step uses: as the apply step, without the drift watches' expected deletes,
 * and without the crash tests' `object-write` pause hook, which counts the writes of installs
 * and upgrades (cmd/operator-controller/test-pause.ts).
 */
export interface RepairPorts {
  /** Clients acting as the installer: every object is written with its identity. */
  scoped: Pick<ScopedClientFactory, 'forServiceAccount'>;
  /** The release records (read only here: an unchanged release records nothing). */
  releases: ReleaseStore;
  /** What the drift watches know is ours, and what drifted. */
  drift: Pick<DriftTracker, 'ownedUid' | 'inSync' | 'noteApplied' | 'takeDrifted' | 'listed'>;
  events: EventRecorder;
}

/** Re-applies the deployed release when the reconcile stopped before its apply; see the module comment. */
export function repairStep(ports: RepairPorts): Step<ExtensionState> {
  return { name: 'repair', always: true, run: (state) => repairDeployed(ports, state) };
}

async function repairDeployed(ports: RepairPorts, state: ExtensionState): Promise<StepOutcome> {
  const installed = state.installed;
  const sa = state.installer;
  if (state.applied === true || installed === undefined || sa === undefined) return undefined;
  if (state.signal.aborted || state.ce.metadata.deletionTimestamp !== undefined) return undefined;
  if (state.history[0] !== installed) return undefined;
  const name = state.ce.metadata.name;
  const client = ports.scoped.forServiceAccount(sa.namespace, sa.name);
  const deployed = releaseOf(state.ce, installed.bundle, recordedContent(installed));
  try {
    const deps = { client, store: ports.releases, signal: state.signal, ...(await listedDriftDeps(ports.drift, name, state.signal)) };
    const applied = await applyRelease(deps, state.history, deployed);
    // Unreachable for a deployed newest record (sameContent holds by construction); kept loud.
    if (applied.changed) state.log.warn({ revision: applied.release.revision }, 'drift repair recorded a new revision');
  } catch (err) {
    // The stop's own outcome is the reconcile's; a cancelled reconcile is no failure.
    if (state.signal.aborted) return undefined;
    state.log.warn({ err }, 'drift repair of the deployed release failed');
    recordApplyFailed(ports.events, state, installed.bundle, err);
    return undefined;
  }
  recordDriftRepaired(ports.events, state, ports.drift.takeDrifted(name));
  state.log.debug({ bundle: installed.bundle.name, revision: installed.revision }, 'deployed release re-applied while the reconcile stopped');
  return undefined;
}
