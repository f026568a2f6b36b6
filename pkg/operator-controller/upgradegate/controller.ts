/**
 * The gating controller (decision 0046): judges every
 * ClusterExtension's latest deployed release against the current cluster version and publishes
 * the verdict as metrics, and, where the OpenShift APIs exist, as the OLM `cluster` object's
 * `InstalledOLMOperatorsUpgradeable` condition and the `olm` ClusterOperator's `Upgradeable`.
 * Upstream gates only on OpenShift; this one works on any cluster.
 *
 * It runs on the shared Controller (pkg/shared/controller) over one fixed key, GATE_KEY: the
 * verdict is about the whole cluster, not about one object. ClusterExtension adds, deletes and
 * updates that change what is installed (a deploy always ends with a status update, so a new
 * release is seen that way; see affectsGate), any ClusterVersion event and any event of the
 * OpenShift CRDs (apis.ts: the APIs appearing or going) queue that key; the workqueue coalesces
 * them (a key queued while queued is reconciled once, and one queued while reconciling is
 * reconciled once more after). A successful evaluation runs again after the resync period only
 * when a step asked for it (GateState `resync`: conditions written to objects another
 * controller may change, or an API whose CRD is not watched); at rest without the OpenShift
 * APIs the gate costs nothing. One that found an API's CRD established before discovery
 * listed it (`pending`), and a failed one, are retried with the controller's rate limiter
 * (gateRateLimiter).
 *
 * An evaluation is the step list of steps.ts; the "deployed" step reads the release records
 * only of extensions whose install changed since they were last read. Reading every
 * extension's history on every evaluation would cost one LIST (and the decoding of up to ten
 * revisions) per extension, per status burst and per resync.
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
 * Runs the steps for any key (the gate has one, GATE_KEY). A success asks for the next
 * evaluation after `resyncMs` when a step set `resync`, after the retry delay when one set
 * `pending`, and for none otherwise. A failure is logged when it starts and when its message
 * changes, not at every retry, and returns `requeue` so that the controller's rate limiter
 * spaces the retries without logging each as a reconciler error; a programming error (isPanic)
 * is rethrown for the controller to count. A failure because the controller is stopping is
 * neither logged nor retried.
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
