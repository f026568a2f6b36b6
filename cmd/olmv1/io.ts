/**
 * The streams a command writes to. Commands take this instead of touching `process` so they
 * can be run and asserted in tests.
 */
import { pollUntilDone } from '../../pkg/shared/poll/index.ts';

/** Where a command writes: process.stdout/stderr, or test doubles that collect the text. */
export interface CommandIO {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

/** A command: argv after the command words in, exit code out. */
export type Command = (args: string[], io: CommandIO) => Promise<number>;

/** Exit codes shared by all commands: 0 success, 1 the operation failed, 2 usage error. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/**
 * The exit code of a command stopped by a signal, as shells report a process the signal
 * killed: 128 + its number (130 for SIGINT, 143 for SIGTERM). `reason` is the abort reason the
 * CLI's shutdown signal carries: the signal's name; anything else counts as SIGINT.
 */
export function signalExitCode(reason: unknown): number {
  return reason === 'SIGTERM' ? 143 : 130;
}

/** The timers of the commands that wait (a fake in tests). */
export interface Clock {
  sleep(ms: number): Promise<void>;
  /** Milliseconds since the epoch. */
  now(): number;
}

/**
 * Looks until `progress` of the last look is undefined (done) or `timeoutMs` passed, at most a
 * second apart; each new progress text goes to stderr after `what`. Returns the last look.
 */
export async function poll<S>(
  what: string,
  timeoutMs: number,
  look: () => Promise<S>,
  progress: (s: S) => string | undefined,
  io: { stderr: { write(chunk: string): unknown } },
  clock: Clock,
): Promise<S> {
  return pollUntilDone(timeoutMs, look, progress, (text) => io.stderr.write(`${what}: ${text}\n`), clock);
}

/** Left-aligned columns separated by three spaces, like kubectl's tables. */
export function table(rows: readonly string[][]): string {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, cell.length);
  }
  return rows.map((row) => `${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('   ')}\n`).join('');
}
