/**
 * pkg/olmv1/revisions: the rollback refusal for ClusterObjectSet revisions, and the one revision
 * reader (pkg/operator-controller/revisions, which operator-controller's gate reads too) for the
 * commands and the console.
 */
export { createRevisionReader, type ExtensionHistory, type ObjectSetState, type RevisionReader } from '../../operator-controller/revisions/index.ts';
export { objectSetRollbackRefusal } from './refusal.ts';
