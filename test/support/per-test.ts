/** Fixtures made anew for each test by hooks, for suites whose tests all need the same setup. */
import { afterEach, beforeEach } from 'vitest';

/**
 * Registers hooks that `make` a fixture before each test of the calling file or suite and
 * `dispose` of it after; the function returned gives the running test's fixture.
 */
export function perTest<T>(make: () => Promise<T>, dispose: (fixture: T) => Promise<void>): () => T {
  let current: T | undefined;
  beforeEach(async () => {
    current = await make();
  });
  afterEach(async () => {
    const done = current;
    current = undefined;
    if (done !== undefined) await dispose(done);
  });
  return () => {
    if (current === undefined) throw new Error('a per-test fixture used outside a test');
    return current;
  };
}

/**
 * Registers a hook aborting, after each test of the calling file or suite, every controller the
 * function returned handed out: a test's "leading" signal, or a subscription it ends itself.
 */
export function abortedAfterEach(): () => AbortController {
  const made: AbortController[] = [];
  afterEach(() => {
    for (const c of made.splice(0)) c.abort();
  });
  return () => {
    const c = new AbortController();
    made.push(c);
    return c;
  };
}
