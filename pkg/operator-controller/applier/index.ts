/**
 * pkg/operator-controller/applier: puts a rendered bundle on the cluster as the extension's ServiceAccount and
 * records it as a Helm-like release (decision 0003 for the requests, decision 0045 for
 * server-side apply and the uninstall that keeps CRDs), writing and deleting only what the
 * extension owns (decision 0049).
 */
export { APPLY_PHASES, applyPhases, inApplyOrder } from './apply-order.ts';
export { ApplyError, applyObjects, dryRunObjects, type ApplyObjectsOptions } from './apply.ts';
export { deleteOwnedObjects, type DeleteOptions, type DeleteOutcome, type SkippedObject } from './delete.ts';
export {
  DRY_RUN_PREFIX,
  OwnershipConflictError,
  checkOwnership,
  conflictMessage,
  ownedBy,
  ownershipOf,
  type Owner,
  type Ownership,
  type OwnershipReport,
} from './ownership.ts';
export { CRD_KIND, OWNER_KIND, describeObject, droppedObjects, isCrd, objectIdentity, refOf, withOwnerLabels } from './objects.ts';
export {
  applyRelease,
  objectsToDelete,
  sameContent,
  uninstallRelease,
  type UninstallOutcome,
  type AppliedRelease,
  type DesiredRelease,
  type ReleaseDeps,
} from './release-apply.ts';
export {
  CLUSTER_SCOPE_REVIEW_NAMESPACE,
  MAX_MESSAGE_BYTES,
  PREAUTHORIZATION_FAILED,
  formatMissingPermissions,
  preAuthorize,
  type MissingPermission,
  type MissingPermissionsFix,
  type PreAuthorizeInput,
} from './preauthorize.ts';
export { atomKey, atomsOfRule, type Atom } from './preauthorize-atoms.ts';
export { pruneUnknownFields, type PrunedObject } from './prune-unknown-fields.ts';
