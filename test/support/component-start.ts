/**
 * Start-up of a component run in the test process (catalogd, operator-controller): ready once
 * its health server answers.
 */
import { vi } from 'vitest';

/**
 * Polls `url` every 100 ms (vitest's `vi.waitFor`) until it answers 2xx. Throws when `running`
 * (the component's run) settles first, with its outcome as the cause, or after `timeoutMs`.
 */
export async function waitForComponent(name: string, url: string, running: Promise<unknown>, timeoutMs: number): Promise<void> {
  let exited: { outcome: unknown } | undefined;
  running.then(
    (outcome: unknown) => (exited ??= { outcome }),
    (outcome: unknown) => (exited ??= { outcome }),
  );
  await vi.waitFor(
    async () => {
      if (exited !== undefined) return;
      const ok = await fetch(url).then(
        (r) => r.ok,
        () => false,
      );
      if (!ok) throw new Error(`${name} did not answer ${url} within ${timeoutMs / 1000} s`);
    },
    { timeout: timeoutMs, interval: 100 },
  );
  if (exited !== undefined) throw new Error(`${name} exited during start-up`, { cause: exited.outcome });
}
