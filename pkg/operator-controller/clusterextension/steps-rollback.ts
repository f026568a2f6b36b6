/**
 * Undo on failure (decision 0123), opt in by the annotation
 * `olm.operatorframework.io/rollback-on-failure: <deadline>` (e.g. `5m`): when the newest
 * revision is not Healthy (the health step's verdict) by its deploy time plus the deadline, the
 * last revision seen Healthy is re-applied as a new revision by the Applier port's `rollback`
 * (its content; the Helm runtime describes it `Rollback to N` as Helm's and marks the undone
 * revision failed as Helm's `--atomic` does), a Warning Event `RolledBack` is recorded and the `RolledBack`
 * condition says what happened. The way back passes the CRD safety check of a rollback
 * (pkg/operator-controller/rollback `checkRollbackCrds`): when it would lose data, nothing is
 * written and the condition and a Warning Event say why.
 *
 * The controller keeps what it needs between reconciles on its own condition (decision 0123):
 * the last revision seen Healthy (the message's tail), and, after a rollback, the bundle that
 * is not installed again (True, reason `UnhealthyUpgrade`) until the spec's generation changes
 * or the annotation is removed. Two steps read it:
 *
 * - `rollbackHoldStep`, after render and the policy steps: a plan that moves to the rolled-back
 *   bundle is replaced by the installed release (as a held upgrade is), so resolution picking it
 *   again changes nothing;
 * - `rollbackStep`, after health: the deadline, the rollback, the condition. Within the deadline
 *   it asks for a reconcile at the deadline (no timers of its own).
 *
 * Without the annotation both return at once and the condition is removed: nothing changes.
 * Installed and Progressing keep upstream's texts.
 *
 * Under BoxcutterRuntime (the `newest` port): a revision whose probes fail is never installed
 * (it stays rolling out, the previous revision the installed one) although its objects already
 * run its content. So the revision judged is the newest one, from its creation; the way back is
 * the same Applier call, which makes a new revision with the last Healthy revision's content
 * (the ClusterObjectSet controller archives the undone one once it succeeds).
 */
import { findCondition, HealthConditionType, type ClusterExtension, type Condition } from '../../shared/api/index.ts';
import { removeCondition, type Step, type StepOutcome } from '../../shared/controller/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { isNotFound, type EventRecorder, type KubeObject, type ScopedClientFactory } from '../../shared/kube/index.ts';
import { sameContent, type Applier } from '../applier/index.ts';
import type { Release, ReleaseSummary } from '../release/index.ts';
import {
  checkRollbackCrds,
  lastHealthyFrom,
  lastHealthyTail,
  rollbackCrdNames,
  rollbackOnFailureOf,
  ROLLBACK_ON_FAILURE_ANNOTATION,
  rolledBackBundleFrom,
  rolledBackLead,
  unhealthyDescription,
} from '../rollback/index.ts';
import { plannedStep } from './phases.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { makePlan, recordedContent } from './plan.ts';
import { NoteMemory, recordRollbackStopped, recordRolledBack } from './recorded-events.ts';
import { setCondition, setInstalledFrom } from './status.ts';

/** The condition the controller owns for undo on failure (not upstream's). */
export const ROLLED_BACK_CONDITION = 'RolledBack';

/** The reasons of the RolledBack condition. */
const RolledBackReason = {
  /** False: the newest revision is (or was) Healthy; nothing to undo. */
  Watching: 'Watching',
  /** False: the newest revision is not Healthy yet; it is rolled back at the deadline if still not. */
  AwaitingHealthy: 'AwaitingHealthy',
  /** True: an upgrade was rolled back; its bundle is not installed again until told. */
  UnhealthyUpgrade: 'UnhealthyUpgrade',
  /** False: the way back would lose data (CRD safety); nothing was written. */
  RollbackRefused: 'RollbackRefused',
  /** False: no earlier revision was seen Healthy (a first install, say): nothing to go back to. */
  NoHealthyRevision: 'NoHealthyRevision',
  /** False: the rollback's apply failed; retried with backoff. */
  RollbackFailed: 'RollbackFailed',
  /** False: the annotation's deadline is not a duration. */
  InvalidDeadline: 'InvalidDeadline',
} as const;

