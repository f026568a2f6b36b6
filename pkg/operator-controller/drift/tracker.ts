/**
 * The port the ClusterExtension steps use of the drift watches (drift/watches.ts implements it):
 * which objects of a deployed release to watch, and what the watches' caches tell a reconcile
 * (ownership, whether an object is as the last apply left it, health).
 */
import type { KubeObject } from '../../shared/kube/index.ts';
import type { ReleaseHealth } from './health.ts';

/** The deployed release whose objects are watched. */
export interface TrackedRelease {
  extension: string;
  /** `spec.namespace`: the namespace of namespaced objects that name none, and of the ServiceAccount. */
  installNamespace: string;
  serviceAccount: string;
  /** The ServiceAccount's namespace when it is not `installNamespace` (the default installer's). */
  serviceAccountNamespace?: string;
  objects: readonly KubeObject[];
}

/** What the reconciler needs of the drift watches. */
export interface DriftTracker {
  /** Makes the extension's watches cover exactly `release`'s objects; never throws. */
  track(release: TrackedRelease, signal?: AbortSignal): Promise<void>;
  /** Ends every watch of the extension. */
  stop(extension: string): void;
  /**
   * The reconcile is about to delete `objects` (a new release dropped them): their delete
   * events are no drift. Each is expected once, for a few minutes at most.
   */
  expectDeletes(extension: string, objects: readonly KubeObject[]): void;
  /**
   * The uid of `obj`'s live copy when a synced watch of the extension holds it, i.e. when that
   * copy carries the extension's owner labels (the watches select by them) and no owner
   * reference to a ClusterExtension; undefined when no synced watch has it.
   */
  ownedUid(extension: string, obj: KubeObject): string | undefined;
  /**
   * Operator-controller applied `answer` (the API server's answer to an apply: the object as
   * stored): remembered, in memory, as the content its last apply left, for `inSync`.
   */
  noteApplied(extension: string, answer: KubeObject): void;
  /**
   * True when a synced watch of the extension holds `obj` and its cached content (without
   * status) is what this process's last apply of it left (`noteApplied`), or, for an object this
   * process has not applied (after a restart), when operator-controller's apply wrote its content
   * last: nobody changed it since, so re-applying the same object would write nothing. Until the
   * watch lists, true for an object this process applied in the last minute (module comment).
   * False when unknown (no watch, not applied, referred to by an owner reference). Asked only
   * about objects the deployed revision applied as they are, with no revision recorded since.
   */
  inSync(extension: string, obj: KubeObject): boolean;
  /**
   * The objects (`Kind ns/name`) whose drift queued a reconcile of the extension since the last
   * call, and forgets them: after a successful apply of the unchanged release, what it put back.
   */
  takeDrifted(extension: string): string[];
  /** The verdicts on the release's judged objects, from the caches; their change queues a reconcile. */
  health(extension: string): ReleaseHealth;
  /**
   * Resolves once every watch of the extension has listed, or has tried to for a few
   * seconds (a watch that cannot list is not waited for again); never rejects.
   * A reconcile after a restart waits here so that its apply finds the objects cached.
   */
  listed(extension: string, signal?: AbortSignal): Promise<void>;
}
