/**
 * The release record model: one numbered revision of a ClusterExtension's install or upgrade,
 * the store that keeps them (as Helm keeps releases), and the choices over a history that need
 * no API server. How a Release is stored, as Helm's release JSON, is helm-format.ts.
 */
import type { Logger } from 'pino';
import type { KubeClient } from '../../shared/kube/index.ts';
import type { ManifestSpill } from './manifest-bytes.ts';
import type { Manifest } from './manifest.ts';

/** Status of a revision, with Helm's status strings (stored in the `status` label too). */
export const ReleaseStatus = {
  PendingInstall: 'pending-install',
  PendingUpgrade: 'pending-upgrade',
  Deployed: 'deployed',
  Superseded: 'superseded',
  Failed: 'failed',
} as const;

/** One of the ReleaseStatus strings. */
export type ReleaseStatus = (typeof ReleaseStatus)[keyof typeof ReleaseStatus];

/** The bundle a revision installed. */
export interface ReleaseBundle {
  package: string;
  name: string;
  version: string;
  release?: string;
  /** The bundle image reference as the catalog gives it (reported in `Installed`). */
  image: string;
  /**
   * `<repository>@<digest>` of the image that was pulled: what a restart pulls again, so that
   * neither the catalog nor a moved tag decides what is installed.
   */
  digestRef?: string;
}

/** One revision of an extension's release. */
export interface Release {
  /** ClusterExtension metadata.name (= release name). */
  extension: string;
  /** ClusterExtension metadata.uid (owner reference of the records); '' writes no owner reference. */
  extensionUID: string;
  /** 1, 2, ... */
  revision: number;
  status: ReleaseStatus;
  /**
   * The install namespace (`spec.namespace`): Helm's release namespace, which upstream's Helm
   * uses for the ownership metadata of an upgrade. Absent in records written before it was kept.
   */
  namespace?: string;
  bundle: ReleaseBundle;
  /** the objects applied, in apply order (as text, lines or objects: manifest.ts) */
  manifest: Manifest;
  /** the bundle's olm.properties (parsed JSON array) */
  properties: unknown[];
  /** spec.config.inline used to render ("values") */
  config?: Record<string, unknown>;
  /** fields dropped because the API server's schema does not know them, and objects kept on purpose (CRDs) */
  notes?: { droppedFields?: { object: string; paths: string[] }[]; keptObjects?: string[]; skippedObjects?: string[] };
  /** "Install complete", "Upgrade complete", or the API server's error for failed */
  description: string;
  /** RFC 3339 */
  firstDeployed?: string;
  /** RFC 3339 */
  lastDeployed?: string;
  /** The ClusterObjectSet the record was read from (BoxcutterRuntime); absent for a release record. */
  objectSet?: string;
}

/**
 * A revision without its objects: what readers that need only the bundle, status and
 * properties hold (the cluster-upgrade gate, status), a fraction of a large release's objects.
 */
export type ReleaseSummary = Omit<Release, 'manifest'>;

/** How ReleaseStore.history reads. */
export interface HistoryOptions {
  signal?: AbortSignal;
  /**
   * Awaited once before any revision is decoded, with about the bytes of text they decode to
   * (the memory budget of decision 0098); its rejection is history's.
   */
  admit?: (bytes: number) => Promise<void>;
  /** Takes the manifests of large records as lines (decision 0098 item 17, manifest-bytes.ts). */
  spill?: ManifestSpill;
}

/** Release records of ClusterExtensions. Every method throws (with `cause`) on API failures. */
export interface ReleaseStore {
  /** All revisions of `extension`, newest first; [] when there are none. */
  history(extension: string, options?: HistoryOptions): Promise<Release[]>;
  /**
   * The deployed revision of `extension` (the newest one whose status is deployed), read
   * without its objects; undefined when none is deployed. Decodes one record when the index
   * Secrets' status labels name it.
   */
  deployed(extension: string, signal?: AbortSignal): Promise<ReleaseSummary | undefined>;
  /** Names of all extensions that have records. */
  list(signal?: AbortSignal): Promise<string[]>;
  /** Writes a new revision (must not exist yet); then prunes history to maxHistory revisions, never deleting the newest deployed one. */
  create(release: Release, signal?: AbortSignal): Promise<void>;
  /** Rewrites an existing revision (e.g. status pending-install -> deployed, deployed -> superseded). */
  update(release: Release, signal?: AbortSignal): Promise<void>;
  /**
   * Deletes every record of `extension`. With `after`, the records are found at once but
   * deleted only once `after` resolves (nothing is deleted when it rejects): an uninstall finds
   * them while it deletes the objects they name. With `orphan`, what the records own stays:
   * (BoxcutterRuntime) the revisions go with propagationPolicy Orphan, so the garbage collector
   * removes their owner references from their objects instead of deleting them.
   */
  deleteAll(extension: string, signal?: AbortSignal, after?: Promise<unknown>, orphan?: boolean): Promise<void>;
}

/** Options of createReleaseStore. */
export interface ReleaseStoreOptions {
  /** The controller's own client (records are never written with an extension's ServiceAccount). */
  client: KubeClient;
  /** The system namespace the record Secrets live in (e.g. `olmv1-system`). */
  namespace: string;
  /** Revisions kept per extension after a create (default 10; 0 keeps all). */
  maxHistory?: number;
  /** Clock of the `createdAt`/`modifiedAt` labels (default: the system clock). */
  now?: () => Date;
  /**
   * Most bytes a record's payload may decompress to (default MAX_RECORD_JSON_BYTES, 64 MiB,
   * codec.ts). A record whose payload inflates past it is reported corrupt by history and
   * deployed, naming its index Secret, the bound and its compressed size; it is not deleted.
   */
  maxRecordBytes?: number;
  /**
   * Where a failed pruning is reported. Pruning after a create is best effort: the new
   * revision is written by then, and the next create prunes whatever is still in excess.
   */
  log?: Logger;
}

/** The revision number and status of one stored revision. */
interface RevisionEntry {
  revision: number;
  status: string;
}

/**
 * Revisions to delete so that at most `maxHistory` remain: the oldest first, but never the
 * newest revision (the one just written) nor the newest deployed one (the installed bundle).
 * Skipping those can leave more than `maxHistory` (e.g. maxHistory 1 keeps both a new
 * pending revision and the deployed one). `maxHistory` 0 keeps everything.
 */
export function revisionsToPrune(entries: readonly RevisionEntry[], maxHistory: number): number[] {
  if (maxHistory <= 0 || entries.length <= maxHistory) return [];
  const ascending = [...entries].sort((a, b) => a.revision - b.revision);
  const keep = new Set<number>();
  const newest = ascending[ascending.length - 1];
  if (newest !== undefined) keep.add(newest.revision);
  const newestDeployed = ascending.findLast((e) => e.status === ReleaseStatus.Deployed);
  if (newestDeployed !== undefined) keep.add(newestDeployed.revision);
  const excess = ascending.length - maxHistory;
  const out: number[] = [];
  for (const e of ascending) {
    if (out.length === excess) break;
    if (!keep.has(e.revision)) out.push(e.revision);
  }
  return out;
}

/** The installed revision: the newest with status deployed, else undefined (as upstream finds the installed bundle). */
export function deployedRelease(history: readonly Release[]): Release | undefined {
  let found: Release | undefined;
  for (const r of history) {
    if (r.status === ReleaseStatus.Deployed && (found === undefined || r.revision > found.revision)) found = r;
  }
  return found;
}
