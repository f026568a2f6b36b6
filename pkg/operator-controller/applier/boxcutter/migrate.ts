/**
 * From Helm-like release records to ClusterObjectSets when BoxcutterRuntime is turned on, as
 * upstream's BoxcutterStorageMigrator does (internal/operator-controller/applier/boxcutter.go):
 *
 * - an extension with revisions already: nothing, except that a revision 1 labelled as
 *   migrated whose Succeeded is not True gets it (a crash between creating it and its status);
 * - else, with a deployed record (the newest deployed one when the newest record is not, a
 *   failed upgrade say): revision 1 made from that record's objects (revision.ts
 *   `migratedRevision`: collision protection None, so the ClusterObjectSet controller adopts
 *   the live objects, uids kept, nothing recreated), its objects inline as upstream writes
 *   them, created (AlreadyExists, a revision 1 the list did not show, fails the migration, which
 *   the next reconcile retries on the revisions listed again); then marked Succeeded at once (`Revision succeeded - migrated
 *   from Helm release`), since the record describes a working installation and the steps must
 *   find it installed before the ClusterObjectSet controller has looked at it;
 * - else (no records, none deployed): nothing; the normal rollout installs.
 *
 * The records are left in place (upstream leaves them too): turning the gate off again finds them.
 */
import { CLUSTER_OBJECT_SET, FIELD_MANAGER, ObjectSetConditionType, formatKubeTime } from '../../../shared/api/index.ts';
import { isAlreadyExists, type KubeClient } from '../../../shared/kube/index.ts';
import type { OwnWrite } from './own-writes.ts';
import { deployedRelease, type Release, type ReleaseStore } from '../../release/index.ts';
import { MIGRATED_FROM_HELM_LABEL, migratedRevision, type ObjectSetManifest, type RevisionOwner } from './revision.ts';
import { asObjectSet, listRevisions } from './store.ts';
import { errorMessage } from '../../../shared/errors/index.ts';

/** Message of the Succeeded condition of a migrated revision (upstream's). */
export const MIGRATED_MESSAGE = 'Revision succeeded - migrated from Helm release';

/** What the migration of one extension does. */
type MigrationPlan =
  | { action: 'none' }
  /** Create `set` from record revision `from`, then mark it Succeeded. */
  | { action: 'create'; set: ObjectSetManifest; from: number }
  /** Mark the migrated revision `name` Succeeded. */
  | { action: 'mark-succeeded'; name: string };

function succeeded(set: ObjectSetManifest): boolean {
  return set.status?.conditions?.some((c) => c.type === ObjectSetConditionType.Succeeded && c.status === 'True') === true;
}

/** True when revision 1 exists and is labelled migrated but not yet Succeeded. */
function needsMark(set: ObjectSetManifest): boolean {
  return set.spec.revision === 1 && set.metadata.labels?.[MIGRATED_FROM_HELM_LABEL] === 'true' && !succeeded(set);
}

/**
 * The migration of `owner` (see the module comment). `sets` are its revisions; `history` its
 * records, newest first (read only when `sets` is empty: pass a function).
 */
export function planMigration(owner: RevisionOwner, sets: readonly ObjectSetManifest[], history: () => readonly Release[]): MigrationPlan {
  if (sets.length > 0) {
    const first = sets.find((s) => s.spec.revision === 1);
    return first !== undefined && needsMark(first) ? { action: 'mark-succeeded', name: first.metadata.name } : { action: 'none' };
  }
  const deployed = deployedRelease(history());
  if (deployed === undefined) return { action: 'none' };
  return { action: 'create', set: migratedRevision(owner, deployed), from: deployed.revision };
}

/** What the migration reads and writes with. */
interface MigrationPorts {
  /** operator-controller's own client: ClusterObjectSets are its records. */
  client: KubeClient;
  /** The Helm-like records (read only). */
  releases: Pick<ReleaseStore, 'history'>;
  /** Lists the extension's revisions (default: store.ts `listRevisions` with `client`; the reconcile's shared lists, lists.ts). */
  list?: (name: string, signal?: AbortSignal) => Promise<ObjectSetManifest[]>;
  now?: () => Date;
  /** Told of each write of a revision (the reads after it wait for the informer's copy to show it, lists.ts). */
  wrote?: (write: OwnWrite) => void;
}

/** Outcome of {@link migrateFromReleases}. */
type MigrationOutcome = 'none' | 'created' | 'marked';

/**
 * Migrates extension `owner` (see the module comment); idempotent, so a reconcile may call it
 * every time before the apply. Throws what failed (`migrating storage: ...` is the caller's).
 */
export async function migrateFromReleases(ports: MigrationPorts, owner: RevisionOwner, signal?: AbortSignal): Promise<MigrationOutcome> {
  const { client } = ports;
  const sets = await (ports.list ?? ((name, s) => listRevisions(client, name, s)))(owner.name, signal);
  let history: readonly Release[] = [];
  if (sets.length === 0) history = await ports.releases.history(owner.name, signal === undefined ? {} : { signal });
  const plan = planMigration(owner, sets, () => history);
  if (plan.action === 'none') return 'none';
  let name: string;
  if (plan.action === 'create') {
    name = plan.set.metadata.name;
    let made;
    try {
      made = await client.create(plan.set, { fieldManager: FIELD_MANAGER, ...(signal === undefined ? {} : { signal }) });
    } catch (err) {
      ports.wrote?.({ name });
      if (isAlreadyExists(err))
        throw new Error(`creating migrated revision: ${name} exists already, retrying with the revisions listed again`, { cause: err });
      throw err;
    }
    ports.wrote?.({ name, uid: made.metadata.uid });
  } else name = plan.name;
  await markSucceeded(ports, name, signal);
  return plan.action === 'create' ? 'created' : 'marked';
}

/** Sets Succeeded=True on migrated revision `name` unless it has it (or is not labelled migrated). */
async function markSucceeded(ports: MigrationPorts, name: string, signal?: AbortSignal): Promise<void> {
  const { client } = ports;
  const options = signal === undefined ? {} : { signal };
  let set: ObjectSetManifest;
  try {
    set = asObjectSet(await client.get({ apiVersion: CLUSTER_OBJECT_SET.apiVersion, kind: CLUSTER_OBJECT_SET.kind, name }, options));
  } catch (err) {
    throw new Error(`getting existing revision for status check: ${errorMessage(err)}`, { cause: err });
  }
  if (!needsMark(set)) return;
  const previous = set.status?.conditions?.find((c) => c.type === ObjectSetConditionType.Succeeded);
  const condition = {
    type: ObjectSetConditionType.Succeeded,
    status: 'True',
    reason: 'Succeeded',
    message: MIGRATED_MESSAGE,
    // A status change is a transition; same status keeps its time (meta.SetStatusCondition).
    lastTransitionTime: previous?.status === 'True' ? previous.lastTransitionTime : formatKubeTime(ports.now?.() ?? new Date()),
    observedGeneration: set.metadata.generation ?? 0,
  };
  // In place when present, appended otherwise (meta.SetStatusCondition).
  const old = set.status?.conditions ?? [];
  const conditions = previous === undefined ? [...old, condition] : old.map((c) => (c === previous ? condition : c));
  try {
    await client.updateStatus({ ...set, status: { ...set.status, conditions } }, options);
    ports.wrote?.({ name, uid: set.metadata.uid, on: set.metadata.resourceVersion });
  } catch (err) {
    throw new Error(`updating migrated revision status: ${errorMessage(err)}`, { cause: err });
  }
}
