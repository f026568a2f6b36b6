/**
 * Reconcile as an ordered step pipeline (upstream's ClusterExtension reconciler shape): each
 * step reads and extends a shared state and continues, stops with a result, waits (POLL), or
 * throws. Every step is timed. Steps are built by factories over narrow ports, listed in cmd/.
 */
import type { Registry } from 'prom-client';
import { histogramOn } from '../kube/index.ts';
import type { ReconcileResult } from './reconciler.ts';

/** A wait only a person can end: reconcile again after a doubling poll period (StepReconciler). */
interface PollOutcome {
  readonly poll: true;
}

/** The wait outcome; see PollOutcome. */
export const POLL: PollOutcome = Object.freeze({ poll: true });

/** True for the wait outcome. */
export function isPoll(outcome: ReconcileResult | PollOutcome | undefined): outcome is PollOutcome {
  return outcome !== undefined && 'poll' in outcome && outcome.poll === true;
}

/** What a step returns: `undefined` to continue with the next step, a result to stop with, or POLL to wait. */
export type StepOutcome = ReconcileResult | PollOutcome | undefined;

/** One named step over state `S`. Throwing stops the pipeline with that error. */
export interface Step<S> {
  name: string;
  /** `stopped`: an earlier step stopped the pipeline (only an `always` step runs then). */
  run(state: S, stopped?: boolean): Promise<StepOutcome> | StepOutcome;
  /**
   * Runs even after an earlier step stopped the pipeline, as a `finally` that knows whether the
   * steps before it completed; its outcome is then ignored, and its error thrown only when no
   * earlier step failed.
   */
  always?: boolean;
}

/** Observes the duration of each step (e.g. a histogram labelled by controller and step). */
export type StepTimer = (step: string, seconds: number) => void;

/**
 * Runs `steps` until one returns a result or POLL, or throws, then only the `always` ones.
 * Resolves with the stopping outcome (else an empty result); rethrows the first error.
 */
export async function runSteps<S>(steps: readonly Step<S>[], state: S, timer?: StepTimer): Promise<ReconcileResult | PollOutcome> {
  let stopped: { outcome: ReconcileResult | PollOutcome } | { error: unknown } | undefined;
  for (const step of steps) {
    if (stopped !== undefined && step.always !== true) continue;
    const started = performance.now();
    try {
      const outcome = await step.run(state, stopped !== undefined);
      if (outcome !== undefined && stopped === undefined) stopped = { outcome };
    } catch (err) {
      if (stopped === undefined || !('error' in stopped)) stopped = { error: err };
    } finally {
      timer?.(step.name, (performance.now() - started) / 1000);
    }
  }
  if (stopped === undefined) return {};
  if ('error' in stopped) throw stopped.error;
  return stopped.outcome;
}

const STEP_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** A StepTimer recording `controller_reconcile_step_duration_seconds{controller,step}` on `registry`. */
export function stepDurationTimer(registry: Registry, controller: string): StepTimer {
  const histogram = histogramOn(
    registry,
    'controller_reconcile_step_duration_seconds',
    'Seconds spent in each step of a reconcile, including failed steps.',
    ['controller', 'step'],
    STEP_BUCKETS,
  );
  return (step, seconds) => histogram.observe({ controller, step }, seconds);
}
