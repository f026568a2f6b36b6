/**
 * The Kubernetes Events operator-controller records on a ClusterExtension (docs/operations.md,
 * "Events"): what `kubectl describe clusterextension` and `kubectl get events` show. Each is
 * recorded at the decision it reports, through the injected recorder (fire and forget: a
 * reconcile never waits for or fails on one). Conditions are unchanged by them; the events add
 * the history conditions cannot keep (each install, upgrade, repair, refusal, with a count).
 */
import type { ApplyConflict, DeleteOutcome } from '../applier/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { CLUSTER_EXTENSION, type ClusterExtension } from '../../shared/api/index.ts';
import type { EventRecorder, EventType } from '../../shared/kube/index.ts';
import type { Release, ReleaseBundle } from '../release/index.ts';
import type { ExtensionState } from './pipeline-state.ts';

/** `reportingController` of operator-controller's events. */
export const OPERATOR_CONTROLLER_REPORTER = 'olm.operatorframework.io/operator-controller';

/**
 * Every reason operator-controller records (CamelCase, as Kubernetes' own), with its Event type
 * and action: the reason decides both.
 */
const REASONS = {
  Installed: ['Normal', 'Install'],
  Upgraded: ['Normal', 'Upgrade'],
  Downgraded: ['Normal', 'Upgrade'],
  Uninstalled: ['Normal', 'Uninstall'],
  /** The uninstall had no installer to delete the objects as: the records went, the objects stayed (uninstall.ts). */
  ObjectsLeft: ['Warning', 'Uninstall'],
  DriftRepaired: ['Normal', 'Reconcile'],
  /** The ServiceAccount lacks permissions the release needs: the note is `preAuthorizationNote`'s; each check records it (repeats counted in one series). */
  PreAuthorizationFailed: ['Warning', 'PreAuthorize'],
  PreflightFailed: ['Warning', 'Preflight'],
  OwnershipConflict: ['Warning', 'Apply'],
  ApplyFailed: ['Warning', 'Apply'],
  PullFailed: ['Warning', 'Pull'],
  /**
   * The catalogs offer an upgrade that the update policy holds until approved (decision 0096);
   * recorded once per held bundle, the UpgradeAvailable condition's message as the note.
   */
  UpgradeAvailable: ['Normal', 'Hold'],
  /** The operator's Upgradeable=False holds an upgrade (decision 0118): once per held bundle and message. */
  UpgradeHeld: ['Normal', 'Hold'],
  /**
   * Resolution failed: the note is upstream's message (the Progressing condition's, exactly) and, on
   * the lines after it, what the selected catalogs offer instead (resolve's hints). Recorded once
   * per change of the note (`NoteMemory`), so a failure retried with backoff adds no Events.
   */
  ResolutionFailed: ['Warning', 'Resolve'],
  BundlePassedOver: ['Normal', 'Resolve'],
  /**
   * The installer's ServiceAccount or its namespace does not exist: the condition carries upstream's
   * `service account "<sa>" not found in namespace "<ns>"`; the note says which is missing and the
   * commands that create it. Recorded once per change of the note (`NoteMemory`).
   */
  InstallerMissing: ['Warning', 'Validate'],
  /**
   * The bundle supports no AllNamespaces install and was given no watchNamespace: the condition
   * carries upstream's `required field "watchNamespace" is missing`; the note is that text, then
   * on a line of its own the install modes the bundle supports and the value to set. Recorded once
   * per change of the note (`NoteMemory`).
   */
  WatchNamespaceRequired: ['Warning', 'Render'],
  RolledBack: ['Warning', 'Rollback'],
  RollbackRefused: ['Warning', 'Rollback'],
  NothingToRollBackTo: ['Warning', 'Rollback'],
  RevisionCreated: ['Normal', 'Install'],
} as const satisfies Record<string, readonly [EventType, string]>;

type Reason = keyof typeof REASONS;

/** How many objects a note names before `and N more`. */
const MAX_NAMED = 10;

/** Records `note` on the extension with `reason` (its type and action from REASONS). */
export function recordEvent(events: EventRecorder, state: Pick<ExtensionState, 'ce'>, reason: Reason, note: string): void {
  const [type, action] = REASONS[reason];
  // The parsed working copy may lack apiVersion and kind (optional in the API module's schema).
  events.event({ apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, metadata: state.ce.metadata }, type, reason, action, note);
}

