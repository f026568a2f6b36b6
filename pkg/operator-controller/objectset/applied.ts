/**
 * What the revision engine last applied of each object, so that a reconcile sends no apply that
 * could change nothing (issue 74): upstream's engine compares the desired object with the live
 * one and applies only what differs; ours applied every object of every reconciled phase, five
 * to ten applies a reconcile of an unchanged revision.
 *
 * An entry is a digest of the object the API server answered our apply (or creating apply) with,
 * seen through what was applied (`appliedView`: its uid and, of its content, the fields the
 * applied configuration sets, status aside), and a digest of what was applied. The next
 * reconcile still reads the live object and judges it as before (ownership, collisions, probes);
 * only when it is still ours to apply, the fields our configuration sets hold what our apply left
 * and the desired object is the very one applied then, the apply is skipped: a server-side apply
 * of the same configuration would change nothing. What others add beside those fields (the
 * deployment controller's revision annotation, a defaulted field it does not set) is not ours to
 * put back and no longer counts as a change (issue 74: every Deployment was applied once more per
 * install for that annotation); a status write counts as none either. Anything else (an edit of a
 * field we set, a field of ours removed, a new desired object, a restart: the entries are in
 * memory) applies as before. Lists are compared whole, so an item another writer adds to a list
 * we set (a container a webhook injects) applies again as before: harmless, as it always was.
 * A configuration whose fields the answer does not all show (a Secret's `stringData`, which the
 * API server stores as `data`) is compared on the whole content, status and bookkeeping aside,
 * as all were before. Entries are per revision (its uid) and object; the least recently used go
 * past `maxEntries`.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../../shared/kube/index.ts';

/** Entries kept by default: a few per object of a thousand revisions. */
const DEFAULT_MAX_ENTRIES = 20_000;

interface Entry {
  /** The answer's content (contentOf). */
  content: string;
  /** The applied configuration (digestOf). */
  digest: string;
  /** The answer did not show every field applied: `content` is the whole content's (contentOf). */
  whole: boolean;
}

/** See the module comment. One per revision controller. */
export class AppliedObjects {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;

  constructor(maxEntries = DEFAULT_MAX_ENTRIES) {
    this.#maxEntries = maxEntries;
  }

  /** True when `desired` was applied by revision `revisionUid` and `live` is still what that apply left. */
  unchanged(revisionUid: string, desired: KubeObject, live: KubeObject): boolean {
    const key = keyOf(revisionUid, desired);
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.digest !== digestOf(desired)) return false;
    if (entry.content !== (entry.whole ? contentOf(live) : appliedView(live, desired))) return false;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return true;
  }

  /** Revision `revisionUid` applied `desired`; the API server answered with `answer`. */
  record(revisionUid: string, desired: KubeObject, answer: KubeObject): void {
    const key = keyOf(revisionUid, desired);
    this.#entries.delete(key);
    const whole = !shows(answer, shapeOf(desired));
    this.#entries.set(key, { content: whole ? contentOf(answer) : appliedView(answer, desired), digest: digestOf(desired), whole });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(oldest);
    }
  }
}

function keyOf(revisionUid: string, o: KubeObject): string {
  return `${revisionUid}\n${o.apiVersion}\n${o.kind}\n${o.metadata.namespace ?? ''}\n${o.metadata.name ?? ''}`;
}

/** The applied configuration's digest, without the resourceVersion precondition it was sent with. */
function digestOf(desired: KubeObject): string {
  const { resourceVersion: _, ...metadata } = desired.metadata;
  return createHash('sha256')
    .update(JSON.stringify({ ...desired, metadata }))
    .digest('base64');
}

/**
 * A digest of `obj` as the configuration `applied` sees it: its uid (a recreated object is
 * another) and, of its content, the fields `applied` sets (status aside).
 */
function appliedView(obj: KubeObject, applied: KubeObject): string {
  const { status: _live, ...content } = obj;
  return createHash('sha256')
    .update(JSON.stringify([obj.metadata.uid ?? '', project(content, shapeOf(applied))]))
    .digest('base64');
}

/** The fields a configuration sets: all but its status and the resourceVersion it is sent with (a precondition). */
function shapeOf(applied: KubeObject): Record<string, unknown> {
  const { status: _status, ...rest } = applied;
  const { resourceVersion: _rv, ...metadata } = applied.metadata;
  return { ...rest, metadata };
}

/** The object's whole content: all but its status, resourceVersion and managedFields (who wrote what, when). */
function contentOf(obj: KubeObject): string {
  const { status: _status, ...rest } = obj;
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = obj.metadata;
  return createHash('sha256')
    .update(JSON.stringify({ ...rest, metadata }))
    .digest('base64');
}

/** True when `value` has every key `shape` gives a value, recursively through objects. */
function shows(value: unknown, shape: unknown): boolean {
  if (!isPlainObject(shape)) return true;
  if (!isPlainObject(value)) return false;
  return Object.entries(shape).every(([key, v]) => v === null || v === undefined || (value[key] !== undefined && shows(value[key], v)));
}

/**
 * `value` cut down to the keys of `shape`, recursively through objects: a key `shape` has and
 * `value` lacks shows as null; a list or a scalar of `shape` takes `value`'s whole.
 */
function project(value: unknown, shape: unknown): unknown {
  if (!isPlainObject(shape) || !isPlainObject(value)) return value ?? null;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) out[key] = project(value[key], shape[key]);
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
