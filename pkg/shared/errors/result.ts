/**
 * A minimal Result for expected failures: functions whose failure is an ordinary outcome
 * (a resolution that finds nothing, a file that does not validate) return one of these
 * instead of throwing.
 */
export type Result<T, E = string> = { ok: true; value: T } | { ok: false; error: E };

/** A successful Result. */
export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/** A failed Result. */
export function err<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}
