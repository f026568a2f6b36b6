/** A page's writes: each one's outcome (what it did, or the server's refusal) kept for the page to show. */
import { useState } from 'react';

/** `act(p, ok)` clears the last outcome, then keeps `ok` when `p` resolves (and calls `then`) or the refusal's text. */
export function useAction(then: () => void) {
  const [error, setError] = useState<string | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const act = (p: Promise<unknown>, ok: string): void => {
    setError(undefined);
    setDone(undefined);
    p.then(
      () => {
        setDone(ok);
        then();
      },
      (e: unknown) => setError(String((e as Error).message)),
    );
  };
  return { error, done, act };
}
