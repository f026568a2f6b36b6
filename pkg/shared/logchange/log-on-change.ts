/**
 * Logging a recurring situation once per change: a periodic check (a resync, a retry loop) that
 * finds the same problem every time logs it when it starts and when it changes, not on every
 * pass. The caller keeps one LogOnChange per component part and asks it before logging.
 */

/** The last logged state per key. Not shared across components; no locking needed (one event loop). */
export class LogOnChange {
  /** Made at the first state recorded: every informer (thousands of drift watches) holds one, most never used. */
  #last: Map<string, string> | undefined;

  /**
   * True when `state` differs from the state last recorded under `key` (or none was): the caller
   * logs now. Records `state` either way, so the same state again returns false.
   */
  changed(key: string, state: string): boolean {
    if (this.#last?.get(key) === state) return false;
    (this.#last ??= new Map()).set(key, state);
    return true;
  }

  /**
   * Forgets `key`: the situation ended, and its next occurrence is logged again. True when a
   * state was recorded, so the caller can log that the situation ended.
   */
  clear(key: string): boolean {
    return this.#last?.delete(key) ?? false;
  }

  /** Forgets every key `keep` rejects (e.g. of objects that no longer exist). */
  retain(keep: (key: string) => boolean): void {
    for (const key of [...(this.#last?.keys() ?? [])]) if (!keep(key)) this.#last?.delete(key);
  }
}
