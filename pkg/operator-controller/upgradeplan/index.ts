/**
 * pkg/operator-controller/upgradeplan: what an upgrade from one release to the next changes
 * (pure): the objects added, removed and changed, field by field, and the RBAC grants gained
 * and lost, flagged when they amount to escalation. `olmv1 upgrade plan` prints them; the
 * update policy holds upgrades that gain permissions.
 */
export { formatPermissionDelta, permissionDelta, type PermissionChange, type PermissionDelta } from './permission-delta.ts';
export { objectDiff, type ObjectDiff } from './object-diff.ts';
