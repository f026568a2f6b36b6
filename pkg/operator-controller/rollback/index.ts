/**
 * pkg/operator-controller/rollback: the decisions of `olmv1 release rollback`, without a
 * cluster: the revision to go back to, the patch, and whether it resolves and is CRD-safe.
 */
export { checkRollbackCrds, rollbackCrdNames } from './crd-safety.ts';
export { readExtensionView, rollbackPatch, type RollbackPatch } from './patch.ts';
export { checkRollbackResolves, chooseRollbackTarget } from './target.ts';
export {
  lastHealthyFrom,
  lastHealthyTail,
  rollbackDescription,
  rollbackOnFailureOf,
  ROLLBACK_ON_FAILURE_ANNOTATION,
  rolledBackBundleFrom,
  rolledBackLead,
  unhealthyDescription,
} from './on-failure.ts';
