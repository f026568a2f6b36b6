/**
 * pkg/operator-controller/objectset: the ClusterObjectSet controller of the BoxcutterRuntime
 * (issue 64): rolls a revision's phases out with server-side apply, gated by probes, under
 * collision protection, and tears archived revisions down; it watches its active revisions'
 * objects itself (watches.ts). Composed in cmd/operator-controller;
 * DEFAULT_PROGRESSION_PROBES are the probes a ClusterExtension's revisions carry. Who writes a
 * revision (decision 0126): revisionWriters, over one RevisionWrites per process that an
 * uninstall waits on.
 */
export { createObjectSetController, type ObjectSetController } from './controller.ts';
export { DEFAULT_PROGRESSION_PROBES } from './probes.ts';
export { everyRevisionAs, revisionWriters } from './writer.ts';
export { RevisionWrites } from './writes.ts';
export { extensionSelector, revisionFacts } from './watches.ts';
export { readRefObject, readingOnce } from './sources.ts';
