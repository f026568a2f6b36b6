/**
 * Waiting with a bound, progress told as it changes: the waits of `olmv1 install`, `uninstall`
 * and the commands that follow an object until it is done (pure over an injected clock).
 */

/** The clock a wait is measured on. */
export interface PollClock {
  sleep(ms: number): Promise<void>;
  /** Milliseconds since the epoch. */
  now(): number;
}

/**
 * Reads `look` at most a second apart until `pending` says it is done (undefined) or `timeoutMs`
 * passed; each change of what `pending` says is told to `progress`. Returns the last state read.
 */
export async function pollUntilDone<S>(
  timeoutMs: number,
  look: () => Promise<S>,
  pending: (s: S) => string | undefined,
  progress: (text: string) => void,
  clock: PollClock,
): Promise<S> {
  const deadline = clock.now() + timeoutMs;
  let last = '';
  for (;;) {
    const state = await look();
    const text = pending(state);
    if (text === undefined) return state;
    if (text !== last) progress(text);
    last = text;
    if (clock.now() >= deadline) return state;
    await clock.sleep(Math.min(1000, Math.max(0, deadline - clock.now())));
  }
}