function bundleText(b: ReleaseBundle): string {
  return `bundle ${b.name} (version ${b.version})`;
}

/** `a, b, c and 2 more`. */
function nameList(names: readonly string[]): string {
  const shown = names.slice(0, MAX_NAMED).join(', ');
  return names.length > MAX_NAMED ? `${shown} and ${names.length - MAX_NAMED} more` : shown;
}

/**
 * A new revision was deployed: Installed, Upgraded or Downgraded, as the release record's
 * description says (the applier decides install/upgrade/downgrade once, for both).
 */
export function recordDeployed(events: EventRecorder, state: ExtensionState, release: Release): void {
  const [reason, verb] =
    release.description === 'Install complete'
      ? (['Installed', 'Installed'] as const)
      : release.description === 'Downgrade complete'
        ? (['Downgraded', 'Downgraded to'] as const)
        : (['Upgraded', 'Upgraded to'] as const);
  const from = state.installed === undefined || reason === 'Installed' ? '' : ` from version ${state.installed.bundle.version}`;
  recordEvent(events, state, reason, `${verb} ${bundleText(release.bundle)}${from}, revision ${release.revision}`);
}

/** A ClusterObjectSet revision was made for a bundle (BoxcutterRuntime): its controller rolls it out. */
export function recordRevisionCreated(events: EventRecorder, state: ExtensionState, release: Release): void {
  const from = state.installed === undefined ? '' : ` (installed: version ${state.installed.bundle.version})`;
  const set = release.objectSet === undefined ? '' : ` (ClusterObjectSet ${release.objectSet})`;
  recordEvent(events, state, 'RevisionCreated', `Created revision ${release.revision}${set} of ${bundleText(release.bundle)}${from}; rolling out`);
}

/** An unchanged release was re-applied after its objects drifted: names what was put back. */
export function recordDriftRepaired(events: EventRecorder, state: ExtensionState, objects: readonly string[]): void {
  if (objects.length === 0) return;
  recordEvent(events, state, 'DriftRepaired', `Restored ${objects.length} changed or deleted object(s): ${nameList(objects)}`);
}

/**
 * The PreAuthorizationFailed note: the condition's first line (upstream's
 * `error for resolved bundle ...: pre-authorization failed: ...:`), then who lacks how many
 * permissions for which bundle (the condition lists them), then `advice` (the `olmv1 rbac`
 * command and the escalation warning), each on lines of their own.
 */
export function preAuthorizationNote(condition: string, bundle: ReleaseBundle, missing: number, sa: string, advice: string): string {
  const first = condition.split('\n', 1)[0] ?? '';
  return `${first}\nService account ${sa} lacks ${missing} permission(s) needed to install ${bundleText(bundle)}; the Progressing condition lists them.\n${advice}`;
}

/** The CRD upgrade-safety preflight refused the release. */
export function recordPreflightFailed(
  events: EventRecorder,
  state: ExtensionState,
  bundle: ReleaseBundle,
  crds: readonly string[],
  storedObjects: readonly string[] = [],
): void {
  // With the stored-object opt-in (decision 0120), which stored objects fail and why.
  const stored = storedObjects.length === 0 ? '' : `; ${storedObjects.join('; ')}`;
  const refused = `${bundleText(bundle)}: unsafe changes to CustomResourceDefinition ${nameList(crds)}${stored}`;
  recordEvent(events, state, 'PreflightFailed', `CRD upgrade safety check refused ${refused}`);
}

/** The apply failed: objects owned by someone else (`conflicts`, the Applier's description), or any other error. */
export function recordApplyFailed(
  events: EventRecorder,
  state: ExtensionState,
  bundle: ReleaseBundle,
  err: unknown,
  conflicts: readonly ApplyConflict[] | undefined,
): void {
  if (conflicts === undefined) {
    recordEvent(events, state, 'ApplyFailed', `Applying ${bundleText(bundle)} failed: ${errorMessage(err)}`);
    return;
  }
  const objects = nameList(conflicts.map((c) => c.object));
  const note = `Cannot install ${bundleText(bundle)}: ${objects} already exist(s) and are not owned by this extension; nothing was applied`;
  recordEvent(events, state, 'OwnershipConflict', note);
}

