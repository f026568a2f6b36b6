/**
 * When a revision waiting on its probes is looked at again without an event (issue 74). Its
 * objects' watches (watches.ts) queue it when one of them changes (a CRD's Established, a
 * Deployment's availability: every probe reads an object of the revision, and every kind of them
 * is watched), as upstream relies on its tracking cache alone and requeues a waiting revision only
 * at its progress deadline. Ours polls besides, as a safety net for what no watch delivers (an
 * object whose status changed before its informer's first list, a kind not servable yet when the
 * revision was watched, an identity not allowed to watch): after `firstMs` once a phase more
 * passed, doubling up to `maxMs` while none does, never past the deadline. Decision 0158.
 */
import type { Deadline } from './deadline.ts';

/** The safety net's schedule. */
interface ProbeWaitOptions {
  /** The first wait after the revision's phases progressed. */
  firstMs: number;
  /** The longest wait. */
  maxMs: number;
}

/** 10 s after progress (upstream's flat retry of the other waits), doubling to 5 minutes. */
export const DEFAULT_PROBE_WAIT: ProbeWaitOptions = { firstMs: 10_000, maxMs: 300_000 };

/** Where a waiting revision stands: its phases passed, and its waits since the last of them passed. */
interface Waiting {
  passed: number;
  waits: number;
}

/** The revision's standing after one more reconcile that left it waiting with `passed` phases passed. Pure. */
export function nextWaiting(previous: Waiting | undefined, passed: number): Waiting {
  return previous?.passed === passed ? { passed, waits: previous.waits + 1 } : { passed, waits: 0 };
}

/** The wait before the revision standing at `w` is looked at again: the schedule's, capped by the time left before `deadline`. Pure. */
export function probeWaitMs(w: Waiting, o: ProbeWaitOptions, deadline: Deadline | undefined): number {
  const wait = Math.min(o.maxMs, o.firstMs * 2 ** Math.min(w.waits, 30));
  return deadline !== undefined && !deadline.exceeded ? Math.min(wait, deadline.remainingMs) : wait;
}

/** Each waiting revision's standing, in memory (lost on restart: the first reconcile starts over at `firstMs`). */
export class ProbeWaits {
  readonly #o: ProbeWaitOptions;
  readonly #waiting = new Map<string, Waiting>();

  constructor(options: ProbeWaitOptions = DEFAULT_PROBE_WAIT) {
    this.#o = options;
  }

  /** Records a reconcile that left `revision` waiting with `passed` phases passed; the wait before it is looked at again. */
  next(revision: string, passed: number, deadline: Deadline | undefined): number {
    const w = nextWaiting(this.#waiting.get(revision), passed);
    this.#waiting.set(revision, w);
    return probeWaitMs(w, this.#o, deadline);
  }

  /** Forgets `revision` (it no longer waits, or is gone). */
  forget(revision: string): void {
    this.#waiting.delete(revision);
  }
}
