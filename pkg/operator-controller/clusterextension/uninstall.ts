/**
 * Deletion of a ClusterExtension (deliberate difference 3 of the reference README; decision 0045):
 * under the uninstall finalizer the release's objects that still carry the extension's owner
 * labels are deleted as the extension's ServiceAccount, in reverse order, except
 * CustomResourceDefinitions, which stay with their custom resources (marked for their package,
 * decision 0049); then the release records, the bundle cache and the finalizers. Under
 * BoxcutterRuntime the objects the drift watches saw controlled by one of the extension's revisions
 * are left to the garbage collector, which deletes them with the revisions (decision 0145); nothing
 * else relies on it. Objects that are not the extension's, or that the API server refuses to
 * delete, are left and logged.
 *
 * Deletion always completes without an installer (issue 69): an extension that installed nothing
 * (no records) loses only its finalizers; one whose installer is gone (its ServiceAccount does
 * not exist, or no installer is configured any more) loses its records and leaves its objects in
 * place, with a Warning Event (ObjectsLeft) that says so. When the installer exists but lacks the
 * permissions the finalizer keeps failing with a message that says so and how to let go: the
 * `olm.operatorframework.io/orphan-objects: "true"` annotation makes the controller remove only
 * its own records and leave the objects, whether or not the installer exists (before, the
 * orphaning path still released CRD references as the installer, whose missing ServiceAccount
 * failed it). Records are deleted orphaning: under BoxcutterRuntime the revisions' objects lose
 * their owner references instead of going with them.
 */
import {
  CLEANUP_CONTENT_MANAGER_CACHE_FINALIZER,
  CLEANUP_UNPACK_CACHE_FINALIZER,
  ORPHAN_OBJECTS_ANNOTATION,
  UNINSTALL_FINALIZER,
} from '../../shared/api/index.ts';
import { objectIdentity, orphanObjects, releaseCrdReferences, type Applier, type RevisionRecords } from '../applier/index.ts';
import { addFinalizers, hasFinalizer, isDeleting, removeFinalizer, type Step, type StepOutcome } from '../../shared/controller/index.ts';
import { errorMessage, findCause, settleAll } from '../../shared/errors/index.ts';
import type { ImageCache } from '../../shared/image/index.ts';
import {
  ServiceAccountNotFoundError,
  isForbidden,
  isUnauthorized,
  type EventRecorder,
  type KubeClient,
  type KubeObject,
  type ScopedClientFactory,
} from '../../shared/kube/index.ts';
import { isReleaseName, type Release } from '../release/index.ts';
import type { DriftTracker, ExtensionHealthGauge } from '../drift/index.ts';
import { noInstallerMessage } from './installer.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { recordObjectsLeft, recordUninstalled } from './recorded-events.ts';
import { fail } from './failures.ts';
import type { UpgradeNotices } from './upgrade-notices.ts';

/** The finalizers operator-controller puts on every ClusterExtension, in the order added. */
export const EXTENSION_FINALIZERS = [CLEANUP_UNPACK_CACHE_FINALIZER, CLEANUP_CONTENT_MANAGER_CACHE_FINALIZER, UNINSTALL_FINALIZER] as const;

/** What the finalizers step uses. */
export interface FinalizerPorts {
  /** The extension's revisions (the uninstall deletes the objects they list). */
  releases: Pick<RevisionRecords, 'history'>;
  /** Ends the extension: its objects, then its records, whichever runtime holds them. */
  applier: Pick<Applier, 'uninstall'>;
  /** Clients acting as the installer (the uninstall's deletes), and their cached tokens to forget. */
  scoped: Pick<ScopedClientFactory, 'forServiceAccount' | 'forget'>;
  bundleCache: Pick<ImageCache, 'delete'>;
  /** The drift watches: stopped; what their caches know of the release's objects spares the uninstall a read of each. */
  drift: Pick<DriftTracker, 'stop' | 'ownedUid' | 'revisionControlled'>;
  /** The extension's health sample, removed with it. */
  healthGauge: Pick<ExtensionHealthGauge, 'forget'>;
  events: EventRecorder;
  /** The held-upgrade metric: a deleted extension's series goes. */
  upgrades: UpgradeNotices;
}

/**
 * The first step: on an extension being deleted, runs its finalizers and ends the reconcile;
 * on a live one, adds the missing finalizers, which also ends the reconcile (their patch
 * triggers the next one, upstream's behaviour).
 */
