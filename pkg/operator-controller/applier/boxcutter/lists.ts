/**
 * The revisions of an extension as the reads of one ClusterExtension reconcile share them
 * (issue 74): its records' history, the deployed revision and the applier's look at the newest
 * one each listed the extension's ClusterObjectSets again, three to four lists a reconcile where
 * one answers them all. A reconcile opts in with `begin`, which gives it a signal of its own:
 * reads with that signal share one list per extension until the reconcile writes the
 * extension's revisions (`changed`: a read after a write lists again) or ends (its `held` stack
 * is disposed). Reads with any other signal list each time. Nothing is kept across reconciles,
 * so every reconcile starts from a fresh list, as before; the uninstall's deletes list for
 * themselves (store.ts `deleteRevisions`), unshared.
 */
import type { ObjectSetManifest } from './revision.ts';

/** Lists the revisions of an extension, oldest first (store.ts `listRevisions` over a client). */
type ListRevisions = (name: string, signal?: AbortSignal) => Promise<ObjectSetManifest[]>;

/** See the module comment. */
export class RevisionLists {
  readonly #list: ListRevisions;
  readonly #byReconcile = new WeakMap<AbortSignal, Map<string, Promise<ObjectSetManifest[]>>>();

  constructor(list: ListRevisions) {
    this.#list = list;
  }

  /**
   * A reconcile's signal (following `signal`) under which reads share their lists until the
   * reconcile ends, when `held` (its StepReconciler stack) is disposed.
   */
  begin(signal: AbortSignal, held: DisposableStack): AbortSignal {
    const own = AbortSignal.any([signal]);
    this.#byReconcile.set(own, new Map());
    held.defer(() => this.#byReconcile.delete(own));
    return own;
  }

  /** The revisions of extension `name`, oldest first, as the lister: listed once per `begin`'s signal until `changed`. */
  async list(name: string, signal?: AbortSignal): Promise<ObjectSetManifest[]> {
    const lists = signal === undefined ? undefined : this.#byReconcile.get(signal);
    if (lists === undefined) return this.#list(name, signal);
    let listed = lists.get(name);
    if (listed === undefined) {
      listed = this.#list(name, signal);
      lists.set(name, listed);
      // A failed list is not kept: the next read tries again.
      const kept = lists;
      listed.catch(() => {
        if (kept.get(name) === listed) kept.delete(name);
      });
    }
    // Each caller gets its own array (the revisions themselves are read-only).
    return [...(await listed)];
  }

  /** The reconcile of `signal` wrote `name`'s revisions: its next read lists them again. */
  changed(name: string, signal?: AbortSignal): void {
    if (signal !== undefined) this.#byReconcile.get(signal)?.delete(name);
  }
}
