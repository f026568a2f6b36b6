/**
 * Polling for a server to become ready, failing fast (with its log) when it dies instead.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describeExit, type ManagedProcess } from './process.ts';
import { errorMessage } from '../../shared/errors/index.ts';

/** Options of waitUntil. */
interface WaitOptions {
  timeoutMs: number;
  /** Pause between checks (default 100 ms). */
  intervalMs?: number;
  /** If this process exits while waiting, fail at once. */
  process?: ManagedProcess;
}

/** Thrown when a server exits while we wait for it; `logTail` holds the end of its log. */
export class ServerExitedError extends Error {
  readonly logTail: string;

  constructor(message: string, logTail: string) {
    super(`${message}\n--- last lines of the log ---\n${logTail}`);
    this.name = 'ServerExitedError';
    this.logTail = logTail;
  }
}

/**
 * Calls `check` until it returns true; a throw counts as "not yet" (servers refuse connections
 * while starting). Throws ServerExitedError when `options.process` exits, and on timeout an
 * Error naming `what`, the last check error and the process log tail.
 */
export async function waitUntil(what: string, check: () => Promise<boolean>, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError = 'not ready';
  for (;;) {
    const proc = options.process;
    const status = proc?.exitStatus();
    if (proc !== undefined && status !== undefined) {
      throw new ServerExitedError(`${proc.name} ${describeExit(status)} while waiting for ${what}`, proc.logTail());
    }
    try {
      if (await check()) return;
    } catch (err) {
      lastError = errorMessage(err);
    }
    if (Date.now() > deadline) {
      const log = proc === undefined ? '' : `\n--- last lines of ${proc.name}'s log ---\n${proc.logTail()}`;
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${what} (last: ${lastError})${log}`);
    }
    await sleep(options.intervalMs ?? 100);
  }
}
