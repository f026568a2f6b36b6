/**
 * What the leader remembers about each catalog between reconciles, in memory only (upstream
 * keeps the same): `polls`, the poll entry of its last successful reconcile (poll-state.ts;
 * any failed reconcile deletes it, so the next one checks the source again), and `held`, after
 * a failure for a resource limit, the hold that keeps it from being tried again before the
 * retry floor (ingest-bounds.ts). One instance per reconciler, shared by its steps.
 */
import type { PollEntry } from './poll-state.ts';

/** A catalog that failed for a resource limit: its generation then, until when it rests (epoch ms), and the error. */
interface Held {
  generation: number;
  until: number;
  error: Error;
}

export class CatalogMemory {
  readonly polls = new Map<string, PollEntry>();
  readonly held = new Map<string, Held>();

  /** Forgets everything about `name` (its content is gone). */
  forget(name: string): void {
    this.polls.delete(name);
    this.held.delete(name);
  }
}
