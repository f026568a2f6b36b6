/**
 * The revisions of an extension as the reads of one ClusterExtension reconcile share them
 * (issue 74): its records' history, the deployed revision and the applier's look at the newest
 * one each listed the extension's ClusterObjectSets again, three to four lists a reconcile where
 * one answers them all. A reconcile opts in with `begin`, which gives it a signal of its own:
 * reads with that signal share one read per extension until the reconcile writes the
 * extension's revisions (`changed`: a read after a write reads again) or ends (its `held` stack
 * is disposed). Reads with any other signal read each time.
 *
 * Given the ClusterObjectSet informer's copies (`cached`), a read is served from them, as
 * upstream's reads its cache, unless a write of this process to the extension's revisions is not
 * in them yet (own-writes.ts): then, and without `cached`, the revisions are listed from the API
 * server. No write rests on the copy alone: a new revision is created (AlreadyExists when its
 * number is taken), a revision deleted on its uid, and the revision controller archives on the
 * resourceVersion it read. The uninstall's deletes list for themselves (store.ts
 * `deleteRevisions`), live.
 */
import { OwnWrites, type OwnWrite } from './own-writes.ts';
import type { ObjectSetManifest } from './revision.ts';

/** Lists the revisions of an extension, oldest first (store.ts `listRevisions` over a client). */
type ListRevisions = (name: string, signal?: AbortSignal) => Promise<ObjectSetManifest[]>;

/** The informer's copies of the revisions of an extension, oldest first (store.ts `cachedRevisions`). */
type CachedRevisions = (name: string) => ObjectSetManifest[];

/** See the module comment. */
export class RevisionLists {
  readonly #list: ListRevisions;
  readonly #cached: CachedRevisions | undefined;
  readonly #own = new OwnWrites();
  readonly #byReconcile = new WeakMap<AbortSignal, Map<string, Promise<ObjectSetManifest[]>>>();

  constructor(list: ListRevisions, cached?: CachedRevisions) {
    this.#list = list;
    this.#cached = cached;
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

  /** The revisions of extension `name`, oldest first: read once per `begin`'s signal until `changed`. */
  async list(name: string, signal?: AbortSignal): Promise<ObjectSetManifest[]> {
    const lists = signal === undefined ? undefined : this.#byReconcile.get(signal);
    if (lists === undefined) return this.#read(name, signal);
    let listed = lists.get(name);
    if (listed === undefined) {
      listed = this.#read(name, signal);
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

  /**
   * The reconcile of `signal` wrote `name`'s revisions (`writes`, as own-writes.ts waits for
   * them): its next read reads them again, from the API server until the informer's copy shows
   * `writes`.
   */
  changed(name: string, signal?: AbortSignal, ...writes: OwnWrite[]): void {
    this.#own.wrote(name, writes);
    if (signal !== undefined) this.#byReconcile.get(signal)?.delete(name);
  }

  async #read(name: string, signal?: AbortSignal): Promise<ObjectSetManifest[]> {
    if (this.#cached !== undefined) {
      const copies = this.#cached(name);
      if (this.#own.current(name, copies)) return copies;
    }
    const live = await this.#list(name, signal);
    this.#own.listed(name, live);
    return live;
  }
}
