/** pkg/olmv1/revisions: an extension's revisions read from its ClusterObjectSets (BoxcutterRuntime) or its Helm release records. */
export { createRevisionReader, type ExtensionHistory, type ObjectSetState, type RevisionReader } from './revisions.ts';
export { objectSetRollbackRefusal } from './refusal.ts';
