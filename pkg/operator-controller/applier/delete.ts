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
import { isConflict, isForbidden, isNoKindMatch, isNotFound, mapLimited, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { ApplyError } from './apply-error.ts';
import type { ApplyObjectsOptions } from './apply.ts';
import { describeObject, isCrd, refOf } from './objects.ts';
import { ownerReferenceError, releaseOwnerReferences } from './owner-references.ts';
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
  /**
   * The caller's own release of the CRDs' owner references (the uninstall's), to the `Kind name`
   * of each CRD it released: a kept CRD it released is not read or released again (the two
   * would patch the same reference, one refused and read again); any other is read once it has
   * settled. The CRD is marked (`onKeptCrd`) meanwhile.
   */
  crdsReleased?: Promise<readonly string[]>;
}

/** True for the API server's authorization refusals (RBAC), as opposed to admission refusals. */
function isAuthorizationRefusal(err: unknown): boolean {
  return isForbidden(err) && / cannot [a-z]+ resource /.test(errorMessage(err));
}

/** Deletes sent at a time by one reconcile (kube-apiserver admits 200 mutating requests in flight by default). */
const DELETES_AT_ONCE = 16;

/** What happened to one object. */
interface ObjectOutcome {
  deleted?: string;
  kept?: string;
  skipped: SkippedObject[];
  /** A failure that must be retried (ApplyError). */
  failure?: ApplyError;
}

/**
 * Deletes the objects of `objects` that are this extension's; see the module comment. Up to
 * DELETES_AT_ONCE at a time (started in `objects`' reverse order), Namespaces last, once
 * everything else is done (a Namespace's deletion takes what is in it); no other order matters
 * to a delete, unlike to an apply (apply-order.ts), and each order costs a round trip. Reads an
 * object first (GET as `client`, the ServiceAccount) unless `knownUid` vouches for it; a delete
 * conditional on a cached uid that the API server refuses (the object was replaced since)
 * reads the object and decides again. Throws ApplyError `error deleting <Kind ns/name>:
 * <message>` for a failure that must be retried (the first, once every other object but the
 * Namespaces was tried; Namespaces are then not started): an error that is not the API
 * server's final word (5xx, timeouts) or an authorization refusal on an object that is not
 * `tolerant`.
 */
export async function deleteOwnedObjects(
  client: KubeClient,
  objects: readonly KubeObject[],
  extension: string,
  options: DeleteOptions = {},
): Promise<DeleteOutcome> {
  const outcome: DeleteOutcome = { deleted: [], kept: [], skipped: [] };
  const reversed = [...objects].reverse();
  const namespaces = reversed.filter(isNamespace);
  for (const phase of [reversed.filter((o) => !isNamespace(o)), namespaces]) {
    const results = await mapLimited(phase, DELETES_AT_ONCE, (obj) => deleteOne(client, obj, extension, options));
    for (const r of results) {
      if (r.deleted !== undefined) outcome.deleted.push(r.deleted);
      if (r.kept !== undefined) outcome.kept.push(r.kept);
      outcome.skipped.push(...r.skipped);
    }
    const failure = results.find((r) => r.failure !== undefined)?.failure;
    if (failure !== undefined) throw failure;
  }
  outcome.kept.reverse();
  return outcome;
}

function isNamespace(obj: KubeObject): boolean {
  return obj.apiVersion === 'v1' && obj.kind === 'Namespace';
}

/** One object of deleteOwnedObjects: read (unless vouched for), checked, then deleted or kept. */
async function deleteOne(client: KubeClient, obj: KubeObject, extension: string, options: DeleteOptions): Promise<ObjectOutcome> {
  const { signal } = options;
  const what = describeObject(obj);
  const tolerant = options.tolerant?.(obj) === true;
  const out: ObjectOutcome = { skipped: [] };
  const skip = (reason: string): ObjectOutcome => (out.skipped.push({ object: what, reason }), out);
  const fail = (err: unknown): ObjectOutcome => ((out.failure = new ApplyError(what, `error deleting ${what}: ${errorMessage(err)}`, err)), out);
  signal?.throwIfAborted();
  // The live uid, read unless a drift watch's cache vouches for the owner labels.
  let uid = options.knownUid?.(obj);
  let cached = uid !== undefined;
  let live: KubeObject | undefined;
  for (;;) {
    if (uid === undefined) {
      try {
        live = await client.get(refOf(obj), { signal });
      } catch (err) {
        if (isNotFound(err)) return out;
        if (isNoKindMatch(err)) return skip('its kind is not served by the cluster');
        if (tolerant || (isForbidden(err) && !isAuthorizationRefusal(err))) return skip(errorMessage(err));
        return fail(err);
      }
      if (!ownedBy(live.metadata, extension)) return skip('not owned by this extension');
      uid = live.metadata.uid ?? '';
    }
    if (isCrd(obj)) return keepCrd(client, obj, live, extension, options, out);
    try {
      await client.delete(refOf(obj), {
        propagationPolicy: 'Background',
        ...(uid === '' ? {} : { preconditions: { uid } }),
        signal,
      });
      out.deleted = what;
      return out;
    } catch (err) {
      if (isNotFound(err)) return out;
      // The cache's copy was replaced since: the object is read and judged again, once.
      if (isConflict(err) && cached) {
        cached = false;
        uid = undefined;
        continue;
      }
      if (isConflict(err)) return skip('replaced while it was being deleted');
      if (tolerant || isRefusal(err)) return skip(errorMessage(err));
      return fail(err);
    }
  }
}

/**
 * A CRD of this extension is kept: an owner reference to the extension (upstream's) would let
 * the garbage collector delete it, and its custom resources, once the extension is gone, so it is
 * removed first; one that cannot be removed is a failure (retried).
 */
async function keepCrd(
  client: KubeClient,
  crd: KubeObject,
  live: KubeObject | undefined,
  extension: string,
  options: DeleteOptions,
  out: ObjectOutcome,
): Promise<ObjectOutcome> {
  const what = describeObject(crd);
  const mark = (): Promise<string | undefined> | undefined =>
    options.onKeptCrd?.(crd).then(
      () => undefined,
      (err: unknown) => `kept, but not marked for its package: ${errorMessage(err)}`,
    );
  // Beside the caller's release, marked meanwhile (a merge patch of an annotation leaves the
  // release's JSON patch's tests true); else once released.
  let marking = options.crdsReleased === undefined ? undefined : mark();
  // The caller's release failing is the caller's to report; this one stands in for it.
  const released = options.crdsReleased === undefined ? undefined : await options.crdsReleased.catch(() => undefined);
  if (released?.includes(what) !== true) {
    try {
      await releaseOwnerReferences(client, crd, options.crdsReleased === undefined ? live?.metadata : undefined, extension, options.signal);
    } catch (err) {
      await marking;
      out.failure = ownerReferenceError(crd, extension, err);
      return out;
    }
  }
  out.kept = what;
  marking ??= mark();
  const unmarked = await marking;
  if (unmarked !== undefined) out.skipped.push({ object: what, reason: unmarked });
  return out;
}

/** The API server's final word on a delete that is not about the ServiceAccount's rights. */
function isRefusal(err: unknown): boolean {
  if (isAuthorizationRefusal(err)) return false;
  if (isForbidden(err)) return true;
  const status = (err as { status?: unknown }).status;
  return status === 400 || status === 405 || status === 422;
}
