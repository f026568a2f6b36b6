/**
 * Failure vocabulary shared by every module: expected outcomes are values (result.ts),
 * infrastructure failures thrown `Error`s with a `cause`, and a `TerminalError` one retrying
 * cannot fix, reported with its `reason` and not requeued.
 */
import { findCause } from './cause-chain.ts';

/** Condition reason used when a terminal error does not carry a more specific one. */
const DEFAULT_TERMINAL_REASON = 'Blocked';

/** A failure that must not be retried with backoff. `reason` becomes the condition reason. */
export class TerminalError extends Error {
  readonly reason: string;

  constructor(message: string, options?: { reason?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TerminalError';
    this.reason = options?.reason ?? DEFAULT_TERMINAL_REASON;
  }
}

/** True when `err`, or any error among its causes (cause-chain.ts), is a TerminalError. */
export function isTerminal(err: unknown): boolean {
  return findTerminal(err) !== undefined;
}

/** The first TerminalError among `err`'s causes, if any. */
export function findTerminal(err: unknown): TerminalError | undefined {
  return findCause(err, (e): e is TerminalError => e instanceof TerminalError);
}

/** The message of any thrown value, without stack traces. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * True when `err` is an Error carrying a string `code` (Node's system and internal errors:
 * `ENOENT`, `EPERM`, `ERR_BUFFER_TOO_LARGE`, ...), and, when `code` is given, that code. Narrows
 * `err` so the caller may read `err.code` and `err.message` without a cast.
 */
export function isErrno(err: unknown, code?: string): err is NodeJS.ErrnoException & { code: string } {
  if (!(err instanceof Error) || !('code' in err) || typeof err.code !== 'string') return false;
  return code === undefined || err.code === code;
}

/**
 * Wraps `err` as upstream's `fmt.Errorf("<context>: %w", err)`: `<context>: <inner message>`,
 * `err` as the `cause` (where `isTerminal`/`findTerminal` find it, as Go's errors.As). Wrapping
 * a TerminalError directly yields `<context>: terminal error: <message>`, as in Go.
 */
export function wrapError(context: string, err: unknown): Error {
  const inner = err instanceof TerminalError ? `terminal error: ${err.message}` : errorMessage(err);
  return new Error(`${context}: ${inner}`, { cause: err });
}

// Matches the ephemeral socket detail Go's net package puts in errors, e.g.
// "read tcp 10.0.0.1:51234->10.0.0.2:443: ". Retries use a different source port, so the
// detail is removed to keep condition messages stable across attempts.
const SOCKET_DETAIL =
  /(read|write) (tcp|udp) ((?:\d{1,3}\.){3}\d{1,3}|\[[0-9a-fA-F:.%\w]+\])(:\d+)?->((?:\d{1,3}\.){3}\d{1,3}|\[[0-9a-fA-F:.%\w]+\])(:\d+)?(: )?/g;

/** Removes `(read|write) (tcp|udp) <ip[:port]>-><ip[:port]>(: )?` from a message. */
export function sanitizeNetworkError(message: string): string {
  return message.replace(SOCKET_DETAIL, '');
}