/**
 * The bundle image could not be pulled: the error, and when the containers signature policy
 * refused it, the image, policy file, scope and requirement (`detail`, decision 0116), which the
 * condition, in upstream's words, does not carry.
 */
export function recordPullFailed(events: EventRecorder, state: ExtensionState, bundle: ReleaseBundle, err: unknown, detail: string): void {
  recordEvent(events, state, 'PullFailed', `Pulling ${bundleText(bundle)} failed: ${errorMessage(err)}${detail}`);
}

/** The uninstall finalizer deleted the release's objects. */
export function recordUninstalled(events: EventRecorder, state: ExtensionState, outcome: Pick<DeleteOutcome, 'deleted' | 'kept' | 'skipped'>): void {
  const kept = `${outcome.kept.length} CustomResourceDefinition(s) kept with their custom resources`;
  recordEvent(
    events,
    state,
    'Uninstalled',
    `Uninstalled: ${outcome.deleted.length} object(s) deleted, ${kept}, ${outcome.skipped.length} object(s) skipped`,
  );
}

/** The uninstall finalizer removed the records of an extension whose installer is gone and left its objects. */
export function recordObjectsLeft(events: EventRecorder, state: ExtensionState, objects: number, why: string): void {
  recordEvent(events, state, 'ObjectsLeft', `Uninstalled without its installer: ${objects} object(s) left in place, release records removed: ${why}`);
}

/** How many extensions' last notes a NoteMemory keeps; the oldest is forgotten first. */
const MAX_REMEMBERED = 4096;

/**
 * The last note recorded per extension (in this process), so that one is recorded once per
 * change of its text. Bounded: past MAX_REMEMBERED extensions the least recently changed is
 * forgotten (it is recorded again on its next failure; the recorder's spam filter still applies).
 */
export class NoteMemory {
  /** By uid (a re-created extension starts over), or by name when there is none. */
  readonly #last = new Map<string, string>();

  /** True when `note` differs from the one remembered for the extension `ce`, which it then replaces. */
  changed(ce: Pick<ClusterExtension, 'metadata'>, note: string): boolean {
    const key = ce.metadata.uid || ce.metadata.name;
    if (this.#last.get(key) === note) return false;
    this.#last.delete(key);
    this.#last.set(key, note);
    if (this.#last.size > MAX_REMEMBERED) {
      const oldest = this.#last.keys().next();
      if (oldest.done !== true) this.#last.delete(oldest.value);
    }
    return true;
  }

  /** Forgets the note of `ce`: the next failure is recorded whatever its text. */
  forget(ce: Pick<ClusterExtension, 'metadata'>): void {
    this.#last.delete(ce.metadata.uid || ce.metadata.name);
  }
}

/**
 * Resolution chose a lower bundle because better ones have unmet dependencies (decision
 * 0104): Normal `BundlePassedOver`, one line per bundle passed over with its reason.
 */
export function recordPassedOver(
  events: EventRecorder,
  state: ExtensionState,
  chosen: string,
  passedOver: readonly { bundle: string; reason: string }[],
): void {
  const lines = passedOver.map((p) => `${p.bundle}: ${p.reason}`);
  recordEvent(events, state, 'BundlePassedOver', [`chose bundle ${chosen}; passed over:`, ...lines].join('\n'));
}

/**
 * Undo on failure (decision 0123): an upgraded revision was not Healthy within the deadline of
 * the rollback-on-failure annotation and the last Healthy revision was re-applied; the note is
 * the RolledBack condition's message.
 */
export function recordRolledBack(events: EventRecorder, state: ExtensionState, note: string): void {
  recordEvent(events, state, 'RolledBack', note);
}

/**
 * Undo on failure could not go back: the way back would lose data (the CRD safety check of a
 * rollback refused it), or no earlier revision was seen Healthy. Recorded once per change of the
 * note (`NoteMemory`).
 */
export function recordRollbackStopped(events: EventRecorder, state: ExtensionState, refused: boolean, note: string): void {
  recordEvent(events, state, refused ? 'RollbackRefused' : 'NothingToRollBackTo', note);
}
