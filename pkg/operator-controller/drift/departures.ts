/**
 * How an object leaves a drift watch: a delete the reconcile announced before making it (the
 * objects a new release drops: `ExpectedDeletes`, not drift), or one somebody else made, which
 * `departure` tells apart from a relabel (the watch selects by the owner labels, so both look
 * like a delete to it).
 */
import { refOf } from '../applier/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';

/** Bound of the GET that tells a deleted object from a relabelled one (only the log line waits for it). */
const DEPARTURE_CHECK_MS = 10_000;

/** Key of an announced delete: kind, namespace (`*` when the object names none) and name. */
function keyOf(kind: string, namespace: string | undefined, name: string | undefined): string {
  return `${kind}|${namespace ?? '*'}|${name ?? ''}`;
}

/** Deletes the reconcile announced, per extension, each expected once for at most `ttlMs`. */
export class ExpectedDeletes {
  readonly #ttlMs: number;
  readonly #now: () => number;
  /** Per extension: announced deletes and until when they are expected. */
  readonly #byExtension = new Map<string, Map<string, number>>();

  constructor(ttlMs: number, now: () => number = Date.now) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** Announces that the reconcile of `extension` is about to delete `objects`. */
  add(extension: string, objects: readonly KubeObject[]): void {
    if (objects.length === 0) return;
    const until = this.#now() + this.#ttlMs;
    const expected = this.#byExtension.get(extension) ?? new Map<string, number>();
    for (const o of objects) expected.set(keyOf(o.kind, o.metadata.namespace, o.metadata.name), until);
    this.#byExtension.set(extension, expected);
  }

  /** True (once) when the delete of `obj` was announced and the announcement has not expired. */
  take(extension: string, obj: Readonly<KubeObject>): boolean {
    const expected = this.#byExtension.get(extension);
    if (expected === undefined) return false;
    const now = this.#now();
    for (const [key, until] of expected) if (until < now) expected.delete(key);
    const { kind, metadata } = obj;
    for (const key of [keyOf(kind, metadata.namespace, metadata.name), keyOf(kind, undefined, metadata.name)]) {
      if (!expected.delete(key)) continue;
      if (expected.size === 0) this.#byExtension.delete(extension);
      return true;
    }
    return false;
  }

  /** Forgets every announcement of `extension`. */
  forget(extension: string): void {
    this.#byExtension.delete(extension);
  }
}

/**
 * Logs why `obj` left its watch: deleted (gone, or re-created with another uid), or relabelled
 * (still there with the same uid, so its owner labels were removed or changed). Runs after the
 * enqueue, so the line may follow the reconcile's first lines; never rejects.
 */
export async function departure(client: KubeClient, obj: Readonly<KubeObject>, signal: AbortSignal): Promise<'deleted' | 'relabelled' | 'unknown'> {
  const { metadata } = obj;
  try {
    const live = await client.get(refOf(obj), { signal: AbortSignal.any([signal, AbortSignal.timeout(DEPARTURE_CHECK_MS)]) });
    // A missing uid (a first list's missing object) cannot tell re-creation; the object exists without our labels.
    return metadata.uid === undefined || live.metadata.uid === metadata.uid ? 'relabelled' : 'deleted';
  } catch (err) {
    return isNotFound(err) ? 'deleted' : 'unknown';
  }
}
