/**
 * pkg/operator-controller/rollback: the decisions of `olmv1 release rollback`, without a
 * cluster: which recorded revision to go back to, the ClusterExtension patch that makes
 * operator-controller install its bundle through its normal pipeline, and whether the way back
 * is CRD-safe by the controller's preflight rules. Reading and writing are cmd/olmv1's.
 */
export { checkRollbackCrds, rollbackCrdNames } from './crd-safety.ts';
export { readExtensionView, rollbackPatch, type RollbackPatch } from './patch.ts';
export { chooseRollbackTarget, type RollbackTarget } from './target.ts';
export { checkRollbackResolves } from './resolvable.ts';
