/**
 * What this process wrote of extensions' revisions until the ClusterObjectSet informer's copy
 * shows it (issue 74, decision 0151): the reads of an extension's revisions come from the
 * informer, as upstream's from its cache, but a copy not yet past this process's own last write
 * would go backwards (a revision it made missing, one it deleted still there), so while one of
 * its writes is not in the copy the revisions are listed from the API server. The same pattern as
 * the StepReconciler's `cached` (decision 0149), for a list: a write is in the copy when the
 * revision it made is there (its uid), the one it deleted is not, the one it updated is no longer
 * at the resourceVersion the update was made on. A live list settles what it shows: a write whose
 * revision is gone since is no longer waited for, a create whose outcome was not known takes the
 * uid listed. Pure: no I/O.
 */

/** A write of one of an extension's revisions, as the informer's copy must show it. */
export interface OwnWrite {
  /** The revision's name. */
  name: string;
  /** Its uid; none: whatever revision of that name (a create whose outcome is not known). */
  uid?: string | undefined;
  /** An update: the resourceVersion it was made on (a copy still at it is behind); a delete: the one it was read at. */
  on?: string | undefined;
  /**
   * A delete: a copy still holding this uid is behind, unless it is past `on` (a revision whose
   * finalizers hold it is updated by the delete: the copy then shows it being deleted).
   */
  gone?: boolean;
}

/** What a copy of a revision shows of it. */
interface Copy {
  metadata: { name: string; uid?: string | undefined; resourceVersion?: string | undefined };
}

/** Whether `copies` (an extension's revisions) show `write`. */
function shows(write: OwnWrite, copies: readonly Copy[]): boolean {
  const copy = copies.find((c) => c.metadata.name === write.name);
  if (write.gone === true)
    return copy === undefined || copy.metadata.uid !== write.uid || (write.on !== undefined && copy.metadata.resourceVersion !== write.on);
  if (copy === undefined) return false;
  if (write.uid !== undefined && copy.metadata.uid !== write.uid) return false;
  return write.on === undefined || copy.metadata.resourceVersion !== write.on;
}

/** `write` as a live list `live` settles it: undefined when no copy need show it any more. */
function settled(write: OwnWrite, live: readonly Copy[]): OwnWrite | undefined {
  const now = live.find((c) => c.metadata.name === write.name);
  // Deleted but still listed (its finalizers hold it): a copy need only show it being deleted (past `on`).
  if (write.gone === true) return now !== undefined && now.metadata.uid === write.uid && write.on === undefined ? undefined : write;
  if (now === undefined) return undefined;
  if (write.uid === undefined) return { ...write, uid: now.metadata.uid };
  return now.metadata.uid === write.uid ? write : undefined;
}

/** See the module comment: per extension, its writes not yet in the informer's copy. */
export class OwnWrites {
  readonly #pending = new Map<string, OwnWrite[]>();

  /** Extension `extension`'s revisions were written so. */
  wrote(extension: string, writes: readonly OwnWrite[]): void {
    if (writes.length === 0) return;
    this.#pending.set(extension, [...(this.#pending.get(extension) ?? []), ...writes]);
  }

  /** Whether `copies` show every write of `extension`'s revisions (those shown are no longer waited for). */
  current(extension: string, copies: readonly Copy[]): boolean {
    const pending = this.#pending.get(extension);
    if (pending === undefined) return true;
    const left = pending.filter((w) => !shows(w, copies));
    this.#set(extension, left);
    return left.length === 0;
  }

  /** `live`, listed from the API server, settles the writes of `extension` (see `settled`). */
  listed(extension: string, live: readonly Copy[]): void {
    const pending = this.#pending.get(extension);
    if (pending !== undefined)
      this.#set(
        extension,
        pending.flatMap((w) => settled(w, live) ?? []),
      );
  }

  /** How many extensions have writes waited for (tests, bounds). */
  get size(): number {
    return this.#pending.size;
  }

  #set(extension: string, writes: OwnWrite[]): void {
    if (writes.length === 0) this.#pending.delete(extension);
    else this.#pending.set(extension, writes);
  }
}
