/**
 * operator-controller's ClusterExtension reconciler (controller
 * `controller-operator-cluster-extension-controller`) is a StepReconciler
 * (pkg/shared/controller) over the parsed ClusterExtension, whose status and finalizers are
 * written once at the end, even when a step failed. Its step list is written out in
 * cmd/operator-controller/reconcilers.ts; the steps, each built by a factory over the ports
 * it uses, are:
 *
 *   finalizers    uninstall.ts         finalizers of a deleted extension, or adding them
 *   validate      steps-validate.ts    name, installer, namespace and ServiceAccount
 *   installed     steps.ts             release records: what is deployed
 *   resolve       steps.ts             the bundle from the selected catalogs
 *   pull, render  steps-pull.ts        the bundle image, the objects to apply
 *   preauthorize  steps-apply.ts       the installer's permissions
 *   preflight     steps-preflight.ts   CRD upgrade safety
 *   apply         steps-apply.ts       the release, as the installer
 *
 * Failures are retried with the controller's per-extension exponential backoff; waits that
 * only a person can end (a missing namespace or ServiceAccount, missing permissions) return
 * POLL and are reconciled again after a poll period (1 s doubling to 10 s), so an install
 * proceeds soon after the fix without a nudge.
 */

/** Name of this controller (metrics label and log field), as upstream's. */
export const EXTENSION_CONTROLLER_NAME = 'controller-operator-cluster-extension-controller';
