/**
 * `spec.progressDeadlineMinutes` (upstream's progress_deadline.go): how long a revision may take
 * to roll out, counted from its creation. Pure.
 */
import { LifecycleState, ObjectSetConditionType, type ClusterObjectSet } from '../../shared/api/index.ts';

/** Time left until the deadline (negative: passed). */
export interface Deadline {
  remainingMs: number;
  exceeded: boolean;
}

/**
 * The deadline of `cos` at `now`, or undefined when none applies: no progressDeadlineMinutes,
 * the revision has succeeded (Succeeded True is a latch: a revision recovering from drift is not
 * held to its first deadline), it is archived, or it is being deleted.
 */
export function progressDeadline(cos: ClusterObjectSet, now: Date): Deadline | undefined {
  const minutes = cos.spec.progressDeadlineMinutes ?? 0;
  if (minutes <= 0) return undefined;
  const succeeded = cos.status?.conditions?.find((c) => c.type === ObjectSetConditionType.Succeeded);
  if (succeeded?.status === 'True') return undefined;
  if (cos.spec.lifecycleState === LifecycleState.Archived) return undefined;
  if (cos.metadata.deletionTimestamp !== undefined) return undefined;
  const created = Date.parse(cos.metadata.creationTimestamp ?? '');
  if (Number.isNaN(created)) return undefined;
  const remainingMs = created + minutes * 60_000 - now.getTime();
  return { remainingMs, exceeded: remainingMs <= 0 };
}

/**
 * The retry delay of a failed reconcile, capped to the time left before the deadline so that
 * ProgressDeadlineExceeded is reported in time (upstream's deadline-aware rate limiter). Once the
 * deadline has passed, `firstPast` (true the first time only) gives one immediate retry.
 */
export function deadlineAwareDelay(backoffMs: number, deadline: Deadline | undefined, firstPast: boolean): number {
  if (deadline === undefined) return backoffMs;
  if (deadline.remainingMs > 0) return Math.min(backoffMs, deadline.remainingMs);
  return firstPast ? 0 : backoffMs;
}
