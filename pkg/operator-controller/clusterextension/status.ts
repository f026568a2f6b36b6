/**
 * The ClusterExtension status operator-controller writes, through the API module's types: the
 * `Installed` and `Progressing` conditions with upstream's reasons and texts, the four
 * deprecation conditions, and `status.install`.
 */
import {
  ClusterExtensionConditionType as Type,
  ClusterExtensionReason as Reason,
  type BundleMetadata,
  type ClusterExtension,
  type ClusterExtensionStatus,
  type ConditionStatus,
} from '../../shared/api/index.ts';
import { progressingFromError, setStatusCondition, truncateConditionMessage } from '../../shared/controller/index.ts';
import type { Rollout } from '../applier/index.ts';
import type { ReleaseSummary } from '../release/index.ts';
import type { DeprecationCondition } from '../resolve/index.ts';

/** Fixed condition messages. */
export const MESSAGES = {
  noBundleInstalled: 'No bundle installed',
  desiredStateReached: 'Desired state reached',
  retryingInstalledBundle: 'retrying to get installed bundle',
} as const;

/** `status` of `ce`, created when absent. */
export function statusOf(ce: ClusterExtension): ClusterExtensionStatus {
  ce.status ??= {};
  return ce.status;
}

/** `observedGeneration` of a condition about `ce`'s spec (none when the object has no generation). */
function observedGeneration(ce: ClusterExtension): { observedGeneration?: number } {
  return ce.metadata.generation === undefined ? {} : { observedGeneration: ce.metadata.generation };
}

/** Sets one condition with `observedGeneration`; the message is truncated to the API's limit. */
export function setCondition(ce: ClusterExtension, type: string, status: ConditionStatus, reason: string, message: string): void {
  const st = statusOf(ce);
  st.conditions ??= [];
  setStatusCondition(st.conditions, { type, status, reason, message: truncateConditionMessage(message), ...observedGeneration(ce) });
}

/** Progressing from an error: True/Retrying, or False with the terminal reason. */
export function setProgressingError(ce: ClusterExtension, err: unknown): void {
  const c = progressingFromError(err);
  setCondition(ce, Type.Progressing, c.status, c.reason, c.message);
}

/** Progressing True/Retrying with `message` (a wait that is not an error, e.g. missing permissions). */
export function setProgressingRetrying(ce: ClusterExtension, message: string): void {
  setCondition(ce, Type.Progressing, 'True', Reason.Retrying, message);
}

/** Progressing True/Blocked with `message`: a wait only a person can end (no retry, no polling). */
export function setProgressingBlocked(ce: ClusterExtension, message: string): void {
  setCondition(ce, Type.Progressing, 'True', Reason.Blocked, message);
}

/** Progressing True/Succeeded "Desired state reached". */
export function setProgressingSucceeded(ce: ClusterExtension): void {
  setCondition(ce, Type.Progressing, 'True', Reason.Succeeded, MESSAGES.desiredStateReached);
}

/** The `status.install.bundle` of a release. */
export function bundleMetadataOf(release: ReleaseSummary): BundleMetadata {
  const b = release.bundle;
  return { name: b.name, version: b.version, ...(b.release === undefined ? {} : { release: b.release }) };
}

/**
 * Installed and `status.install` from the deployed revision: True/Succeeded
 * `Installed bundle <image> successfully`, or False "No bundle installed" (reason
 * `notInstalledReason`, Failed unless told) and no `status.install` when nothing is deployed.
 */
export function setInstalledFrom(
  ce: ClusterExtension,
  deployed: ReleaseSummary | undefined,
  notInstalledReason: Rollout['notInstalledReason'] = 'Failed',
): void {
  const st = statusOf(ce);
  if (deployed === undefined) {
    delete st.install;
    setCondition(ce, Type.Installed, 'False', Reason[notInstalledReason], MESSAGES.noBundleInstalled);
    return;
  }
  st.install = { bundle: bundleMetadataOf(deployed) };
  setCondition(ce, Type.Installed, 'True', Reason.Succeeded, `Installed bundle ${deployed.bundle.image} successfully`);
}

/**
 * The status from the revisions another controller rolls out (BoxcutterRuntime), as upstream's
 * Boxcutter apply step writes it: the mirrored conditions in order, `status.activeRevisions`,
 * and Installed from the installed revision (False with `notInstalledReason`, "No bundle
 * installed", without one).
 */
export function setFromRollout(ce: ClusterExtension, rollout: Rollout): void {
  for (const c of rollout.mirrored) setCondition(ce, c.type, c.status as ConditionStatus, c.reason, c.message);
  statusOf(ce).activeRevisions = rollout.activeRevisions.map((r) =>
    r.conditions === undefined ? r : { ...r, conditions: r.conditions.map((c) => ({ ...c, ...observedGeneration(ce) })) },
  );
  setInstalledFrom(ce, rollout.installed, rollout.notInstalledReason);
}

/** Installed Unknown/Failed with `message` (installed state unknown); `status.install` cleared when `clearInstall`. */
export function setInstalledUnknown(ce: ClusterExtension, message: string, clearInstall: boolean): void {
  if (clearInstall) delete statusOf(ce).install;
  setCondition(ce, Type.Installed, 'Unknown', Reason.Failed, message);
}

/** Sets the four deprecation conditions in upstream's order. */
export function setDeprecation(ce: ClusterExtension, conditions: readonly DeprecationCondition[]): void {
  for (const c of conditions) setCondition(ce, c.type, c.status, c.reason, c.message);
}
