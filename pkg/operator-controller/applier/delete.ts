/**
 * Deletion of a release's objects (uninstall, and the objects an upgrade drops), under single
 * ownership (decision 0049): an object is deleted only when its live copy carries this extension's
 * owner labels, and the delete is conditional on that copy's uid, so an object replaced in between
 * is not touched. CustomResourceDefinitions are never deleted: they are kept with their custom
 * resources, as OLM has always promised (decision 0049). Objects that cannot be deleted are
 * reported, not fatal, except where the ServiceAccount lost its rights over an object the deployed
 * revision owns: that fails, so the administrator grants them back or lets go (the orphan
 * annotation) rather than objects being left behind unnoticed.
 */
import { errorMessage } from '../../shared/errors/index.ts';
import { isConflict, isForbidden, isNoKindMatch, isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { ApplyError } from './apply-error.ts';
import type { ApplyObjectsOptions } from './apply.ts';
import { describeObject, isCrd, refOf } from './objects.ts';
import { releaseOwnerReferences } from './owner-references.ts';
import { ownedBy } from './ownership.ts';

/** An object left in place, and why. */
interface SkippedObject {
  /** `Kind ns/name`. */
  object: string;
  reason: string;
}

/** Outcome of `deleteOwnedObjects`. */
export interface DeleteOutcome {
  /** `Kind ns/name` of the objects deleted. */
  deleted: string[];
  /** `Kind name` of this extension's CustomResourceDefinitions left in place on purpose. */
  kept: string[];
  /** Objects left in place because they are not this extension's or could not be deleted. */
  skipped: SkippedObject[];
}

/** Options of `deleteOwnedObjects`. */
interface DeleteOptions extends Pick<ApplyObjectsOptions, 'signal'> {
  /**
   * True for objects whose failures are reported and skipped whatever they are: objects that
   * only a failed or interrupted revision named, which may never have been created.
   */
  tolerant?: (obj: KubeObject) => boolean;
  /** The live uid of objects known to carry the owner labels (synced drift watches): not read before their delete. */
  knownUid?: (obj: KubeObject) => string | undefined;
  /** Called for each kept CRD that is this extension's (uninstall marks it for its package). */
  onKeptCrd?: (crd: KubeObject) => Promise<void>;
}

/** True for the API server's authorization refusals (RBAC), as opposed to admission refusals. */
function isAuthorizationRefusal(err: unknown): boolean {
  return isForbidden(err) && / cannot [a-z]+ resource /.test(errorMessage(err));
}

/**
 * Deletes the objects of `objects` (in reverse order) that are this extension's; see the module
 * comment. Reads each object first (GET as `client`, the ServiceAccount). Throws ApplyError
 * `error deleting <Kind ns/name>: <message>` for a failure that must be retried: an error that is
 * not the API server's final word (5xx, timeouts) or an authorization refusal on an object
 * that is not `tolerant`.
 */
export async function deleteOwnedObjects(
  client: KubeClient,
  objects: readonly KubeObject[],
  extension: string,
  options: DeleteOptions = {},
): Promise<DeleteOutcome> {
  const { signal } = options;
  const s = signal === undefined ? {} : { signal };
  const outcome: DeleteOutcome = { deleted: [], kept: [], skipped: [] };
  for (const obj of [...objects].reverse()) {
    const what = describeObject(obj);
    const tolerant = options.tolerant?.(obj) === true;
    const skip = (reason: string): void => void outcome.skipped.push({ object: what, reason });
    const fail = (err: unknown): never => {
      throw new ApplyError(what, `error deleting ${what}: ${errorMessage(err)}`, err);
    };
    signal?.throwIfAborted();
    // The live uid, read unless a drift watch's cache vouches for the owner labels.
    let uid = options.knownUid?.(obj);
    let live: KubeObject | undefined;
    if (uid === undefined) {
      try {
        live = await client.get(refOf(obj), s);
      } catch (err) {
        if (isNotFound(err)) continue;
        if (isNoKindMatch(err)) skip('its kind is not served by the cluster');
        else if (tolerant || (isForbidden(err) && !isAuthorizationRefusal(err))) skip(errorMessage(err));
        else fail(err);
        continue;
      }
      if (!ownedBy(live.metadata, extension)) {
        skip('not owned by this extension');
        continue;
      }
      uid = live.metadata.uid ?? '';
    }
    if (isCrd(obj)) {
      // Kept: an owner reference to the extension (upstream's) would let the garbage collector
      // delete it, and its custom resources, once the extension is gone. Not removable: retried.
      try {
        await releaseOwnerReferences(client, obj, live?.metadata, extension, signal);
      } catch (err) {
        throw new ApplyError(
          what,
          `error removing the owner reference to ClusterExtension ${JSON.stringify(extension)} from ${what}: ${errorMessage(err)}`,
          err,
        );
      }
      outcome.kept.push(what);
      try {
        await options.onKeptCrd?.(obj);
      } catch (err) {
        skip(`kept, but not marked for its package: ${errorMessage(err)}`);
      }
      continue;
    }
    try {
      await client.delete(refOf(obj), {
        propagationPolicy: 'Background',
        ...(uid === '' ? {} : { preconditions: { uid } }),
        ...s,
      });
      outcome.deleted.push(what);
    } catch (err) {
      if (isNotFound(err)) continue;
      if (isConflict(err)) skip('replaced while it was being deleted');
      else if (tolerant || isRefusal(err)) skip(errorMessage(err));
      else fail(err);
    }
  }
  outcome.kept.reverse();
  return outcome;
}

/** The API server's final word on a delete that is not about the ServiceAccount's rights. */
function isRefusal(err: unknown): boolean {
  if (isAuthorizationRefusal(err)) return false;
  if (isForbidden(err)) return true;
  const status = (err as { status?: unknown }).status;
  return status === 400 || status === 405 || status === 422;
}
