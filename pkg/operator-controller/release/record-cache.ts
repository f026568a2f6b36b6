/**
 * What the release store of this process knows of the record Secrets from its own reads and
 * writes, so that it can skip LISTs: each index Secret's layout (for updates) and each
 * extension's index keys (for pruning). Small: no payload is kept.
 */
import type { KubeObject } from '../../shared/kube/index.ts';
import { isKeyOf } from './naming.ts';
import { parseIndexSecret, type IndexRecord } from './secrets.ts';

/** The two caches of the store (store.ts); both are hints, every miss or conflict reads the API server. */
export class RecordCache {
  readonly #namespace: string;
  /**
   * What this process last read or wrote of each index Secret: enough for an update to skip
   * reading the Secrets of its key (one LIST per status change of a revision). Only one
   * leader writes; a stale entry is met as a conflict on the index's resourceVersion, and the
   * update then reads the Secrets again. A failed update forgets its entry, so the retry reads
   * the key and removes the chunks the failure left; chunks an update interrupted in another
   * process left go with the first update after a restart, or with pruning and uninstall.
   */
  readonly #layouts = new Map<string, IndexRecord>();
  /**
   * The index keys of each extension as its last LIST of indexes here found them, with this
   * process's creates and prunes since (absent: not listed yet). Every reconcile reads the
   * history before it creates a revision, so this is fresh when a prune asks whether anything
   * is over the history limit; when nothing can be, it skips its LIST. A record another process
   * created since is met by the next prune after the next read.
   */
  readonly #indexKeys = new Map<string, Set<string>>();

  constructor(namespace: string) {
    this.#namespace = namespace;
  }

  /** Keeps the names of `indexes`, a LIST of all of `extension`'s, as its keys. */
  listed(extension: string, indexes: readonly KubeObject[]): void {
    this.#indexKeys.set(extension, new Set(indexes.map((i) => i.metadata.name ?? '')));
  }

  /** Keeps the layout of an index Secret as read or written, without its payload. */
  remember(index: KubeObject): void {
    const { firstPiece: _piece, ...layout } = parseIndexSecret(index, this.#namespace);
    this.#layouts.set(layout.key, { ...layout, firstPiece: Buffer.alloc(0) });
  }

  /** The layout of index `key` as last seen here, if any. */
  layout(key: string): IndexRecord | undefined {
    return this.#layouts.get(key);
  }

  /** Forgets the layout of index `key` (a failed update, a pruned revision). */
  forgetLayout(key: string): void {
    this.#layouts.delete(key);
  }

  /** Records a created (`present`) or deleted index key of `extension`, when its keys are known. */
  keyChanged(extension: string, key: string, present: boolean): void {
    const keys = this.#indexKeys.get(extension);
    if (present) keys?.add(key);
    else keys?.delete(key);
  }

  /** How many index keys `extension` has as far as this process knows; undefined when not listed yet. */
  keyCount(extension: string): number | undefined {
    return this.#indexKeys.get(extension)?.size;
  }

  /** Forgets everything about `extension` (its records are being deleted). */
  forget(extension: string): void {
    for (const key of this.#layouts.keys()) if (isKeyOf(key, extension)) this.#layouts.delete(key);
    this.#indexKeys.delete(extension);
  }
}