/** What the rollback step uses. */
interface RollbackPorts {
  /** Re-applies the last Healthy revision (recorded as a rollback where the runtime records one); tells the newest deployed one. */
  applier: Pick<Applier, 'rollback' | 'deployed'>;
  /**
   * BoxcutterRuntime: the extension's newest revision (rolling out or installed), judged from
   * its creation instead of the deployed release from its deploy (see the module comment).
   */
  newest?: (name: string, signal: AbortSignal) => Promise<ReleaseSummary | undefined>;
  /** Reads the live CRDs as the installer, for the CRD safety check of the way back. */
  scoped: Pick<ScopedClientFactory, 'forServiceAccount'>;
  events: EventRecorder;
  /** The clock (tests); default the system's. */
  now?: () => Date;
}

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/** How soon a verdict unknown at the deadline is asked again. */
const UNKNOWN_RETRY_MS = 10_000;

/** How much of another text (the Healthy condition, the CRD refusals) a message quotes. */
const QUOTED_AT_MOST = 4000;

/** What the condition remembers: the last revision seen Healthy, and the bundle held after a rollback. */
interface Memory {
  condition: Condition | undefined;
  lastHealthy: number | undefined;
  held: string | undefined;
}

function memoryOf(ce: ClusterExtension): Memory {
  const c = findCondition(ce.status?.conditions, ROLLED_BACK_CONDITION);
  const holds = c?.status === 'True' && c.reason === RolledBackReason.UnhealthyUpgrade && c.observedGeneration === ce.metadata.generation;
  return { condition: c, lastHealthy: lastHealthyFrom(c?.message), held: holds ? rolledBackBundleFrom(c.message) : undefined };
}

function quoted(text: string): string {
  return text.length <= QUOTED_AT_MOST ? text : `${text.slice(0, QUOTED_AT_MOST)}...`;
}

function revisionText(r: Pick<Release, 'revision' | 'bundle'>): string {
  return `revision ${r.revision} (bundle ${JSON.stringify(r.bundle.name)} version ${JSON.stringify(r.bundle.version)})`;
}

/**
 * Before apply: a plan that moves to the bundle a rollback undid (the condition's memory, same
 * generation) keeps the installed release instead, as a held upgrade does.
 */
export function rollbackHoldStep(): Step<ExtensionState> {
  return plannedStep('rollback-hold', (state): StepOutcome => {
    if (rollbackOnFailureOf(state.ce.metadata.annotations) === undefined) return undefined;
    const held = memoryOf(state.ce).held;
    const installed = state.installed;
    const plan = state.plan;
    if (held === undefined || installed === undefined || plan.desired.bundle.name !== held || installed.bundle.name === held) return undefined;
    state.log.info({ held, installed: installed.bundle.name }, 'upgrade held: its bundle was rolled back for not becoming Healthy');
    state.plan = makePlan(state, { ...plan.target, bundle: installed.bundle }, recordedContent(installed));
    return undefined;
  });
}

/** After health: the deadline of the newest revision, and the rollback; see the module comment. */
export function rollbackStep(ports: RollbackPorts): Step<ExtensionState> {
  // Refusals and "nothing to go back to" are recorded once per change of their note.
  const notes = new NoteMemory();
  // Always: a reconcile stopped early (a catalog unreachable, say) still undoes a failed upgrade.
  return { name: 'rollback', always: true, run: (state) => watchUpgrade(ports, notes, state) };
}

