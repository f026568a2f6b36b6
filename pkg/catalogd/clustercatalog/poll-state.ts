/** What the last successful reconcile of a catalog stored, when, and for which generation (CatalogMemory). */
export interface PollEntry {
  digest: string;
  digestRef: string;
  unpackedAt: Date;
  lastSuccessfulPoll: Date;
  observedGeneration: number;
}

/** Polling arithmetic for `pollIntervalMinutes`; tests shorten `minuteMs` to poll in seconds. */
export class PollSchedule {
  readonly #random: () => number;
  readonly #minuteMs: number;

  constructor(options: { random?: () => number; minuteMs?: number } = {}) {
    this.#random = options.random ?? Math.random;
    this.#minuteMs = options.minuteMs ?? 60_000;
  }

  /**
   * Milliseconds until the next poll after a success: the interval stretched by up to 1%
   * (upstream's jitter), so catalogs created together do not poll in lockstep.
   */
  nextAfterSuccess(intervalMinutes: number | undefined): number | undefined {
    if (intervalMinutes === undefined) return undefined;
    return Math.round(intervalMinutes * this.#minuteMs * (1 + 0.01 * this.#random()));
  }

  /** Milliseconds until `entry`'s next poll is due (0: due now), undefined without polling. */
  remaining(entry: PollEntry, intervalMinutes: number | undefined, now: Date): number | undefined {
    if (intervalMinutes === undefined) return undefined;
    return Math.max(0, entry.lastSuccessfulPoll.getTime() + intervalMinutes * this.#minuteMs - now.getTime());
  }
}
