/**
 * What the health step was told last about each extension (DriftWatches.health), so that a
 * watch event queues a reconcile only when it changes that, and a check later when what it was
 * told came from apply answers rather than from listed watches: if the watches still have not
 * listed by then, the reconcile the check queues reports them not observed.
 */
import type { ReleaseHealth } from './health.ts';

/** The health handed out last (JSON), and the check scheduled after it. */
interface Reported {
  json: string;
  recheck?: NodeJS.Timeout | undefined;
}

/** See the module comment. */
export class HealthReports {
  readonly #reported = new Map<string, Reported>();

  /**
   * `health` was handed out for `extension`; with `recheck`, its `run` is called `afterMs` later
   * (once, replacing one scheduled before; it does not hold the process open).
   */
  report(extension: string, health: ReleaseHealth, recheck?: { afterMs: number; run: () => void }): void {
    clearTimeout(this.#reported.get(extension)?.recheck);
    const reported: Reported = { json: JSON.stringify(health) };
    if (recheck !== undefined) {
      reported.recheck = setTimeout(() => {
        reported.recheck = undefined;
        recheck.run();
      }, recheck.afterMs);
      reported.recheck.unref();
    }
    this.#reported.set(extension, reported);
  }

  /** True when `health` differs from what was handed out for `extension`; false when nothing was. */
  differs(extension: string, health: ReleaseHealth): boolean {
    const reported = this.#reported.get(extension);
    return reported !== undefined && JSON.stringify(health) !== reported.json;
  }

  forget(extension: string): void {
    clearTimeout(this.#reported.get(extension)?.recheck);
    this.#reported.delete(extension);
  }
}