export function finalizersStep(ports: FinalizerPorts): Step<ExtensionState> {
  return {
    name: 'finalizers',
    run: (state) => {
      if (isDeleting(state.ce)) return finalize(ports, state);
      return addFinalizers(state.ce, EXTENSION_FINALIZERS) ? {} : undefined;
    },
  };
}

/** Runs the finalizers of a ClusterExtension being deleted; see the module comment. */
async function finalize(ports: FinalizerPorts, state: ExtensionState): Promise<StepOutcome> {
  const { ce } = state;
  const name = ce.metadata.name;
  if (!EXTENSION_FINALIZERS.some((f) => hasFinalizer(ce, f))) return {};
  ports.healthGauge.forget(name);
  ports.upgrades.set(name, undefined);
  if (hasFinalizer(ce, UNINSTALL_FINALIZER)) {
    // A name that cannot be a release name (admitted before the CRD refused it) has no records.
    if (isReleaseName(name)) await uninstall(ports, state);
    removeFinalizer(ce, UNINSTALL_FINALIZER);
  }
  // The drift watches ("content manager cache") end before any delete (uninstall); here for the other paths.
  ports.drift.stop(name);
  if (hasFinalizer(ce, CLEANUP_UNPACK_CACHE_FINALIZER)) {
    try {
      await ports.bundleCache.delete(name);
    } catch (err) {
      fail(state, new Error(`finalizer ${JSON.stringify(CLEANUP_UNPACK_CACHE_FINALIZER)} failed: ${errorMessage(err)}`, { cause: err }));
    }
    removeFinalizer(ce, CLEANUP_UNPACK_CACHE_FINALIZER);
  }
  // Its tracking cache, the drift watches, ended above.
  removeFinalizer(ce, CLEANUP_CONTENT_MANAGER_CACHE_FINALIZER);
  // The default installer's token serves other extensions too.
  const installer = state.installer;
  if (installer !== undefined && !installer.isDefault) ports.scoped.forget(installer.namespace, installer.name);
  return {};
}

/** The uninstall finalizer's work: the release's objects (or, orphaning, none) and its records. */
async function uninstall(ports: FinalizerPorts, state: ExtensionState): Promise<void> {
  const { ce, installer, signal } = state;
  const name = ce.metadata.name;
  const ns = installer?.namespace ?? ce.spec.namespace;
  const sa = installer?.name ?? '';
  const orphan = ce.metadata.annotations?.[ORPHAN_OBJECTS_ANNOTATION] === 'true';
  const stop = (message: string, err: unknown): never =>
    fail(state, new Error(`finalizer ${JSON.stringify(UNINSTALL_FINALIZER)} failed: ${message}`, { cause: err }));
  let history: readonly Release[] | undefined;
  try {
    history = await ports.releases.history(name, { signal });
  } catch (err) {
    ports.drift.stop(name);
    // Without readable records the objects to delete are unknown; orphaning needs none of them.
    if (!orphan) stop(`${errorMessage(err)}; ${UNREADABLE_ADVICE}`, err);
    state.log.warn({ err: errorMessage(err) }, 'release records unreadable, objects left in place');
  }
  // The uids the drift watches' caches hold (objects carrying the owner labels), taken before
  // they end, which is before the first delete: the uninstall's deletes are no drift.
  const { knownUid, revisionControlled } = cachedUids(ports.drift, name, orphan ? [] : (history ?? []));
  ports.drift.stop(name);
  const client = installer === undefined ? undefined : ports.scoped.forServiceAccount(ns, sa);
  try {
    if (orphan || history === undefined || history.length === 0) {
      // Nothing installed, or the objects stay: only operator-controller's records go.
      if (client !== undefined) await releaseKept(client, state, history);
      else if (orphan) state.log.warn({}, 'no installer: orphaned objects not checked for owner references');
      await ports.applier.uninstall(name, history ?? [], signal);
      if (orphan) state.log.info({ records: history?.length ?? 0 }, 'removed release records, objects left in place');
      return;
    }
    // No installer (never configured, or no longer): nobody may delete the objects; they stay.
    if (client === undefined) return await leaveObjects(ports, state, history, noInstallerMessage(ce.spec.namespace));
    // The CRDs' owner references go while the objects are deleted, and before any record: under
    // BoxcutterRuntime a record is a ClusterObjectSet, and deleting one that a CRD still names as
    // owner would let the garbage collector take the CRD and its custom resources. The finalizer
    // that keeps the extension (their owner) stays until both are done.
    const releasing = releaseCrdReferences(client, name, signal);
    const [, outcome = { deleted: [], kept: [], skipped: [] }] = await settleAll([
      releasing,
      ports.applier.uninstall(name, history, signal, { client, knownUid, revisionControlled, after: releasing }),
    ]);
    state.log.info({ deleted: outcome.deleted.length, kept: outcome.kept, skipped: outcome.skipped }, 'uninstalled');
    recordUninstalled(ports.events, state, outcome);
  } catch (err) {
    // The installer's ServiceAccount is gone: its objects cannot be deleted as it; they stay.
    const missing = findCause(err, isServiceAccountNotFound);
    if (missing !== undefined && history !== undefined && !orphan) return await leaveObjects(ports, state, history, missing.message);
    const advice = refusedAccess(err)
      ? `the service account ${JSON.stringify(sa)} in namespace ${JSON.stringify(ns)} must be able to delete the extension's objects, or ${ORPHAN_ADVICE}`
      : ORPHAN_ADVICE;
    stop(`${errorMessage(err)}; ${advice}`, err);
  }
}

