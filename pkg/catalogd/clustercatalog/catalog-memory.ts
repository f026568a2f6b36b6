/**
 * What the leader remembers about each catalog between reconciles, in memory only (upstream
 * keeps the same): the poll entry of its last successful reconcile (poll-state.ts) and, after a
 * failure for a resource limit, the hold that keeps it from being tried again before the retry
 * floor (ingest-bounds.ts). One instance per reconciler, shared by its steps; tests seed and
 * read it.
 */
import type { PollEntry } from './poll-state.ts';

/** A catalog that failed for a resource limit: its generation then, until when it rests (epoch ms), and the error. */
interface Held {
  generation: number;
  until: number;
  error: Error;
}

/** See the module comment. */
export class CatalogMemory {
  readonly #polls = new Map<string, PollEntry>();
  readonly #held = new Map<string, Held>();

  /** What the last successful reconcile of `name` stored, if it is still remembered. */
  pollEntry(name: string): PollEntry | undefined {
    return this.#polls.get(name);
  }

  /** Records a successful reconcile of `name`. */
  rememberPoll(name: string, entry: PollEntry): void {
    this.#polls.set(name, entry);
  }

  /** Forgets the poll entry of `name`, so its next reconcile checks the source again (any failure does this). */
  forgetPoll(name: string): void {
    this.#polls.delete(name);
  }

  /** The hold of `name`, if any. */
  held(name: string): Held | undefined {
    return this.#held.get(name);
  }

  /** Holds `name` after a failure for a resource limit. */
  hold(name: string, held: Held): void {
    this.#held.set(name, held);
  }

  /** Ends the hold of `name`. */
  release(name: string): void {
    this.#held.delete(name);
  }

  /** Forgets everything about `name` (its content is gone). */
  forget(name: string): void {
    this.forgetPoll(name);
    this.release(name);
  }
}
