/**
 * operator-controller's ClusterExtension reconciler (controller
 * `controller-operator-cluster-extension-controller`) is a StepReconciler
 * (pkg/shared/controller) over the parsed ClusterExtension, whose status and finalizers are
 * written once at the end, even when a step failed. Its step list is written out in
 * cmd/operator-controller/reconcilers.ts, each step built by a factory over the ports it uses;
 * docs/development.md#controllers names each step and its file (checked against that list by
 * `npm test`).
 *
 * The steps are peers: what they share is in pipeline-state.ts (their state and its phases:
 * each step declares its own, phases.ts) and modules named after it (plan.ts, failures.ts,
 * resolution.ts, crd-safety.ts), never imported from another step (lint rule
 * `olmv1/step-peers`). They write through the Applier port (pkg/operator-controller/applier). What a reconcile holds (memory leases, files)
 * is released when it ends, whatever happened, by the StepReconciler (the state's `held`).
 *
 * Failures are retried with the controller's per-extension exponential backoff; waits that
 * only a person can end (a missing namespace or ServiceAccount, missing permissions) return
 * POLL and are reconciled again after a poll period (1 s doubling to 10 s), so an install
 * proceeds soon after the fix without a nudge.
 */
import type { ClusterExtension } from '../../shared/api/index.ts';
import type { ReconcileContext } from '../../shared/controller/index.ts';
import { installerOf, type ServiceAccountRef } from './installer.ts';
import type { ExtensionState } from './pipeline-state.ts';

/** Name of this controller (metrics label and log field), as upstream's. */
export const EXTENSION_CONTROLLER_NAME = 'controller-operator-cluster-extension-controller';

/**
 * The state a reconcile of `ce` starts with (StepReconciler's `state`): the installer is the
 * extension's own ServiceAccount or `defaultInstaller` (`--default-install-service-account`);
 * what the steps hold for the reconcile goes on `held`, disposed when it ends.
 */
export function newExtensionState(
  defaultInstaller?: ServiceAccountRef,
): (ce: ClusterExtension, ctx: ReconcileContext, held: DisposableStack) => ExtensionState {
  return (ce, ctx, held) => {
    const installer = installerOf(ce.spec, defaultInstaller);
    return { ce, log: ctx.log, signal: ctx.signal, held, ...(installer === undefined ? {} : { installer }), history: [], applied: false };
  };
}
