/**
 * When a component loads its control part (decision 0097): loading it takes 60-120 ms of CPU on
 * the one thread, so a component first answers its first request (catalogd stored content,
 * operator-controller a readiness probe once synced), then loads the rest, or after a short wait
 * when none comes. Nothing depends on the control part starting that much later.
 */
import type { EventEmitter } from 'node:events';
import { sleepUnlessAborted } from '../../pkg/shared/kube/backoff.ts';

/** catalogd: the longest its control part waits for a first request for stored content to be answered (ms). */
export const FIRST_REQUEST_WAIT_MS = 100;

/** operator-controller: the longest its control part waits, once ready, for a first readiness probe to be answered (ms). */
export const FIRST_PROBE_WAIT_MS = 50;

/**
 * Resolves when `until` settles, `maxWaitMs` after the call, or when `signal` aborts,
 * whichever comes first; never rejects, and leaves no timer or listener behind.
 */
export function waitAtMost(until: Promise<unknown>, maxWaitMs: number, signal: AbortSignal): Promise<void> {
  const settled = new AbortController();
  until.then(
    () => settled.abort(),
    () => settled.abort(),
  );
  return sleepUnlessAborted(maxWaitMs, AbortSignal.any([signal, settled.signal]));
}

/**
 * The end of the first response `server` (a node:http or node:https server) begins after the
 * call: `ended` resolves when it has finished or its client closed it early. `cancel` stops
 * following (call it once no longer waiting: it removes the listener).
 */
export function firstResponseEnd(server: EventEmitter): { ended: Promise<void>; cancel(): void } {
  let onRequest: ((req: unknown, res: EventEmitter) => void) | undefined;
  const ended = new Promise<void>((resolve) => {
    onRequest = (_req, res): void => {
      cancel();
      res.once('close', () => resolve());
    };
    server.on('request', onRequest);
  });
  const cancel = (): void => {
    if (onRequest !== undefined) server.off('request', onRequest);
  };
  return { ended, cancel };
}

/** A health check as pkg/shared/controller's HealthServer runs them: true passes, false or a string (the reason) fails. */
type HealthCheck = () => boolean | string | Promise<boolean | string>;

/** `check`, and `passed`: resolves once it first passed and the probe's answer had its turn to be written. */
export function firstPass(check: HealthCheck): { check: HealthCheck; passed: Promise<void> } {
  let pass: (() => void) | undefined;
  const passed = new Promise<void>((resolve) => (pass = () => setImmediate(resolve)));
  const passing = (outcome: boolean | string): void => {
    if (outcome !== true || pass === undefined) return;
    pass();
    pass = undefined;
  };
  return {
    check: () => {
      const outcome = check();
      if (typeof outcome === 'object') void outcome.then(passing, () => undefined);
      else passing(outcome);
      return outcome;
    },
    passed,
  };
}
