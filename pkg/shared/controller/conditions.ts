/**
 * `metav1.Condition` lists with apimachinery's `meta.SetStatusCondition` semantics
 * (decision 0063): new types are appended, `lastTransitionTime` moves only when
 * `status` changes, reason/message/observedGeneration are overwritten in place, order is kept.
 */

/** Condition status values. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A `metav1.Condition`. `lastTransitionTime` is RFC 3339 with seconds precision. */
export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** What a caller sets: the time is filled in when omitted (or empty). */
type ConditionInput = Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string };

/** Suffix appended by `truncateConditionMessage`. */
export const TRUNCATION_SUFFIX = '\n\n... [message truncated]';

/** Longest condition message the API accepts (bytes). */
export const MAX_CONDITION_MESSAGE_BYTES = 32768;

/** A `metav1.Time` string for `date`: RFC 3339 in UTC, whole seconds (as Go serializes it). */
export function metaTime(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Applies `input` to `conditions` in place; returns true when anything changed.
 * `now` supplies the transition time when the input carries none.
 */
export function setStatusCondition(conditions: Condition[], input: ConditionInput, now: () => Date = () => new Date()): boolean {
  const existing = conditions.find((c) => c.type === input.type);
  const given = input.lastTransitionTime === undefined || input.lastTransitionTime === '' ? undefined : input.lastTransitionTime;
  if (existing === undefined) {
    const created: Condition = {
      type: input.type,
      status: input.status,
      reason: input.reason,
      message: input.message,
      lastTransitionTime: given ?? metaTime(now()),
    };
    if (input.observedGeneration !== undefined) created.observedGeneration = input.observedGeneration;
    conditions.push(created);
    return true;
  }
  let changed = false;
  if (existing.status !== input.status) {
    existing.status = input.status;
    existing.lastTransitionTime = given ?? metaTime(now());
    changed = true;
  }
  if (existing.reason !== input.reason) {
    existing.reason = input.reason;
    changed = true;
  }
  if (existing.message !== input.message) {
    existing.message = input.message;
    changed = true;
  }
  // Go's zero value: an absent observedGeneration equals 0.
  if ((existing.observedGeneration ?? 0) !== (input.observedGeneration ?? 0)) {
    if (input.observedGeneration === undefined || input.observedGeneration === 0) delete existing.observedGeneration;
    else existing.observedGeneration = input.observedGeneration;
    changed = true;
  }
  return changed;
}

/** Removes the condition of `type` in place; returns true when one was removed. */
export function removeCondition(conditions: Condition[], type: string): boolean {
  const i = conditions.findIndex((c) => c.type === type);
  if (i < 0) return false;
  conditions.splice(i, 1);
  return true;
}

/**
 * Limits `message` to 32768 UTF-8 bytes: longer ones keep their first
 * `32768 - len(TRUNCATION_SUFFIX)` bytes followed by the suffix. Unlike Go's byte slice, the
 * cut never splits a multi-byte character (it backs off to the previous character boundary).
 */
export function truncateConditionMessage(message: string): string {
  const bytes = Buffer.from(message, 'utf8');
  if (bytes.length <= MAX_CONDITION_MESSAGE_BYTES) return message;
  let cut = MAX_CONDITION_MESSAGE_BYTES - Buffer.byteLength(TRUNCATION_SUFFIX);
  // Continuation bytes are 10xxxxxx; never start the suffix in the middle of a character.
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut--;
  return bytes.subarray(0, cut).toString('utf8') + TRUNCATION_SUFFIX;
}
