/**
 * The runtime-neutral revision: one numbered install or upgrade of an extension, whether its
 * runtime keeps it as a Helm release record or as a ClusterObjectSet (BoxcutterRuntime). What
 * status, the cluster-upgrade gate, release history, rollback and the console read (decision
 * 0142). Pure.
 */
import { ReleaseStatus, type Manifest, type Release, type ReleaseBundle, type ReleaseSummary } from '../release/index.ts';

/** Where a revision is in its life, the same words for both runtimes. */
export const RevisionState = {
  /** The installed revision: Helm `deployed`; the newest available active ClusterObjectSet. */
  Installed: 'Installed',
  /** Being installed: Helm `pending-install`/`pending-upgrade`; an active ClusterObjectSet not (yet) available. */
  RollingOut: 'RollingOut',
  /** Replaced by a later one: Helm `superseded`; an archived ClusterObjectSet. */
  Archived: 'Archived',
  /** Helm `failed`: its install or upgrade failed. */
  Failed: 'Failed',
} as const;

/** One of the RevisionState strings. */
export type RevisionState = (typeof RevisionState)[keyof typeof RevisionState];

/** The `Available` and `Progressing` conditions of a ClusterObjectSet, as `True`, `False (Reason)` or `-`. */
interface RevisionHealth {
  available: string;
  progressing: string;
}

/** What a revision is without its objects (what the cluster-upgrade gate reads, decision 0098). */
export interface RevisionSummary {
  extension: string;
  /** 1, 2, ... */
  number: number;
  bundle: ReleaseBundle;
  state: RevisionState;
  /** The bundle's olm.properties (parsed JSON array). */
  properties: unknown[];
  /** RFC 3339: when it was last deployed (Helm) or created (ClusterObjectSet); '' when unknown. */
  when: string;
}

/** One revision of an extension (see the file comment). */
export interface Revision extends RevisionSummary {
  /** The objects it applies, in apply order. */
  objects: Manifest;
  /** Its ClusterObjectSet's lifecycle state and conditions (BoxcutterRuntime); undefined for a Helm record. */
  objectSet: ({ name: string; lifecycle: string } & RevisionHealth) | undefined;
  /**
   * The record as the runtime reads it in Helm's terms (its `status` is Helm's status string):
   * what `olmv1 release` prints, Helm-compatible, and what the rollback's checks compare.
   */
  record: Release;
}

/** The neutral state of a Helm status. */
function stateOf(status: ReleaseStatus): RevisionState {
  switch (status) {
    case ReleaseStatus.Deployed:
      return RevisionState.Installed;
    case ReleaseStatus.Superseded:
      return RevisionState.Archived;
    case ReleaseStatus.Failed:
      return RevisionState.Failed;
    default:
      return RevisionState.RollingOut;
  }
}

/** The summary of a record read without its objects. */
export function summaryOf(r: ReleaseSummary): RevisionSummary {
  return {
    extension: r.extension,
    number: r.revision,
    bundle: r.bundle,
    state: stateOf(r.status),
    properties: r.properties,
    when: r.lastDeployed ?? r.firstDeployed ?? '',
  };
}

/** `record` as a revision; `objectSet` is its ClusterObjectSet's state when it was read from one. */
export function revisionOf(record: Release, objectSet?: Revision['objectSet']): Revision {
  return { ...summaryOf(record), objects: record.manifest, objectSet, record };
}

/** The installed revision of `revisions`: the newest Installed one, else undefined. */
export function installed<T extends RevisionSummary>(revisions: readonly T[]): T | undefined {
  let found: T | undefined;
  for (const r of revisions) if (r.state === RevisionState.Installed && (found === undefined || r.number > found.number)) found = r;
  return found;
}

/** The newest revision of `revisions` (the highest number), whatever its state. */
export function newest<T extends RevisionSummary>(revisions: readonly T[]): T | undefined {
  let found: T | undefined;
  for (const r of revisions) if (found === undefined || r.number > found.number) found = r;
  return found;
}

/** A ClusterObjectSet as the revision tables and `olmv1 status --output json` show it. */
export interface ObjectSetView {
  /** `<extension>-<n>` */
  name: string;
  revision: number;
  /** `Active` or `Archived`. */
  lifecycleState: string;
  /** Its `Available` condition as `True`, `False (Reason)`, or `-` when it has none. */
  available: string;
  /** Its `Progressing` condition, written like `available`. */
  progressing: string;
}

/** The table view of `r`'s ClusterObjectSet; undefined for a Helm record. */
export function objectSetView(r: Revision): ObjectSetView | undefined {
  const s = r.objectSet;
  return s === undefined
    ? undefined
    : { name: s.name, revision: r.number, lifecycleState: s.lifecycle, available: s.available, progressing: s.progressing };
}
