/**
 * The status/finalizer write pattern of upstream's reconcilers (decision 0063): reconcile a deep
 * copy, then write back only what changed (status via PUT .../status, finalizers via a merge patch
 * guarded by resourceVersion), and refuse reconcilers that touched spec or metadata.
 */
import { TerminalError, errorMessage, findTerminal, type Result } from '../errors/index.ts';
import { isNotFound, type KubeClient, type KubeObject, type ObjectRef } from '../kube/index.ts';
import type { Finalizable } from './finalizers.ts';
import { PanicError } from './reconciler.ts';

/** Message of the PanicError thrown when reconcile logic changed spec, labels or annotations. */
const UNEXPECTED_CHANGE_MESSAGE = 'spec or metadata changed by reconciler';

/** What the status write pattern calls of a client: read the object, PUT its status, merge-patch its finalizers. */
export type StatusClient = Pick<KubeClient, 'get' | 'updateStatus' | 'patch'>;

/** What `reconcileParsedWithStatus` needs of a parsed API object (its finalizers as finalizers.ts reads them). */
export interface WorkingObject {
  metadata: Finalizable['metadata'] & { labels?: Record<string, string> | undefined; annotations?: Record<string, string> | undefined };
  spec?: unknown;
  status?: unknown;
}

/** Input of `reconcileParsedWithStatus`. */
interface ParsedStatusWriteRequest<T extends WorkingObject, R> {
  client: StatusClient;
  ref: ObjectRef;
  /** The API module's parser (e.g. parseClusterExtension); a failure is terminal, nothing written. */
  parse: (input: unknown) => Result<T, string>;
  /** Gets a deep copy of the parsed object and may change only `status` and `metadata.finalizers`. */
  reconcile: (working: T) => Promise<R>;
  signal?: AbortSignal;
}

/**
 * Runs `reconcile` on a copy of the parsed object and writes back its status (in place of the
 * stored one) and finalizer changes, even when it threw. Resolves with its result, or undefined
 * (without calling it) when the object does not exist. Throws its error joined (joinErrors) with
 * `error updating status: <err>` / `error updating finalizers: <err>`, and PanicError `spec or
 * metadata changed by reconciler` (after writing status) when it changed spec, labels or
 * annotations.
 */
export async function reconcileParsedWithStatus<T extends WorkingObject, R>(req: ParsedStatusWriteRequest<T, R>): Promise<R | undefined> {
  const { client, ref } = req;
  const opts = req.signal === undefined ? {} : { signal: req.signal };
  let stored: KubeObject;
  try {
    stored = await client.get(ref, opts);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  const parsed = req.parse(stored);
  if (!parsed.ok) throw new TerminalError(parsed.error);
  const existing = parsed.value;
  const working = structuredClone(existing);
  let result: R | undefined = undefined;
  const errors: unknown[] = [];
  try {
    result = await req.reconcile(working);
  } catch (err) {
    errors.push(err);
  }

  let resourceVersion = stored.metadata.resourceVersion;
  if (!jsonEqual(existing.status, working.status)) {
    try {
      const updated = await client.updateStatus({ ...stored, status: working.status }, opts);
      resourceVersion = updated.metadata?.resourceVersion ?? resourceVersion;
    } catch (err) {
      errors.push(new Error(`error updating status: ${errorMessage(err)}`, { cause: err }));
    }
  }
  if (unexpectedChange(existing, working)) throw new PanicError(UNEXPECTED_CHANGE_MESSAGE);

  const finalizers = working.metadata.finalizers ?? [];
  if (!jsonEqual(stored.metadata.finalizers ?? [], finalizers)) {
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

function unexpectedChange(before: WorkingObject, after: WorkingObject): boolean {
  return (
    !jsonEqual(before.spec, after.spec) ||
    !jsonEqual(before.metadata.labels, after.metadata.labels) ||
    !jsonEqual(before.metadata.annotations, after.metadata.annotations)
  );
}

/**
 * Joins errors like Go's `errors.Join`: one is returned unchanged; several become one with their
 * messages on lines (`cause`: an AggregateError), a TerminalError when any is terminal.
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
 * True when `a` and `b` encode to the same JSON document (apimachinery's semantic DeepEqual for
 * decoded JSON): key order is irrelevant and an `undefined` property counts as absent.
 */
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
