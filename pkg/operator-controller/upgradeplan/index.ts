/**
 * pkg/operator-controller/upgradeplan: what an upgrade changes: objects added, removed and
 * changed, and RBAC grants gained and lost (pure, for `olmv1 upgrade plan` and the update
 * policy), and the plan's comparison of a picked bundle, rendered as the render step renders it
 * (changes.ts), with the deployed release, the live CRDs, the update policy and the window.
 */
export { formatPermissionDelta, permissionDelta, type PermissionChange } from './permission-delta.ts';
export { objectDiff } from './object-diff.ts';
export { planChanges, type PlanChanges, type PlanPolicy } from './changes.ts';
export { planWindow, type PlanWindow } from './window.ts';
export { readControllerGateArgs } from './controller-gates.ts';