async function watchUpgrade(ports: RollbackPorts, notes: NoteMemory, state: ExtensionState): Promise<StepOutcome> {
  const ce = state.ce;
  const optIn = rollbackOnFailureOf(ce.metadata.annotations);
  if (optIn === undefined) {
    const conditions = ce.status?.conditions;
    if (conditions !== undefined) removeCondition(conditions, ROLLED_BACK_CONDITION);
    notes.forget(ce);
    return undefined;
  }
  if (ce.metadata.deletionTimestamp !== undefined || state.signal.aborted) return undefined;
  const memory = memoryOf(ce);
  if (!optIn.deadline.ok) {
    const message = `the annotation ${ROLLBACK_ON_FAILURE_ANNOTATION}: ${optIn.deadline.error}; failed upgrades are not rolled back${lastHealthyTail(memory.lastHealthy)}`;
    setCondition(ce, ROLLED_BACK_CONDITION, 'False', RolledBackReason.InvalidDeadline, message);
    return undefined;
  }
  const deadlineMs = optIn.deadline.value;
  const name = ce.metadata.name;
  let deployed;
  try {
    deployed = await (ports.newest ?? ports.applier.deployed)(name, state.signal);
  } catch (err) {
    if (!state.signal.aborted) state.log.warn({ err }, 'rollback on failure: the deployed release could not be read');
    return undefined;
  }
  if (deployed === undefined) return undefined;
  // The full record when it was deployed (made, under BoxcutterRuntime) before this reconcile; a
  // revision the apply just made is only awaited.
  const known = ports.newest === undefined ? state.installed : state.history[0];
  const current = known !== undefined && known.revision === deployed.revision ? known : undefined;
  const health = findCondition(ce.status?.conditions, HealthConditionType.Healthy);
  const now = (ports.now ?? (() => new Date()))().getTime();

  // The condition's text, keeping an earlier rollback's memory (True) while it holds.
  const report = (reason: string, message: string, lastHealthy: number | undefined): void => {
    const held = memory.held !== undefined ? memory.condition : undefined;
    if (held !== undefined) {
      const lead = held.message.replace(/ \[last Healthy revision: \d{1,9}\]$/, '');
      setCondition(ce, ROLLED_BACK_CONDITION, 'True', RolledBackReason.UnhealthyUpgrade, `${lead}${lastHealthyTail(lastHealthy)}`);
      return;
    }
    setCondition(ce, ROLLED_BACK_CONDITION, 'False', reason, `${message}${lastHealthyTail(lastHealthy)}`);
  };

  const healthy = health?.status === 'True';
  const deployedAt = Date.parse((ports.newest === undefined ? deployed.lastDeployed : deployed.firstDeployed) ?? '');
  const due = Number.isNaN(deployedAt) ? undefined : deployedAt + deadlineMs;
  // A revision is judged at its deadline, not before: right after a deploy the verdict may still
  // be the previous Pods' (a Deployment reports its old ReplicaSet available until it scales it
  // down), so an early Healthy settles nothing.
  if (current !== undefined && healthy && (due === undefined || now >= due || memory.lastHealthy === current.revision)) {
    report(
      RolledBackReason.Watching,
      `${revisionText(current)} is Healthy; an upgrade not Healthy ${optIn.text} after its deploy is rolled back to it`,
      current.revision,
    );
    return undefined;
  }
  if (memory.lastHealthy === deployed.revision) {
    // Healthy at its deadline: a later outage is no failed upgrade.
    report(
      RolledBackReason.Watching,
      `${revisionText(deployed)} was Healthy and is not now; only an upgrade not Healthy ${optIn.text} after its deploy is rolled back`,
      memory.lastHealthy,
    );
    return undefined;
  }
  if (due === undefined) return undefined;
  const healthText = health === undefined ? 'Healthy not reported' : quoted(`Healthy=${health.status} ${health.reason}: ${health.message}`);
  if (now < due || current === undefined) {
    const to = memory.lastHealthy === undefined ? 'nothing: no earlier revision was seen Healthy' : `revision ${memory.lastHealthy}`;
    const verdict = healthy ? 'is Healthy' : `is not Healthy yet (${healthText})`;
    report(
      RolledBackReason.AwaitingHealthy,
      `${revisionText(deployed)} ${verdict}; if it is not Healthy at ${new Date(due).toISOString()} (${optIn.text} after its deploy) it is rolled back to ${to}`,
      memory.lastHealthy,
    );
    return { requeueAfterMs: Math.max(due - now, 1000) };
  }

  // Past the deadline. An unknown verdict (the watches not listed yet, after a restart, say) is no
  // failure: asked again shortly.
  if (health?.status !== 'False') {
    report(
      RolledBackReason.AwaitingHealthy,
      `${revisionText(deployed)}: its health is not known yet (${healthText}); it is judged once it is`,
      memory.lastHealthy,
    );
    return { requeueAfterMs: UNKNOWN_RETRY_MS };
  }
  const target = memory.lastHealthy === undefined ? undefined : state.history.find((r) => r.revision === memory.lastHealthy);
  const lateBy = `was not Healthy ${optIn.text} after its deploy (${healthText})`;
  if (target === undefined || target.revision > current.revision) {
    if (memory.held !== undefined) return undefined;
    const why =
      memory.lastHealthy === undefined
        ? 'no earlier revision was seen Healthy'
        : `the last Healthy revision ${memory.lastHealthy} is no longer recorded`;
    const message = `${revisionText(current)} ${lateBy}; ${why}: nothing to roll back to, it stays as it is`;
    setCondition(ce, ROLLED_BACK_CONDITION, 'False', RolledBackReason.NoHealthyRevision, message);
    if (notes.changed(ce, message)) recordRollbackStopped(ports.events, state, false, message);
    return undefined;
  }
  const desired = makePlan(state, { bundle: target.bundle }, recordedContent(target)).desired;
  // A rollback that is itself not Healthy again is not rolled back onto itself.
  if (sameContent(current, desired)) return undefined;
  const installer = state.installer;
  if (installer === undefined || state.history[0] !== current) return undefined;

  const live = new Map<string, KubeObject>();
  const client = ports.scoped.forServiceAccount(installer.namespace, installer.name);
  for (const crd of rollbackCrdNames(current, target)) {
    try {
      live.set(crd, await client.get({ ...CRD, name: crd }, { signal: state.signal }));
    } catch (err) {
      if (isNotFound(err)) continue;
      setCondition(
        ce,
        ROLLED_BACK_CONDITION,
        'False',
        RolledBackReason.RollbackFailed,
        `reading CRD ${JSON.stringify(crd)} for the way back: ${errorMessage(err)}`,
      );
      throw err;
    }
  }
  const enforcement = ce.spec.install?.preflight?.crdUpgradeSafety.enforcement;
  const verdict = checkRollbackCrds({ deployed: current, target, live, enforcement });
  if (verdict.refusals.length > 0) {
    const message =
      `${revisionText(current)} ${lateBy}; rolling back to ${revisionText(target)} would lose data, so nothing was changed: ` +
      quoted(verdict.refusals.join('\n'));
    setCondition(ce, ROLLED_BACK_CONDITION, 'False', RolledBackReason.RollbackRefused, `${message}${lastHealthyTail(memory.lastHealthy)}`);
    if (notes.changed(ce, message)) recordRollbackStopped(ports.events, state, true, message);
    state.log.warn({ revision: current.revision, to: target.revision }, 'rollback on failure refused: the way back would lose data');
    return undefined;
  }

  let applied;
  try {
    applied = await ports.applier.rollback(
      {
        // As the apply step's request: a revision made here keeps the extension's progress deadline.
        extension: {
          name,
          uid: ce.metadata.uid ?? '',
          installNamespace: ce.spec.namespace,
          progressDeadlineMinutes: ce.spec.progressDeadlineMinutes,
        },
        installer,
        history: state.history,
        log: state.log,
        signal: state.signal,
      },
      desired,
      { from: current, to: target.revision, why: unhealthyDescription(name, optIn.text, target.revision) },
    );
  } catch (err) {
    if (state.signal.aborted) return undefined;
    setCondition(
      ce,
      ROLLED_BACK_CONDITION,
      'False',
      RolledBackReason.RollbackFailed,
      `rolling back to ${revisionText(target)}: ${errorMessage(err)}`,
    );
    throw err;
  }
  const release = applied.release;
  // Under BoxcutterRuntime status.install follows the installed revision (the apply step's rollout).
  if (ports.newest === undefined) setInstalledFrom(ce, release);
  notes.forget(ce);
  const undone = current.bundle.name;
  const kept = verdict.notes.length === 0 ? '' : ` (${quoted(verdict.notes.join(' '))})`;
  const message =
    `${rolledBackLead(undone)} version ${JSON.stringify(current.bundle.version)} (revision ${current.revision}) ${lateBy}: ` +
    `rolled back to ${revisionText(target)} as revision ${release.revision}${kept}; ${rolledBackLead(undone)} is not installed again until ` +
    `the ClusterExtension's spec changes or the annotation ${ROLLBACK_ON_FAILURE_ANNOTATION} is removed`;
  setCondition(ce, ROLLED_BACK_CONDITION, 'True', RolledBackReason.UnhealthyUpgrade, `${message}${lastHealthyTail(memory.lastHealthy)}`);
  recordRolledBack(ports.events, state, message);
  state.log.warn({ from: current.revision, to: target.revision, revision: release.revision }, 'upgrade rolled back: not Healthy at its deadline');
  return undefined;
}
