/** pkg/operator-controller/revisions: an extension's revisions, runtime-neutral, read from its ClusterObjectSets (BoxcutterRuntime) or its Helm release records. */
export { createRevisionReader, type RevisionReader } from './reader.ts';
export { installed, newest, objectSetView, revisionOf, summaryOf, type ObjectSetView, type Revision } from './revision.ts';
