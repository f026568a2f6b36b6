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
   * What this process last read or wrote of each index Secret, so an update can skip its LIST.
   * A stale entry meets a conflict on the resourceVersion, and a failed update forgets its entry.
   */
  readonly #layouts = new Map<string, IndexRecord>();
  /**
   * The index keys of each extension as its last LIST here found them, with this process's
   * creates and prunes since (absent: not listed yet), so a prune that cannot find anything
   * over the limit skips its LIST.
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

  /** Whether `extension` has index `key` as far as this process knows; undefined when not listed yet. */
  hasKey(extension: string, key: string): boolean | undefined {
    return this.#indexKeys.get(extension)?.has(key);
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
