/** pkg/olmv1/revisions: an extension's revisions read from its ClusterObjectSets (BoxcutterRuntime) or its Helm release records. */
export {
  createRevisionReader,
  objectSetState,
  type ExtensionHistory,
  type ObjectSetState,
  type RevisionReader,
  type RevisionReaderOptions,
} from './revisions.ts';
export { objectSetRollbackRefusal } from './refusal.ts';
