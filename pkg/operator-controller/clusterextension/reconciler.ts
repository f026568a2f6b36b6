/**
 * operator-controller's ClusterExtension reconciler (controller
 * `controller-operator-cluster-extension-controller`). Each reconcile runs on a working copy
 * whose status and finalizers are written once at the end, even when a step failed
 * (reconcileWithStatus):
 *
 *   finalizers -> validate -> installed -> resolve -> pull -> render -> preauthorize -> preflight -> apply
 *
 * Failures are retried with the controller's per-extension exponential backoff; waits that
 * only a person can end (a missing namespace or ServiceAccount, missing permissions) poll
 * every few seconds instead, so an install proceeds soon after the fix without a nudge.
 */
import { CLUSTER_EXTENSION, parseClusterExtension } from '../../shared/api/index.ts';
import {
  addFinalizers,
  isDeleting,
  isPoll,
  reconcileWithStatus,
  runSteps,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
  type Step,
  type StepOutcome,
  type StepTimer,
} from '../../shared/controller/index.ts';
import { TerminalError } from '../../shared/errors/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import type { ExtensionReconcilerDeps, ExtensionState } from './pipeline-state.ts';
import { applyBundle, preauthorize } from './steps-apply.ts';
import { preflight } from './steps-preflight.ts';
import { pullBundle, readInstalled, renderBundle, resolveBundle, validate } from './steps.ts';
import { EXTENSION_FINALIZERS, finalize } from './uninstall.ts';
import { installerOf, type Installer } from './installer.ts';

/** Name of this controller (metrics label and log field), as upstream's. */
export const EXTENSION_CONTROLLER_NAME = 'controller-operator-cluster-extension-controller';

/** Options besides the dependencies. */
export interface ExtensionReconcilerOptions {
  /** Per-step duration observer (e.g. stepDurationTimer). */
  stepTimer?: StepTimer;
  /** First and longest poll period of a wait (default 1 s doubling to 10 s). */
  waitMs?: { initial: number; max: number };
}

/** See the module comment. */
export class ExtensionReconciler implements Reconciler {
  readonly #deps: ExtensionReconcilerDeps;
  readonly #o: ExtensionReconcilerOptions;
  readonly #waits = new Map<string, number>();

  constructor(deps: ExtensionReconcilerDeps, options: ExtensionReconcilerOptions = {}) {
    this.#deps = deps;
    this.#o = options;
  }

  async reconcile(name: string, ctx: ReconcileContext): Promise<ReconcileResult | void> {
    let waited = false;
    const wait = (): StepOutcome => {
      waited = true;
      return { requeueAfterMs: this.#nextWait(name) };
    };
    const result = await reconcileWithStatus<KubeObject>({
      client: this.#deps.client,
      ref: { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name },
      reconcile: (ce) => this.#reconcile(ce, ctx, wait),
      signal: ctx.signal,
    });
    if (!waited) this.#waits.delete(name);
    return result;
  }

  /** Poll period of the next wait of `name`: doubles from `initial` up to `max`. */
  #nextWait(name: string): number {
    const { initial, max } = this.#o.waitMs ?? { initial: 1000, max: 10_000 };
    const n = this.#waits.get(name) ?? 0;
    this.#waits.set(name, n + 1);
    return Math.min(max, initial * 2 ** n);
  }

  async #reconcile(ce: KubeObject, ctx: ReconcileContext, wait: () => StepOutcome): Promise<ReconcileResult> {
    const parsed = parseClusterExtension(ce);
    if (!parsed.ok) throw new TerminalError(parsed.error);
    const state: ExtensionState = {
      ce,
      name: ce.metadata.name ?? '',
      uid: ce.metadata.uid ?? '',
      spec: parsed.value.spec,
      ...installerField(installerOf(parsed.value.spec, this.#deps.defaultInstaller)),
      log: ctx.log,
      signal: ctx.signal,
      history: [],
    };
    const deps = this.#deps;
    if (isDeleting(ce)) return asResult(await finalize(deps, state));
    // New finalizers end this pass; their patch triggers the next one (upstream's behaviour).
    if (addFinalizers(ce, EXTENSION_FINALIZERS)) return {};
    const pause = deps.pause;
    const steps: Step<ExtensionState>[] = [
      { name: 'validate', run: (s) => validate(deps, s, wait) },
      { name: 'installed', run: (s) => readInstalled(deps, s) },
      { name: 'resolve', run: (s) => resolveBundle(deps, s) },
      { name: 'pull', run: (s) => pullBundle(deps, s) },
      { name: 'render', run: (s) => renderBundle(deps, s) },
      { name: 'preauthorize', run: (s) => preauthorize(deps, s, wait) },
      { name: 'preflight', run: (s) => preflight(deps, s) },
      { name: 'apply', run: (s) => applyBundle(deps, s) },
    ];
    const paused = steps.map((step): Step<ExtensionState> =>
      pause === undefined
        ? step
        : {
            name: step.name,
            run: async (s) => {
              await pause(`step:${step.name}`, s.name);
              return step.run(s);
            },
          },
    );
    return asResult(await runSteps(paused, state, this.#o.stepTimer));
  }
}

/** `{ installer }` when there is one (exactOptionalPropertyTypes). */
function installerField(installer: Installer | undefined): { installer?: Installer } {
  return installer === undefined ? {} : { installer };
}

/** The wait callback already chose the poll period; POLL itself is not returned by these steps. */
function asResult(outcome: StepOutcome): ReconcileResult {
  return outcome === undefined || isPoll(outcome) ? {} : outcome;
}
