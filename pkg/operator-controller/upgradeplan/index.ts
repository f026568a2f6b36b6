/**
 * pkg/operator-controller/upgradeplan: what an upgrade changes (pure): objects added, removed
 * and changed, and RBAC grants gained and lost, for `olmv1 upgrade plan` and the update policy.
 */
export { formatPermissionDelta, permissionDelta, type PermissionChange, type PermissionDelta } from './permission-delta.ts';
export { objectDiff, type ObjectDiff } from './object-diff.ts';
