/**
 * Which records hold an extension's revisions, for operator-controller's cluster-upgrade gate, the
 * olmv1 commands and the console alike (one reader, so they cannot disagree): its
 * ClusterObjectSets when it has any (operator-controller with BoxcutterRuntime), else its Helm
 * release records in the system namespace. A cluster that does not serve the ClusterObjectSet
 * kind has only release records. Read-only: writes stay with the store of the mode.
 */
import { type CacheBudget, createObjectSetReleases, listRevisions, type ObjectSetManifest } from '../applier/index.ts';
import { createReleaseStore, type HistoryOptions, type ReleaseStore } from '../release/index.ts';
import { revisionOf, summaryOf, type Revision, type RevisionSummary } from './revision.ts';
import { ObjectSetConditionType } from '../../shared/api/index.ts';
import { isNoKindMatch, isNotFound, type KubeClient } from '../../shared/kube/index.ts';

/** Reads each extension's revisions from where they are (see the file comment). */
export interface RevisionReader extends Pick<ReleaseStore, 'history' | 'list'> {
  /** The revisions of `extension`, newest first; [] when it has none. */
  revisions(extension: string, options?: HistoryOptions): Promise<Revision[]>;
  /** Its installed revision, read without its objects; undefined when none is installed. */
  installed(extension: string, signal?: AbortSignal): Promise<RevisionSummary | undefined>;
  /** True when `extension` has ClusterObjectSets (its revisions are not Helm release records). */
  usesObjectSets(extension: string, signal?: AbortSignal): Promise<boolean>;
}

/** Options of createRevisionReader. */
interface RevisionReaderOptions {
  client: KubeClient;
  /** Where the Helm release records are (operator-controller's system namespace). */
  namespace: string;
  /** The largest record the Helm store decodes (its default when undefined). */
  maxRecordBytes?: number;
  /** The memory port's budget revisions' objects read back are kept under (createObjectSetReleases); none: their own bound only. */
  cacheBudget?: CacheBudget;
}

function notServed(err: unknown): boolean {
  const cause = err instanceof Error ? err.cause : undefined;
  return isNoKindMatch(err) || isNoKindMatch(cause) || isNotFound(cause);
}

function conditionText(set: ObjectSetManifest, type: string): string {
  const c = set.status?.conditions?.find((x) => x.type === type);
  if (c === undefined) return '-';
  return c.status === 'True' || c.reason === '' ? c.status : `${c.status} (${c.reason})`;
}

/** The lifecycle state and health of `set`. Pure. */
function objectSetState(set: ObjectSetManifest): NonNullable<Revision['objectSet']> {
  return {
    name: set.metadata.name,
    lifecycle: set.spec.lifecycleState ?? 'Active',
    available: conditionText(set, ObjectSetConditionType.Available),
    progressing: conditionText(set, ObjectSetConditionType.Progressing),
  };
}

/** The reader over `client`: ClusterObjectSets by the owner-name label first, Helm release records otherwise. */
export function createRevisionReader(o: RevisionReaderOptions): RevisionReader {
  const helm = createReleaseStore({
    client: o.client,
    namespace: o.namespace,
    ...(o.maxRecordBytes === undefined ? {} : { maxRecordBytes: o.maxRecordBytes }),
  });
  const sets = createObjectSetReleases(o.client, { systemNamespace: o.namespace, ...(o.cacheBudget === undefined ? {} : { budget: o.cacheBudget }) });

  /**
   * The extension's ClusterObjectSets not being deleted, oldest first; [] when it has none or the
   * kind is not served. Revisions being deleted are not its revisions any more: on the way back to
   * release records they are deleted after the deployed record is written, and their Secrets may
   * be gone already.
   */
  async function objectSetsOf(extension: string, signal?: AbortSignal): Promise<ObjectSetManifest[]> {
    try {
      return (await listRevisions(o.client, extension, signal)).filter((s) => s.metadata.deletionTimestamp === undefined);
    } catch (err) {
      if (notServed(err)) return [];
      throw err;
    }
  }

  async function revisions(extension: string, options: HistoryOptions = {}): Promise<Revision[]> {
    const found = await objectSetsOf(extension, options.signal);
    if (found.length === 0) return (await helm.history(extension, options)).map((r) => revisionOf(r));
    const live = new Map(found.map((s) => [s.metadata.name, objectSetState(s)]));
    const records = (await sets.history(extension, options)).filter((r) => r.objectSet === undefined || live.has(r.objectSet));
    return records.map((r) => revisionOf(r, r.objectSet === undefined ? undefined : live.get(r.objectSet)));
  }

  return {
    revisions,
    async history(extension, options) {
      return (await revisions(extension, options)).map((r) => r.record);
    },
    async installed(extension, signal) {
      const boxcutter = (await objectSetsOf(extension, signal)).length > 0;
      const found = await (boxcutter ? sets : helm).deployed(extension, signal);
      return found === undefined ? undefined : summaryOf(found);
    },
    async list(signal) {
      const names = new Set(await helm.list(signal));
      try {
        for (const name of await sets.list(signal)) names.add(name);
      } catch (err) {
        if (!isNoKindMatch(err) && !isNotFound(err)) throw err;
      }
      return [...names];
    },
    async usesObjectSets(extension, signal) {
      return (await objectSetsOf(extension, signal)).length > 0;
    },
  };
}
