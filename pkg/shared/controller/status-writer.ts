/**
 * The status/finalizer write pattern of api-and-controllers.md §0.2: reconcile a deep copy,
 * then write back only what changed (status via PUT .../status, finalizers via a merge patch
 * guarded by resourceVersion), and refuse reconcilers that touched spec or metadata.
 */
import { TerminalError, errorMessage, findTerminal } from '../errors/index.ts';
import { isNotFound, type KubeClient, type KubeObject, type ObjectRef } from '../kube/index.ts';
import { PanicError, type ReconcileResult } from './reconciler.ts';

/** Message of the PanicError thrown when reconcile logic changed spec, labels or annotations. */
export const UNEXPECTED_CHANGE_MESSAGE = 'spec or metadata changed by reconciler';

/** Input of `reconcileWithStatus`. */
export interface StatusWriteRequest<T extends KubeObject> {
  client: KubeClient;
  /** The object to reconcile. */
  ref: ObjectRef;
  /**
   * The reconcile logic. It receives a deep copy and may change only `status` and
   * `metadata.finalizers`; it may throw (status is written all the same).
   */
  reconcile: (working: T) => Promise<ReconcileResult | void>;
  signal?: AbortSignal;
}

/**
 * Runs `reconcile` on a copy of the current object and persists its status/finalizer changes.
 * Resolves with the logic's result; resolves undefined (without calling it) when the object
 * does not exist. Throws the logic's error, joined (newline-separated, like Go's errors.Join)
 * with `error updating status: <err>` / `error updating finalizers: <err>`; the joined error
 * is a TerminalError when any part is. Throws PanicError `spec or metadata changed by
 * reconciler` (after writing status) when the logic changed spec, labels or annotations.
 */
export async function reconcileWithStatus<T extends KubeObject>(req: StatusWriteRequest<T>): Promise<ReconcileResult | void> {
  const { client, ref } = req;
  const opts = req.signal === undefined ? {} : { signal: req.signal };
  let existing: T;
  try {
    existing = await client.get<T>(ref, opts);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  const working = structuredClone(existing);
  let result: ReconcileResult | void = undefined;
  const errors: unknown[] = [];
  try {
    result = await req.reconcile(working);
  } catch (err) {
    errors.push(err);
  }

  let resourceVersion = existing.metadata.resourceVersion;
  if (!jsonEqual(existing.status, working.status)) {
    try {
      const updated = await client.updateStatus<T>(working, opts);
      resourceVersion = updated.metadata?.resourceVersion ?? resourceVersion;
    } catch (err) {
      errors.push(new Error(`error updating status: ${errorMessage(err)}`, { cause: err }));
    }
  }
  if (unexpectedChange(existing, working)) throw new PanicError(UNEXPECTED_CHANGE_MESSAGE);

  const finalizers = working.metadata.finalizers ?? [];
  if (!jsonEqual(existing.metadata.finalizers ?? [], finalizers)) {
    try {
      // The resourceVersion in a merge patch is a precondition: a concurrent change conflicts.
      await client.patch(ref, { metadata: { finalizers, resourceVersion } }, 'merge', opts);
    } catch (err) {
      errors.push(new Error(`error updating finalizers: ${errorMessage(err)}`, { cause: err }));
    }
  }
  if (errors.length > 0) throw joinErrors(errors);
  return result;
}

function unexpectedChange(before: KubeObject, after: KubeObject): boolean {
  return (
    !jsonEqual(before.spec, after.spec) ||
    !jsonEqual(before.metadata.labels, after.metadata.labels) ||
    !jsonEqual(before.metadata.annotations, after.metadata.annotations)
  );
}

/**
 * Joins errors like Go's `errors.Join`: one error is returned unchanged; several become one
 * Error whose message is theirs separated by newlines (`cause` = AggregateError of all),
 * a TerminalError (with the first terminal reason) when any of them is terminal.
 */
export function joinErrors(errors: readonly unknown[]): Error {
  if (errors.length === 1 && errors[0] instanceof Error) return errors[0];
  const message = errors.map(errorMessage).join('\n');
  const cause = new AggregateError(errors, message);
  const terminal = errors.map(findTerminal).find((t) => t !== undefined);
  if (terminal !== undefined) return new TerminalError(message, { reason: terminal.reason, cause });
  return new Error(message, { cause });
}

/**
 * Deep equality of JSON-like values, the analogue of apimachinery's semantic DeepEqual for
 * objects decoded from JSON: object key order is irrelevant and a property whose value is
 * `undefined` counts as absent (JSON.stringify would drop it).
 */

/** True when `a` and `b` encode to the same JSON document (up to key order). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) {
    if (!jsonEqual(ao[k], bo[k])) return false;
  }
  return true;
}
