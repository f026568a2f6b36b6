/**
 * The port the ClusterExtension steps use of the drift watches (drift/watches.ts implements it):
 * what the release applier needs of them (applier's DriftMemory: which objects of a deployed
 * release to watch, ownership, whether an object is as the last apply left it), and their end
 * and health verdicts.
 */
import type { DriftMemory } from '../applier/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import type { ReleaseHealth } from './health.ts';

/** The deployed release whose objects are watched. */
export type TrackedRelease = Parameters<DriftMemory['track']>[0];

/** What the reconciler needs of the drift watches. */
export interface DriftTracker extends DriftMemory {
  /** Ends every watch of the extension. */
  stop(extension: string): void;
  /** The verdicts on the release's judged objects, from the caches; their change queues a reconcile. */
  health(extension: string): ReleaseHealth;
  /**
   * True when a synced watch of the extension holds `obj` with one of the extension's
   * ClusterObjectSet revisions as its controller: deleting the revisions deletes it (the garbage
   * collector), so an uninstall need not.
   */
  revisionControlled(extension: string, obj: KubeObject): boolean;
}
