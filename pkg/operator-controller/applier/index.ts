/**
 * pkg/operator-controller/applier: puts a rendered bundle on the cluster as the extension's ServiceAccount and
 * records it as a Helm-like release (decision 0003 for the requests, decision 0045 for
 * server-side apply and the uninstall that keeps CRDs), writing and deleting only what the
 * extension owns (decision 0049).
 */
export { applyObjects, dryRunObjects } from './apply.ts';
export { ESTABLISH_NUDGE_ANNOTATION, waitEstablished, type CrdStatus } from './crd-establish.ts';
export { deleteOwnedObjects, type DeleteOutcome } from './delete.ts';
export { orphanObjects, releaseCrdReferences } from './keep-objects.ts';
export { checkOwnership } from './ownership.ts';
export { refersToAnyExtension } from './owner-references.ts';
export { OWNER_KIND, describeObject, droppedObjects, isCrd, objectIdentity, refOf, withOwnerLabels } from './objects.ts';
export { sameContent, uninstallRelease, untouched, type DesiredRelease } from './release-apply.ts';
export { formatMissingPermissions, missingPermissionsAdvice, preAuthorize, type MissingPermission, type PreAuthorizeInput } from './preauthorize.ts';
export { atomKey, atomsOfRule, groupMissing, ruleCovers, type Atom } from './preauthorize-atoms.ts';
export { pruneUnknownFields } from './prune-unknown-fields.ts';
export type { Applied, ApplyConflict, Applier, Rollout } from './port.ts';
export { createReleaseApplier, type DriftMemory } from './release-applier.ts';
// BoxcutterRuntime: the Applier over ClusterObjectSet revisions, its pure parts, and the migration from release records.
export { createBoxcutterApplier, type BoxcutterApplierPorts } from './boxcutter-applier.ts';
export { MAX_OBJECTS_PER_PHASE, MAX_PHASES, PHASE_ORDER, phaseOf, sortIntoPhases, type PhaseName } from './boxcutter-phases.ts';
export {
  MIGRATED_FROM_HELM_LABEL,
  REVISION_RETENTION_LIMIT,
  RevisionAnnotation,
  desiredRevision,
  migratedRevision,
  revisionName,
  sameRevision,
  sameRevisionContent,
  type ObjectSetManifest,
  type RevisionOwner,
} from './boxcutter-revision.ts';
export {
  GZIP_THRESHOLD,
  MAX_SECRET_DATA_SIZE,
  OBJECT_DATA_SECRET_TYPE,
  REVISION_NAME_LABEL,
  decodeRefValue,
  packObjects,
  resolveRefs,
  type PackResult,
} from './boxcutter-secrets.ts';
export { activeRevisions, deployedSummary, revisionStates, type ActiveRevision, type RevisionStates } from './boxcutter-status.ts';
export { asObjectSet, createObjectSetReleases, listRevisions } from './boxcutter-store.ts';
export { MIGRATED_MESSAGE, migrateFromReleases, planMigration, type MigrationPlan, type MigrationPorts } from './boxcutter-migrate.ts';
export { migrateToReleases, recordOfRevision, type UnmigrationPorts } from './boxcutter-unmigrate.ts';
