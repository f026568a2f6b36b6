/**
 * Start-up of a component run in the test process (catalogd, operator-controller): ready once
 * its health server answers.
 */

/**
 * Polls `url` every 100 ms until it answers 2xx. Throws when `running` (the component's run)
 * settles first, with its outcome as the cause, or after `timeoutMs`.
 */
export async function waitForComponent(name: string, url: string, running: Promise<unknown>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    const exited = await Promise.race([
      running.then(
        () => true,
        () => true,
      ),
      new Promise<false>((r) => setTimeout(() => r(false), 100)),
    ]);
    if (exited) throw new Error(`${name} exited during start-up`, { cause: await running.catch((e: unknown) => e) });
    if (Date.now() > deadline) throw new Error(`${name} did not answer ${url} within ${timeoutMs / 1000} s`);
  }
}
