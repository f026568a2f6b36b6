/** Waiting with a bound, progress told as it changes (the uninstall's waits). */

/** The clock waits are measured on. */
export interface WaitClock {
  sleep(ms: number): Promise<void>;
  now(): number;
}

/**
 * Reads `look` about once a second until `pending` says it is done (undefined) or `timeoutMs`
 * passed; each change of what `pending` says is told to `progress`. Returns the last state read.
 */
export async function waitUntilDone<S>(
  timeoutMs: number,
  look: () => Promise<S>,
  pending: (s: S) => string | undefined,
  progress: (text: string) => void,
  clock: WaitClock,
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
