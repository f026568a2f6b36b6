/**
 * What the revision engine last applied of each object, so that a reconcile sends no apply that
 * could change nothing (issue 74): upstream's engine compares the desired object with the live
 * one and applies only what differs; ours applied every object of every reconciled phase, five
 * to ten applies a reconcile of an unchanged revision.
 *
 * An entry is a digest of the object the API server answered our apply (or creating apply) with,
 * status and bookkeeping aside (resourceVersion, managedFields), and a digest of what was
 * applied. The next reconcile still reads the live object and judges it as before (ownership,
 * collisions, probes); only when it is still ours to apply, its content is the one our apply left
 * (nobody changed its metadata or spec since; a status write, such as a CRD's Established or a
 * Deployment's replicas, changes neither) and the desired object is the very one applied then,
 * the apply is skipped: a server-side apply of the same configuration to the content it produced
 * is a no-op. Anything else (an edit, a new desired object, a restart: the entries are in memory)
 * applies as before. Entries are per revision (its uid) and object; the least recently used go
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
    if (entry === undefined || entry.digest !== digestOf(desired) || entry.content !== contentOf(live)) return false;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return true;
  }

  /** Revision `revisionUid` applied `desired`; the API server answered with `answer`. */
  record(revisionUid: string, desired: KubeObject, answer: KubeObject): void {
    const key = keyOf(revisionUid, desired);
    this.#entries.delete(key);
    this.#entries.set(key, { content: contentOf(answer), digest: digestOf(desired) });
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

/** The object's content: all but its status, resourceVersion and managedFields (who wrote what, when). */
function contentOf(obj: KubeObject): string {
  const { status: _status, ...rest } = obj;
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = obj.metadata;
  return createHash('sha256')
    .update(JSON.stringify({ ...rest, metadata }))
    .digest('base64');
}
