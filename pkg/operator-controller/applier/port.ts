/**
 * The Applier port: what the ClusterExtension steps ask of whatever deploys a release (upstream's
 * `Applier`). The Helm-compatible release-record applier (release-applier.ts) implements it now;
 * a ClusterObjectSet applier implements the same port. The steps know nothing else of how
 * objects are written, recorded, owned or watched.
 */
import type { Logger } from 'pino';
import type { Condition } from '../../shared/api/index.ts';
import type { Release, ReleaseSummary } from '../release/index.ts';
import type { DesiredRelease } from './release-apply.ts';

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

export interface Applier {
  /**
   * What the installer lacks to move from `history`'s deployed release to `desired`, checked as
   * the installer (nothing written). `watchNamespace` and `bundleImage` shape the advice.
   */
  authorize(request: ApplyRequest, desired: DesiredRelease, fix: { bundleImage: string; watchNamespace?: string }): Promise<Authorization>;
  /**
   * Deploys `desired` (a new revision when its content differs from the deployed one), or, with
   * `desired` undefined, keeps the deployed release: re-applied as recorded, drift repaired,
   * nothing recorded. Throws what failed; `conflicts` describes an ownership refusal.
   */
  apply(
    request: ApplyRequest & { extension: { name: string; uid: string; installNamespace: string; progressDeadlineMinutes?: number | undefined } },
    desired: DesiredRelease | undefined,
  ): Promise<Applied>;
  /** The objects an ownership refusal names, when `err` is one. */
  conflicts(err: unknown): ApplyConflict[] | undefined;
  /** The deployed release of extension `name` as recorded now (after a failed apply, say). */
  deployed(name: string, signal: AbortSignal): Promise<ReleaseSummary | undefined>;
}
