/**
 * The Applier port: what the ClusterExtension steps ask of whatever deploys a revision (upstream's
 * `Applier`), on runtime-neutral terms: a `DesiredRevision` in, the extension's revisions as the
 * one reader reads them (pkg/operator-controller/revisions) out. The Helm runtime
 * (helm/) and the BoxcutterRuntime (boxcutter/) implement it; every write
 * of either runtime's records (apply, rollback, uninstall) goes through it. The steps know
 * nothing else of how objects are written, recorded, owned or watched.
 */
import type { Logger } from 'pino';
import type { Condition } from '../../shared/api/index.ts';
import type { KubeClient, KubeObject } from '../../shared/kube/index.ts';
import type { Release, ReleaseStore, ReleaseSummary } from '../release/index.ts';
import type { DeleteOutcome } from './delete.ts';
import type { DesiredRevision } from './revision.ts';

/** An extension's revisions as the steps read them, of either runtime (written only through the Applier). */
export type RevisionRecords = Pick<ReleaseStore, 'history' | 'deployed' | 'list'>;

/** One extension's deployment as the steps see it. */
export interface ApplyRequest {
  /** The identity (a ServiceAccount) objects are read and written with. */
  installer: { name: string; namespace: string };
  /** The extension's release records, newest first (the deployed one among them). */
  history: readonly Release[];
  /** Where this reconcile's warnings go. */
  log: Logger;
  signal: AbortSignal;
}

/** What the installer lacks to deploy a release: empty when nothing. */
export interface Authorization {
  /** The missing permissions in upstream's words (`pre-authorization failed: ...`), or undefined when none is. */
  missing?: { message: string; count: number; advice: string };
}

/** What an apply did. */
export interface Applied {
  /** The deployed release after it. */
  release: Release;
  /** A new revision was recorded (an install or upgrade), not the deployed release kept. */
  changed: boolean;
  /** Objects (`Kind ns/name`) that had drifted and were put back. */
  repaired: readonly string[];
  /**
   * Where the revisions stand when another controller rolls them out (ClusterObjectSets): the
   * status the extension mirrors, as upstream's Boxcutter steps write it. Undefined when the
   * apply itself rolled the release out (`release` is then deployed).
   */
  rollout?: Rollout;
}

/** The extension's status from its revisions (BoxcutterRuntime). */
export interface Rollout {
  /** The installed revision (the newest that succeeded), or undefined. */
  installed?: ReleaseSummary | undefined;
  /** Installed's reason when nothing is installed: Absent while a revision rolls out as it should, Failed otherwise. */
  notInstalledReason: 'Absent' | 'Failed';
  /** Conditions mirrored onto the extension, in order (a later one of a type wins). */
  mirrored: Condition[];
  /** `status.activeRevisions`. */
  activeRevisions: { name: string; conditions?: Condition[] }[];
}

/** Why an apply refused: objects another owner holds, described. */
export interface ApplyConflict {
  object: string;
  owner?: string | undefined;
}

/** An apply's request: the extension it is for (`generation`: the one the rollout status observes), its history and installer. */
export type ExtensionRequest = ApplyRequest & {
  extension: { name: string; uid: string; installNamespace: string; progressDeadlineMinutes?: number | undefined; generation?: number | undefined };
};

/** Undo on failure (decision 0123): the revision undone, and the one whose content goes back. */
interface Undo {
  from: Release;
  to: number;
  /** Why `from` is undone (the failed revision's description, where the runtime records one). */
  why: string;
}

/** The extension a migration between runtimes is for; `activeRevisions`: how many its status lists (the BoxcutterRuntime wrote them). */
type MigrationOwner = ExtensionRequest['extension'] & { activeRevisions: number };

/** What a migration did: none, a revision made from the deployed record (or marked Succeeded), or the revisions let go. */
type Migration = 'none' | 'created' | 'marked' | 'released';

/** What an uninstall deletes as the installer; none: only the records go, the objects stay. */
interface UninstallObjects {
  /** Acts as the installer. */
  client: KubeClient;
  /** The live uid of objects known to be the extension's (the drift watches' caches): not read again. */
  knownUid?: (obj: KubeObject) => string | undefined;
  /**
   * The records go only once this has settled too: the CRDs' owner references released, to the
   * `Kind name` of each CRD released (keep-objects.ts releaseCrdReferences).
   */
  after?: Promise<readonly string[]>;
  /**
   * True for objects known to be controlled by one of the extension's revisions (the drift
   * watches' caches): under BoxcutterRuntime the garbage collector deletes them with the
   * revisions, so they are not deleted one by one.
   */
  revisionControlled?: (obj: KubeObject) => boolean;
}

export interface Applier {
  /**
   * What the installer lacks to move from `history`'s deployed release to `desired`, checked as
   * the installer (nothing written). `watchNamespace` and `bundleImage` shape the advice.
   */
  authorize(request: ApplyRequest, desired: DesiredRevision, fix: { bundleImage: string; watchNamespace?: string }): Promise<Authorization>;
  /**
   * Deploys `desired` (a new revision when its content differs from the deployed one), or, with
   * `desired` undefined, keeps the deployed release: re-applied as recorded, drift repaired,
   * nothing recorded. Throws what failed; `conflicts` describes an ownership refusal.
   */
  apply(request: ExtensionRequest, desired: DesiredRevision | undefined): Promise<Applied>;
  /**
   * Undo on failure: deploys `desired` (`undo.to`'s content) as a new revision, as `apply` does;
   * the Helm runtime then records it as Helm's atomic upgrade does (`Rollback to N`, the undone
   * revision failed); under BoxcutterRuntime the new revision archives the undone one.
   */
  rollback(request: ExtensionRequest, desired: DesiredRevision, undo: Undo): Promise<Applied>;
  /**
   * Ends extension `name` (uninstall.ts): with `objects`, deletes what `history`'s revisions
   * applied that is still the extension's, then its records; without, only its records.
   */
  uninstall(name: string, history: readonly Release[], signal: AbortSignal, objects?: UninstallObjects): Promise<DeleteOutcome | undefined>;
  /**
   * Switching runtimes (decision 0125), before the revisions are read: takes over what the other
   * runtime recorded of the extension (boxcutter/migrate.ts, boxcutter/unmigrate.ts); idempotent.
   */
  migrate(owner: MigrationOwner, signal: AbortSignal): Promise<Migration>;
  /** The objects an ownership refusal names, when `err` is one. */
  conflicts(err: unknown): ApplyConflict[] | undefined;
  /** The deployed release of extension `name` as recorded now (after a failed apply, say). */
  deployed(name: string, signal: AbortSignal): Promise<ReleaseSummary | undefined>;
}
