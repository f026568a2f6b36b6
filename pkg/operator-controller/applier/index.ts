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
export { refersToAnyExtension, refersToExtension } from './owner-references.ts';
export { OWNER_KIND, describeObject, droppedObjects, isCrd, objectIdentity, ownerSelector, refOf, withOwnerLabels } from './objects.ts';
export { untouched } from './helm/apply.ts';
export { desiredRelease, type DesiredRevision } from './revision.ts';
export { sameContent } from './same-content.ts';
export { formatMissingPermissions, missingPermissionsAdvice, preAuthorize, type MissingPermission, type PreAuthorizeInput } from './preauthorize.ts';
export { atomKey, atomsOfRule, groupMissing, ruleCovers, type Atom } from './preauthorize-atoms.ts';
export { pruneUnknownFields } from './prune-unknown-fields.ts';
export type { ApplyConflict, Applier, RevisionRecords, Rollout } from './port.ts';
export { createReleaseApplier, type DriftMemory } from './helm/applier.ts';
// BoxcutterRuntime: the Applier over ClusterObjectSet revisions, and the revisions read as records.
export { createBoxcutterApplier } from './boxcutter/applier.ts';
export { migrateToReleases } from './boxcutter/unmigrate.ts';
export { newestSummary } from './boxcutter/status.ts';
export { type CacheBudget, cachedRevisions, createObjectSetReleases, listRevisions } from './boxcutter/store.ts';
export { RevisionLists } from './boxcutter/lists.ts';
export { desiredRevision, type ObjectSetManifest } from './boxcutter/revision.ts';
