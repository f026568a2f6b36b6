/**
 * Graceful shutdown plumbing for composition roots: OS signals abort one AbortController that
 * every component's `run(signal)` watches; a second signal, or a stuck shutdown, exits hard.
 */
import type { Logger } from 'pino';

/** The part of `process` the wiring needs (passed in by cmd/, which owns the process). */
interface SignalProcess {
  on(event: NodeJS.Signals, listener: () => void): unknown;
  removeListener(event: NodeJS.Signals, listener: () => void): unknown;
  exit(code: number): void;
}

/** Options of `wireShutdownSignals`. */
interface ShutdownOptions {
  log: Logger;
  /** Exit with code 1 if still running this long after the first signal (default: never). */
  forceExitAfterMs?: number;
}

/**
 * On the first SIGTERM or SIGINT: log and `controller.abort()`; on a second: exit(1) at once
 * (controller-runtime's behaviour). Returns a function that removes the listeners.
 */
export function wireShutdownSignals(proc: SignalProcess, controller: AbortController, options: ShutdownOptions): () => void {
  const signals: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
  let received = 0;
  let timer: NodeJS.Timeout | undefined;
  const handlers = signals.map((sig) => {
    const handler = (): void => {
      received++;
      if (received > 1) {
        options.log.error({ signal: sig }, 'second shutdown signal received, exiting');
        proc.exit(1);
        return;
      }
      options.log.info({ signal: sig }, 'shutdown signal received');
      controller.abort(new Error(`received ${sig}`));
      if (options.forceExitAfterMs !== undefined) {
        timer = setTimeout(() => {
          options.log.error({ timeoutMs: options.forceExitAfterMs }, 'graceful shutdown timed out, exiting');
          proc.exit(1);
        }, options.forceExitAfterMs);
        timer.unref();
      }
    };
    proc.on(sig, handler);
    return [sig, handler] as const;
  });
  return () => {
    clearTimeout(timer);
    for (const [sig, handler] of handlers) proc.removeListener(sig, handler);
  };
}
