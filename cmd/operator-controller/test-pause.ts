/**
 * TEST HOOK, not a feature: `OLMV1_TEST_PAUSE_AT` makes operator-controller stop forever at a
 * named point of one extension's reconcile, so that an end-to-end test can SIGKILL it exactly
 * there (test/e2e/operator-controller-crash). Unset (production), no hook is composed at all.
 *
 *   OLMV1_TEST_PAUSE_AT=<extension>=<point>[#<n>][,<extension>=<point>[#<n>]...]
 *
 * Points: `step:<name>` before a reconcile step (reconcilers.ts); `release-write` before a write
 * of a release record Secret; `object-write` before an apply or delete of one of the extension's
 * objects (pausing-clients.ts). `#n` (default 1): the n-th time in this process. On pausing it
 * logs `test hook: paused`.
 */
import type { Logger } from 'pino';

/** Where to pause: the n-th time `point` is reached for `extension`. */
export interface PauseAt {
  extension: string;
  point: string;
  occurrence: number;
}

/** Awaited at each named point; never resolves at the one it pauses at. */
export type PauseHook = (point: string, extension: string) => Promise<void>;

const POINT = /^(step:[a-z]+|release-write|object-write)$/;

/** Parses the `OLMV1_TEST_PAUSE_AT` value; throws an Error naming the bad entry. */
export function parsePauseAt(value: string): PauseAt[] {
  return value.split(',').map((entry) => {
    const m = /^([a-z0-9][a-z0-9.-]*)=([^#]+)(?:#([1-9][0-9]*))?$/.exec(entry.trim());
    if (m === null || !POINT.test(m[2] ?? '')) {
      throw new Error(
        `invalid OLMV1_TEST_PAUSE_AT entry ${JSON.stringify(entry)} (want EXTENSION=POINT[#N], POINT step:NAME, release-write or object-write)`,
      );
    }
    return { extension: m[1] ?? '', point: m[2] ?? '', occurrence: Number(m[3] ?? '1') };
  });
}

/** The hook pausing at `at`, or undefined when there is nothing to pause at. */
export function pauseHook(at: readonly PauseAt[] | undefined, log: Logger): PauseHook | undefined {
  if (at === undefined || at.length === 0) return undefined;
  const seen = new Map<string, number>();
  return async (point, extension) => {
    const key = `${extension}=${point}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (!at.some((p) => p.extension === extension && p.point === point && p.occurrence === n)) return;
    log.warn({ extension, point, occurrence: n }, 'test hook: paused');
    await new Promise<never>(() => undefined);
  };
}
