/**
 * The Applier port's `uninstall`, one for both runtimes (decision 0045): deletes, as the
 * installer, the objects any revision applied that are still this extension's (in reverse apply
 * order, several at a time; delete.ts, which reads none that `knownUid` vouches for), except
 * CRDs, which stay with their custom resources and are marked kept for the installed package, so
 * that its next install takes them back; then the runtime's records. Objects only a failed or
 * interrupted revision named never stop the uninstall. Under BoxcutterRuntime the objects a
 * revision controls (the drift watches' word) are not deleted here: the garbage collector deletes
 * them once the revisions go (decision 0145). The records go only once `after` has settled too,
 * and not at all when it fails. Without objects to delete (orphaning, or no
 * installer) only the records go, orphaning what they own.
 */
import { KEPT_FOR_PACKAGE_ANNOTATION } from '../../shared/api/index.ts';
import { settleAll } from '../../shared/errors/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { deployedRelease, type Release, type ReleaseStore } from '../release/index.ts';
import { deleteOwnedObjects } from './delete.ts';
import { describeObject, isCrd, objectIdentity, refOf, uniqueObjects } from './objects.ts';
import type { Applier } from './port.ts';

/** True for objects the deployed revision (if any) does not contain: their failures are skipped. */
export function notIn(deployed: Release | undefined): (obj: KubeObject) => boolean {
  const ids = new Set(deployed === undefined ? [] : deployed.manifest.identities().map(objectIdentity));
  return (obj) => !ids.has(objectIdentity(obj));
}

/**
 * The uninstall of a runtime whose records `deleteRecords` deletes (see the module comment).
 * `collects` (BoxcutterRuntime): deleting the records deletes what they control, so the objects
 * `revisionControlled` vouches for (CRDs apart) are left to the garbage collector, and counted
 * as deleted.
 */
export function uninstallWith(deleteRecords: ReleaseStore['deleteAll'], collects = false): Applier['uninstall'] {
  return async (extension, history, signal, objects) => {
    if (objects === undefined) {
      await deleteRecords(extension, signal, undefined, true);
      return undefined;
    }
    const { client } = objects;
    const deployed = deployedRelease(history);
    const packageName = (deployed ?? history[0])?.bundle.package;
    const controlled = collects ? objects.revisionControlled : undefined;
    const all = uniqueObjects(eachObject(history));
    const collected = controlled === undefined ? [] : all.filter((o) => !isCrd(o) && controlled(o));
    const explicit = collected.length === 0 ? all : all.filter((o) => !collected.includes(o));
    const deleting = deleteOwnedObjects(client, explicit, extension, {
      signal,
      tolerant: notIn(deployed),
      knownUid: objects.knownUid,
      ...(objects.after === undefined ? {} : { crdsReleased: objects.after }),
      onKeptCrd:
        packageName === undefined
          ? undefined
          : (crd) =>
              client
                .patch(refOf(crd), { metadata: { annotations: { [KEPT_FOR_PACKAGE_ANNOTATION]: packageName } } }, 'merge', { signal })
                .then(() => undefined),
    });
    // The records are found while the objects go, and deleted after them and after `after` (the
    // CRDs' release: a ClusterObjectSet revision deleted while a CRD still names it as owner takes
    // that CRD with it through the garbage collector).
    const after = Promise.all([deleting, objects.after]);
    // Its failure is the first two's, reported by settleAll; deleteRecords awaits it only after listing.
    after.catch(() => undefined);
    const [deleted] = await settleAll([deleting, deleteRecords(extension, signal, after)]);
    return collected.length === 0 ? deleted : { ...deleted, deleted: [...collected.map(describeObject), ...deleted.deleted] };
  };
}

/** One revision's objects parsed at a time. */
function* eachObject(history: readonly Release[]): Generator<KubeObject> {
  for (const release of history) yield* release.manifest.objects();
}
