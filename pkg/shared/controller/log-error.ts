/**
 * How the components log an `err` field: pino's errWithCause, with stack traces only where they
 * help. An expected failure says what went wrong in its messages, and a stack would add lines to
 * every retry; a programming error (what isPanic counts) anywhere in the chain keeps every stack.
 */
import { stdSerializers } from 'pino';
import { findCause } from '../errors/index.ts';
import { isPanic } from './reconciler.ts';

/** A serialized error: pino's shape, nested for causes and AggregateError members. */
type SerializedError = ReturnType<typeof stdSerializers.errWithCause>;

/**
 * The pino `err` serializer of the components. Values that are not Errors are serialized as
 * pino's errWithCause does; a programming error keeps its stacks, any other Error loses them.
 */
export function logErrorSerializer(err: unknown): unknown {
  if (!(err instanceof Error)) return stdSerializers.errWithCause(err as Error);
  const serialized = stdSerializers.errWithCause(err);
  if (hasProgrammingError(err)) return serialized;
  stripStacks(serialized, new Set());
  return serialized;
}

/** True when `err` or one of its causes is a programming error (a non-Error cause does not count). */
function hasProgrammingError(err: Error): boolean {
  return findCause(err, (e): e is Error => isPanic(e)) !== undefined;
}

/** Removes `stack` from a serialized error and from every serialized error inside it. */
function stripStacks(s: SerializedError, seen: Set<object>): void {
  if (seen.has(s)) return;
  seen.add(s);
  delete (s as { stack?: string }).stack;
  for (const value of Object.values(s)) {
    for (const inner of Array.isArray(value) ? value : [value]) {
      // Nested serialized errors (cause, aggregateErrors, error-valued fields) carry `raw`.
      if (typeof inner === 'object' && inner !== null && (inner as { raw?: unknown }).raw instanceof Error)
        stripStacks(inner as SerializedError, seen);
    }
  }
}