function isServiceAccountNotFound(e: Error): e is ServiceAccountNotFoundError {
  return e instanceof ServiceAccountNotFoundError;
}

/**
 * Before the records of an extension whose objects stay go: the owner references to it are
 * removed from what stays (its CRDs by owner label, and every object the records name), as the
 * installer. An installer whose ServiceAccount does not exist has nothing to release (it can
 * neither read nor write): logged, and the records go all the same.
 */
async function releaseKept(client: KubeClient, state: ExtensionState, history: readonly Release[] | undefined): Promise<void> {
  const name = state.ce.metadata.name;
  try {
    await releaseCrdReferences(client, name, state.signal);
    if (history === undefined || history.length === 0) return;
    const kept = await orphanObjects(
      client,
      history.flatMap((r) => r.manifest.identities()),
      name,
      state.signal,
    );
    if (kept.unreleased.length > 0) state.log.warn({ unreleased: kept.unreleased }, 'owner references left on orphaned objects');
  } catch (err) {
    const missing = findCause(err, isServiceAccountNotFound);
    if (missing === undefined) throw err;
    state.log.warn({ err: missing.message }, 'installer gone: owner references not checked');
  }
}

/**
 * The uninstall of an extension whose installer is gone: its records go, its objects stay
 * where they are (under BoxcutterRuntime the revisions are deleted orphaning their objects),
 * and a Warning Event says so and why.
 */
async function leaveObjects(ports: FinalizerPorts, state: ExtensionState, history: readonly Release[], why: string): Promise<void> {
  const name = state.ce.metadata.name;
  await ports.applier.uninstall(name, history, state.signal);
  const objects = new Set(history.flatMap((r) => r.manifest.identities().map(objectIdentity))).size;
  state.log.warn({ err: why, objects }, 'installer gone: removed release records, objects left in place');
  recordObjectsLeft(ports.events, state, objects, why);
}

/**
 * What the drift watches of `extension` hold of each object of `history`, as lookups by object:
 * its uid (delete.ts deletes it conditionally on that uid without reading it first), and whether
 * one of the extension's revisions controls it (BoxcutterRuntime leaves it to the garbage collector).
 */
function cachedUids(
  drift: Pick<DriftTracker, 'ownedUid' | 'revisionControlled'>,
  extension: string,
  history: readonly Release[],
): { knownUid: (obj: KubeObject) => string | undefined; revisionControlled: (obj: KubeObject) => boolean } {
  const uids = new Map<string, string>();
  const controlled = new Set<string>();
  for (const release of history) {
    for (const obj of release.manifest.objects()) {
      const id = objectIdentity(obj);
      const uid = drift.ownedUid(extension, obj);
      if (uid !== undefined) uids.set(id, uid);
      if (drift.revisionControlled(extension, obj)) controlled.add(id);
    }
  }
  return { knownUid: (obj) => uids.get(objectIdentity(obj)), revisionControlled: (obj) => controlled.has(objectIdentity(obj)) };
}

/** The way out the uninstall's failures name. */
const ORPHAN_ADVICE = `annotate the ClusterExtension with ${ORPHAN_OBJECTS_ANNOTATION}=true to remove only operator-controller's records and leave the objects in place`;

/** Advice when the records cannot be read. */
const UNREADABLE_ADVICE = `the objects to delete are listed in the release records: repair or delete the record, or ${ORPHAN_ADVICE}`;

/** True when `err` (or an error it wraps) is the API server refusing the installer, or there is no installer. */
function refusedAccess(err: unknown): boolean {
  for (let e: unknown = err; e !== undefined; e = (e as { cause?: unknown }).cause) {
    if (isForbidden(e) || isUnauthorized(e)) return true;
    if (!(e instanceof Error)) break;
  }
  return false;
}
