/**
 * Back from ClusterObjectSets to release records when the BoxcutterRuntime is turned off again
 * (issue 64: switching runtimes both ways, decision 0125). Upstream has no way back; here an
 * extension with revisions, reconciled by the Helm runtime, gets:
 *
 * 1. its installed revision (the newest that succeeded, else the newest) as the deployed
 *    release record, unless the deployed record already runs that bundle: a new revision
 *    `Upgrade complete` (`Install complete` without records) holding the revision's objects,
 *    the one deployed before superseded; the Helm apply that follows then owns the objects
 *    where they stand (uids kept) and prunes from that record;
 * 2. every revision deleted with propagation `Orphan`: the garbage collector removes the
 *    revision from its objects' owners instead of deleting them; only the revision controller's
 *    teardown finalizer is taken off (the collector's `orphan` one stays until it is done, or a
 *    dangling owner reference would let it delete the objects); the Secrets holding the
 *    revisions' objects are deleted after.
 *
 * Nothing happens where the ClusterObjectSet kind is not served or may not be listed.
 */
import { CLUSTER_OBJECT_SET, OWNER_NAME_LABEL } from '../../../shared/api/index.ts';
import { errorMessage } from '../../../shared/errors/index.ts';
import { isForbidden, isNoKindMatch, isNotFound, type KubeClient } from '../../../shared/kube/index.ts';
import { deployedRelease, ReleaseStatus, type Release, type ReleaseStore } from '../../release/index.ts';
import type { ObjectSetManifest } from './revision.ts';
import { OBJECT_DATA_SECRET_TYPE } from './secrets.ts';
import { releaseOf, revisionStates } from './status.ts';
import { listRevisions, revisionObjects } from './store.ts';

/** The revision controller's finalizer (pkg/operator-controller/objectset). */
const TEARDOWN_FINALIZER = 'olm.operatorframework.io/teardown';
const TYPE = { apiVersion: CLUSTER_OBJECT_SET.apiVersion, kind: CLUSTER_OBJECT_SET.kind };

/** What the way back reads and writes with: operator-controller's own client and the release records. */
interface UnmigrationPorts {
  client: KubeClient;
  releases: Pick<ReleaseStore, 'history' | 'create' | 'update'>;
  /** operator-controller's namespace, where the revisions' Secrets are. */
  systemNamespace: string;
  now?: () => Date;
}

/** True when `err` (or what it wraps) says the kind is not there to list. */
function notListable(err: unknown): boolean {
  const cause = err instanceof Error && err.cause !== undefined ? err.cause : err;
  return isNoKindMatch(cause) || isNotFound(cause) || isForbidden(cause);
}

/**
 * The deployed record the way back writes, or undefined when the deployed record already runs
 * the installed revision's bundle (pure). `history` is newest first.
 */
export function recordOfRevision(
  installed: ObjectSetManifest,
  sets: readonly ObjectSetManifest[],
  objects: Parameters<typeof releaseOf>[2],
  history: readonly Release[],
  owner: { uid: string; installNamespace: string },
  now: string,
): Release | undefined {
  const deployed = deployedRelease(history);
  const revision = releaseOf(installed, sets, objects);
  if (deployed !== undefined && deployed.bundle.name === revision.bundle.name && deployed.bundle.version === revision.bundle.version)
    return undefined;
  const { objectSet: _set, ...rest } = revision;
  return {
    ...rest,
    extensionUID: owner.uid,
    namespace: owner.installNamespace,
    revision: (history[0]?.revision ?? 0) + 1,
    status: ReleaseStatus.Deployed,
    description: deployed === undefined ? 'Install complete' : 'Upgrade complete',
    firstDeployed: deployed?.firstDeployed ?? now,
    lastDeployed: now,
  };
}

/** Takes extension `owner` back to release records (see the module comment); 'none' when it has no revisions. */
export async function migrateToReleases(
  ports: UnmigrationPorts,
  owner: { name: string; uid: string; installNamespace: string },
  signal?: AbortSignal,
): Promise<'none' | 'released'> {
  const { client } = ports;
  const s = signal === undefined ? {} : { signal };
  let sets: ObjectSetManifest[];
  try {
    sets = await listRevisions(client, owner.name, signal);
  } catch (err) {
    if (notListable(err)) return 'none';
    throw err;
  }
  if (sets.length === 0) return 'none';
  const installed = revisionStates(sets).installed ?? sets.at(-1);
  if (installed !== undefined) {
    const history = await ports.releases.history(owner.name, s);
    const now = (ports.now?.() ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const record = recordOfRevision(installed, sets, await revisionObjects(client, installed, signal, ports.systemNamespace), history, owner, now);
    if (record !== undefined) {
      const before = deployedRelease(history);
      await ports.releases.create(record, signal);
      if (before !== undefined) await ports.releases.update({ ...before, status: ReleaseStatus.Superseded }, signal);
    }
  }
  for (const set of sets) {
    const ref = { ...TYPE, name: set.metadata.name };
    try {
      await client.delete(ref, { propagationPolicy: 'Orphan', ...s });
      const finalizers = set.metadata.finalizers ?? [];
      const at = finalizers.indexOf(TEARDOWN_FINALIZER);
      if (at >= 0) {
        const live = await client.get(ref, s);
        const now = live.metadata.finalizers ?? [];
        const i = now.indexOf(TEARDOWN_FINALIZER);
        if (i >= 0) {
          const patch = [
            { op: 'test', path: `/metadata/finalizers/${i}`, value: TEARDOWN_FINALIZER },
            { op: 'remove', path: `/metadata/finalizers/${i}` },
          ];
          await client.patch(ref, patch, 'json', s);
        }
      }
    } catch (err) {
      if (!isNotFound(err)) throw new Error(`releasing revision ${set.metadata.name}: ${errorMessage(err)}`, { cause: err });
    }
  }
  const { items } = await client.listAll(
    { apiVersion: 'v1', kind: 'Secret' },
    { namespace: ports.systemNamespace, labelSelector: `${OWNER_NAME_LABEL}=${owner.name}`, ...s },
  );
  for (const secret of items) {
    if (secret['type'] !== OBJECT_DATA_SECRET_TYPE) continue;
    await client
      .delete({ apiVersion: 'v1', kind: 'Secret', namespace: ports.systemNamespace, name: secret.metadata.name ?? '' }, s)
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  }
  return 'released';
}
