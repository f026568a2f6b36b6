/**
 * The conditions of a ClusterObjectSet (Progressing, Available, Succeeded) as upstream's
 * controller sets them: reasons, messages and the progress deadline's override. Pure: they
 * change the working copy's status in place.
 */
import { ClusterExtensionReason, ObjectSetConditionType, ObjectSetReason, type ClusterObjectSet } from '../../shared/api/index.ts';
import { setStatusCondition, truncateConditionMessage, type Condition } from '../../shared/controller/index.ts';
import type { Deadline } from './deadline.ts';

/** Message of Progressing and Available once archived. */
const ARCHIVED_MESSAGE = 'revision is archived';

/** Message of Available True. */
const PROBES_SUCCEEDED_MESSAGE = 'Objects are available and pass all probes.';

/** Message of Succeeded True. */
const SUCCEEDED_MESSAGE = 'Revision succeeded rolling out.';

/** Message of Progressing while an archived revision's objects are still being removed. */
export const TEARDOWN_PENDING_MESSAGE = 'removing revision resources that are not owned by another revision';

type Status = Condition['status'];

function conditionsOf(cos: ClusterObjectSet): Condition[] {
  cos.status ??= {};
  cos.status.conditions ??= [];
  return cos.status.conditions;
}

function set(cos: ClusterObjectSet, type: string, status: Status, reason: string, message: string): boolean {
  return setStatusCondition(conditionsOf(cos), {
    type,
    status,
    reason,
    message: truncateConditionMessage(message),
    observedGeneration: cos.metadata.generation ?? 0,
  });
}

/** `Revision <bundle version> is rolling out.` (the version from the bundle-version annotation). */
export function rollingOutMessage(version: string): string {
  return `Revision ${version} is rolling out.`;
}

/** `Revision <bundle version> has rolled out.` */
function rolledOutMessage(version: string): string {
  return `Revision ${version} has rolled out.`;
}

/**
 * Progressing True with `reason`; a non-terminal reason (RollingOut, Retrying) past the deadline
 * becomes Progressing False ProgressDeadlineExceeded, keeping the message as the last status.
 */
export function markProgressing(cos: ClusterObjectSet, reason: string, message: string, deadline: Deadline | undefined): void {
  if (reason !== ClusterExtensionReason.Succeeded && deadline?.exceeded === true) {
    const minutes = cos.spec.progressDeadlineMinutes ?? 0;
    set(
      cos,
      ObjectSetConditionType.Progressing,
      'False',
      ClusterExtensionReason.ProgressDeadlineExceeded,
      `Revision has not rolled out for ${minutes} minute(s). Last status: ${message}`,
    );
    return;
  }
  set(cos, ObjectSetConditionType.Progressing, 'True', reason, message);
}

/** Progressing False with `reason` (Blocked: only a person can help). */
export function markNotProgressing(cos: ClusterObjectSet, reason: string, message: string): void {
  set(cos, ObjectSetConditionType.Progressing, 'False', reason, message);
}

/** A retried failure: Progressing Retrying, and Available Unknown Reconciling when Available was set before. */
export function markRetrying(cos: ClusterObjectSet, message: string, deadline: Deadline | undefined): void {
  markProgressing(cos, ObjectSetReason.Retrying, message, deadline);
  if (conditionsOf(cos).some((c) => c.type === ObjectSetConditionType.Available)) {
    set(cos, ObjectSetConditionType.Available, 'Unknown', ObjectSetReason.Reconciling, message);
  }
}

/** Every object passes its probes: Progressing Succeeded, Available ProbesSucceeded, Succeeded True. */
export function markSucceeded(cos: ClusterObjectSet, version: string): void {
  markProgressing(cos, ClusterExtensionReason.Succeeded, rolledOutMessage(version), undefined);
  set(cos, ObjectSetConditionType.Available, 'True', ObjectSetReason.ProbesSucceeded, PROBES_SUCCEEDED_MESSAGE);
  set(cos, ObjectSetConditionType.Succeeded, 'True', ClusterExtensionReason.Succeeded, SUCCEEDED_MESSAGE);
}

/**
 * Still rolling out: Available False, ProbeFailure with the failing objects' lines when there
 * are any (else RollingOut), and Progressing RollingOut.
 */
export function markRollingOut(cos: ClusterObjectSet, version: string, probeFailures: readonly string[], deadline: Deadline | undefined): void {
  if (probeFailures.length > 0) set(cos, ObjectSetConditionType.Available, 'False', ObjectSetReason.ProbeFailure, probeFailures.join('\n'));
  else set(cos, ObjectSetConditionType.Available, 'False', ClusterExtensionReason.RollingOut, rollingOutMessage(version));
  markProgressing(cos, ClusterExtensionReason.RollingOut, rollingOutMessage(version), deadline);
}

/** Archived: Progressing False and Available Unknown, both reason Archived. */
export function markArchived(cos: ClusterObjectSet): void {
  set(cos, ObjectSetConditionType.Progressing, 'False', ObjectSetReason.Archived, ARCHIVED_MESSAGE);
  set(cos, ObjectSetConditionType.Available, 'Unknown', ObjectSetReason.Archived, ARCHIVED_MESSAGE);
}
