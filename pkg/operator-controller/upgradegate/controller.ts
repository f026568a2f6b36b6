/**
 * The gating controller (decision 0046): judges every ClusterExtension's latest deployed
 * release against the current cluster version and publishes the verdict as metrics and, where
 * the OpenShift APIs exist, as OpenShift conditions. Upstream gates only on OpenShift; this one
 * works on any cluster.
 *
 * It runs on the shared Controller over one fixed key, GATE_KEY (the verdict is about the whole
 * cluster), queued by ClusterExtension install changes (affectsGate), ClusterVersion events and
 * the OpenShift CRDs' events (openshift.ts); the workqueue coalesces them, and extension events
 * start at most one evaluation per GATE_PACE_MS. At rest without the
 * OpenShift APIs the gate costs nothing: it re-evaluates only when a step asks (GateState).
 */
import type { GateVerdict } from '../gating/index.ts';
import {
  ExponentialFailureRateLimiter,
  isPanic,
  jsonEqual,
  runSteps,
  type KeyFunc,
  type RateLimiter,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  type Step,
  type StepTimer,
} from '../../shared/controller/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import type { InformerEventType, KubeObject } from '../../shared/kube/index.ts';
import { LogOnChange } from '../../shared/logchange/index.ts';
import { gateInputs, gateState, type GateState } from './steps.ts';

/** The `controller` label of the gate's controller metrics and log lines. */
export const UPGRADE_GATE_NAME = 'upgrade-gate';

/** The one key the gate's controller reconciles: the verdict covers the whole cluster. */
export const GATE_KEY = 'cluster';

/**
 * Least time between two evaluations that ClusterExtension events start (Watch.paceMs). An
 * evaluation walks every extension (1-8 ms at 10,000), and a mass install changes extensions
 * several times a second: unpaced, the gate evaluated about 9 times a second while 10,000
 * installed, 3-10 % of a core of operator-controller's (bench/results/scale.md). Paced,
 * the verdict follows an install within a second.
 */
export const GATE_PACE_MS = 1_000;

/** Default period of re-evaluation without events. */
export const DEFAULT_GATE_RESYNC_MS = 60_000;

/** Retry delays of a failed evaluation: 500 ms doubling to 30 s, back to 500 ms after a success. */
export function gateRateLimiter(): RateLimiter {
  return new ExponentialFailureRateLimiter(500, 30_000);
}

/** True for ClusterExtension events that may change the verdict (adds, deletes, install changes). */
export function affectsGate(type: InformerEventType, obj: Readonly<KubeObject>, old: Readonly<KubeObject> | undefined): boolean {
  return type !== 'update' || old === undefined || !jsonEqual(gateInputs(obj), gateInputs(old));
}

/** Key function of the ClusterExtension watch: GATE_KEY for the events affectsGate accepts. */
export const gateKeys: KeyFunc = (type, obj, old) => (affectsGate(type, obj, old) ? GATE_KEY : undefined);

/** What a GateReconciler is made of. */
interface GateReconcilerConfig {
  /** The steps of one evaluation, in order (steps.ts; listed in cmd/operator-controller). */
  steps: readonly Step<GateState>[];
  /** Per-step duration observer (e.g. stepDurationTimer). */
  stepTimer?: StepTimer;
  /** Re-evaluation without events (default DEFAULT_GATE_RESYNC_MS). */
  resyncMs?: number;
}

/**
 * Runs the steps for any key. A success asks for the next evaluation after `resyncMs` when a
 * step set `resync`, after the retry delay when one set `pending`. A failure is logged when its
 * message changes and retried through the rate limiter (a panic is rethrown; a stop is neither).
 */
export class GateReconciler implements Reconciler {
  readonly #c: GateReconcilerConfig;
  readonly #warned = new LogOnChange();
  #lastVerdict: GateVerdict | undefined;

  constructor(config: GateReconcilerConfig) {
    this.#c = config;
  }

  /** The verdict of the last successful evaluation (undefined: none yet, or no cluster version). */
  get lastVerdict(): GateVerdict | undefined {
    return this.#lastVerdict;
  }

  async reconcile(_key: string, ctx: ReconcileContext): Promise<ReconcileResult | void> {
    const state = gateState(ctx);
    try {
      await runSteps(this.#c.steps, state, this.#c.stepTimer);
    } catch (err) {
      if (ctx.signal.aborted) return undefined;
      if (isPanic(err)) throw err;
      if (this.#warned.changed('evaluate', errorMessage(err))) ctx.log.warn({ err }, 'evaluating the cluster upgrade gate failed');
      return { requeue: true };
    }
    this.#warned.clear('evaluate');
    this.#lastVerdict = state.verdict;
    if (state.pending === true) return { requeue: true };
    return state.resync === true ? { requeueAfterMs: this.#c.resyncMs ?? DEFAULT_GATE_RESYNC_MS } : undefined;
  }
}
