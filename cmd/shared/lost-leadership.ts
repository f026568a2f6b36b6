/**
 * What a component's process does when its elected leader lost the Lease: as controller-runtime
 * (whose manager returns `leader election lost` with no graceful stop, and whose binaries log
 * `problem running manager` and exit 1), it ends, and the kubelet starts it again as a candidate.
 * What closes quickly is closed (the component's stop signal aborts); the process exits with
 * code 1 as soon as that is done, or after `boundMs` whatever still runs (open keep-alive
 * connections, a reconcile in progress, a pending request).
 */
import type { Logger } from 'pino';

/** How long a replica that lost its Lease closes its servers and clients before it exits regardless. */
const LOST_LEADERSHIP_EXIT_MS = 3_000;

/** The part of `process` the exit needs (passed in by componentMain, which owns the process). */
interface ExitingProcess {
  exitCode?: number | string | null | undefined;
  exit(code: number): void;
}

/**
 * Returns the function to call once leadership was lost: it logs upstream's line, aborts `stop`
 * (the component's graceful stop begins) and exits with code 1 after `boundMs` at the latest.
 * Calls after the first do nothing.
 */
export function exitOnLostLeadership(proc: ExitingProcess, stop: AbortController, log: Logger, boundMs = LOST_LEADERSHIP_EXIT_MS): () => void {
  let lost = false;
  return () => {
    if (lost) return;
    lost = true;
    const err = new Error('leader election lost');
    log.error({ err }, 'problem running manager');
    proc.exitCode = 1;
    stop.abort(err);
    // Unreferenced: a process that closed everything exits by itself, with code 1, before it.
    setTimeout(() => {
      log.error({ timeoutMs: boundMs }, 'exiting before the stop finished');
      proc.exit(1);
    }, boundMs).unref();
  };
}
