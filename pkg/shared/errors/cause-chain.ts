/**
 * Walking an error's causes as Go's errors.As does: the `cause` chain, and every error an
 * AggregateError (the cause of a joined error, see pkg/shared/controller's joinErrors) holds.
 */

/** The first error in `err`'s causes (itself included, depth first) that `match` accepts. */
export function findCause<T extends Error>(err: unknown, match: (e: Error) => e is T): T | undefined {
  const seen = new Set<unknown>();
  const walk = (cur: unknown): T | undefined => {
    while (cur instanceof Error && !seen.has(cur)) {
      if (match(cur)) return cur;
      seen.add(cur);
      if (cur instanceof AggregateError) {
        for (const inner of cur.errors) {
          const found = walk(inner);
          if (found !== undefined) return found;
        }
      }
      cur = cur.cause;
    }
    return undefined;
  };
  return walk(err);
}
