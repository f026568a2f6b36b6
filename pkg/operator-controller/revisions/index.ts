/** pkg/operator-controller/revisions: an extension's revisions read from its ClusterObjectSets (BoxcutterRuntime) or its Helm release records. */
export { createRevisionReader, type ExtensionHistory, type ObjectSetState, type RevisionReader } from './reader.ts';
