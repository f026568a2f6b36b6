/**
 * The Applier port (port.ts) over ClusterObjectSets (BoxcutterRuntime), as upstream's
 * `Boxcutter.Apply` (internal/operator-controller/applier/boxcutter.go): the applier writes
 * revisions; the ClusterObjectSet controller (pkg/operator-controller/objectset) applies their
 * phases, probes them, reports their conditions and archives the older revisions once a newer
 * one has Succeeded (upstream does it there, not here).
 *
 * - `apply(desired)`: the extension's revisions are listed (a failure fails the apply). When the
 *   newest one already holds `desired` (revision.ts `sameRevision`) it is kept: its
 *   labels, annotations, probes and deadline brought up to date (a server-side apply, as
 *   upstream's, only when one differs), its Secrets given their owner if a crash left them
 *   without (looked at once per revision and process: a crash is a restart), `changed: false`. Otherwise revision newest + 1 is made, crash-safe in upstream's
 *   three steps: archived revisions beyond the five newest deleted, the objects packed into
 *   immutable Secrets (created; existing ones are fine: their names are content hashes), the
 *   ClusterObjectSet server-side applied with refs, then made the Secrets' owner;
 *   `changed: true`. The CRDs an uninstall kept for the same package are taken back (kept-crds.ts,
 *   decision 0150): read as the installer, IfNoController on those objects, their mark removed
 *   (as the installer) once the revision has them. The release returned is the newest revision
 *   as a record: `deployed` only once the ClusterObjectSet controller has marked it Succeeded,
 *   pending before.
 * - `apply(undefined)` (keep): nothing is written (the ClusterObjectSet controller keeps the
 *   objects applied); it fails as upstream when there is no revision at all.
 * - `rollback(desired)`: `apply(desired)`: the old content as a new revision, which archives the
 *   undone one once it has Succeeded (as upstream goes back: forward, to old content).
 * - `uninstall`: the objects deleted as the installer (../uninstall.ts), but those the drift
 *   watches know a revision controls, which the garbage collector deletes with the revisions;
 *   then the revisions (store.ts `deleteRevisions`).
 * - `migrate`: an extension with Helm release records and no revision gets revision 1 from its
 *   deployed record (migrate.ts).
 * - `deployed`: the installed revision (newest Succeeded, not archived).
 * - `authorize`: as the release applier's: the installer's permissions for the objects the move
 *   writes and deletes, checked as the installer.
 * - `conflicts`: always undefined. Upstream reports collisions on the revision (Progressing
 *   True, Retrying, `revision object collisions in phase N ...`), mirrored onto the extension;
 *   an apply never throws for them.
 */
import { FIELD_MANAGER, LifecycleState } from '../../../shared/api/index.ts';
import { errorMessage } from '../../../shared/errors/index.ts';
import {
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ScopedClientFactory,
} from '../../../shared/kube/index.ts';
import { jsonEqual } from '../../../shared/controller/index.ts';
import type { Release, ReleaseStore } from '../../release/index.ts';
import { migrateFromReleases } from './migrate.ts';
import {
  asRevision,
  RevisionAnnotation,
  desiredRevision,
  inlineObjects,
  keptCrdNames,
  nextRevisionNumber,
  revisionsToCollect,
  sameRevision,
  type ObjectSetManifest,
  type RevisionOwner,
} from './revision.ts';
import { keptCrds, takesBackCrds, unmarkTakenBack } from './kept-crds.ts';
import { createRefSecrets, ensureRefSecretOwners, ownRefSecrets, packObjects, withRefs } from './secrets.ts';
import { deployedSummary, releaseOf, revisionStates, rolloutOf } from './status.ts';
import { asObjectSet, deleteRevisions, listRevisions, revisionObjects } from './store.ts';
import { RevisionLists } from './lists.ts';
import type { Applied, Applier, ExtensionRequest } from '../port.ts';
import { authorizeMove } from '../authorize.ts';
import { uninstallWith } from '../uninstall.ts';
import type { DesiredRevision } from '../revision.ts';

/** What the Boxcutter applier needs. */
interface BoxcutterApplierPorts {
  /** operator-controller's own client: ClusterObjectSets and their Secrets are its records. */
  client: KubeClient;
  /** Where the Secrets holding revisions' objects live (operator-controller's namespace). */
  systemNamespace: string;
  /** Clients acting as the installer, for `authorize` and for reading and unmarking the CRDs a revision takes back (kept-crds.ts). */
  scoped: Pick<ScopedClientFactory, 'forServiceAccount'>;
  /** Which of an extension's objects drifted since the last call (the drift watches); none: drift is not followed here. */
  drift?: { takeDrifted(name: string): string[] };
  /** Queues a reconcile of ClusterObjectSet `name` (its controller puts drifted objects back). */
  reconcileRevision?: (name: string) => void;
  /** The Helm release records an extension had before the gate: migrated into revision 1; none: nothing to migrate. */
  helmReleases?: Pick<ReleaseStore, 'history'>;
  /** Resolves once no write of the extension's revisions is in flight (objectset's RevisionWrites), before an uninstall deletes them. */
  settled?: (extension: string) => Promise<void>;
  /** The lists of revisions a reconcile's reads share (lists.ts), with the records'; none: the applier's own. */
  lists?: RevisionLists;
}

/**
 * True when `live` already carries what `desired` sets of the mutable part of a revision (what an
 * unchanged apply may bring up to date; its own extra labels and annotations allowed).
 */
function mutableUpToDate(live: ObjectSetManifest, desired: ObjectSetManifest): boolean {
  const covers = (a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean =>
    Object.entries(b ?? {}).every(([k, v]) => a?.[k] === v);
  return (
    covers(live.metadata.labels, desired.metadata.labels) &&
    covers(live.metadata.annotations, desired.metadata.annotations) &&
    jsonEqual(
      live.metadata.ownerReferences?.map((o) => o.uid),
      desired.metadata.ownerReferences?.map((o) => o.uid),
    ) &&
    jsonEqual(live.spec.progressionProbes, desired.spec.progressionProbes) &&
    jsonEqual(live.spec.progressDeadlineMinutes, desired.spec.progressDeadlineMinutes)
  );
}

/** Revisions remembered as having their Secrets owned (a few per extension of thousands). */
const SECRETS_OWNED_KEPT = 10_000;

/** A set of at most `max` strings, the least recently added going first. */
class RecentSet {
  readonly #items = new Set<string>();
  readonly #max: number;
  constructor(max: number) {
    this.#max = max;
  }
  has(item: string): boolean {
    return this.#items.has(item);
  }
  add(item: string): void {
    this.#items.delete(item);
    this.#items.add(item);
    for (const oldest of this.#items) {
      if (this.#items.size <= this.#max) break;
      this.#items.delete(oldest);
    }
  }
}

export function createBoxcutterApplier(ports: BoxcutterApplierPorts): Applier {
  const { client, systemNamespace, scoped } = ports;
  const lists = ports.lists ?? new RevisionLists((name, signal) => listRevisions(client, name, signal));
  // Revisions (uids) whose Secrets this process gave, or found with, their owner reference.
  const secretsOwned = new RecentSet(SECRETS_OWNED_KEPT);
  // Revisions (uids) that took back kept CRDs and whose CRDs no longer carry the kept mark.
  const unmarked = new RecentSet(SECRETS_OWNED_KEPT);
  const writing = (signal: AbortSignal) => ({ fieldManager: FIELD_MANAGER, force: true, signal });

  const authorize: Applier['authorize'] = (request, desired, fix) => authorizeMove(scoped, request, desired, fix);

  /** The newest revision kept: its record from `history` when there, else read. */
  const kept = async (
    current: ObjectSetManifest,
    sets: readonly ObjectSetManifest[],
    history: readonly Release[],
    signal: AbortSignal,
  ): Promise<Release> => {
    const recorded = history.find((r) => r.revision === current.spec.revision);
    const base = releaseOf(current, sets, []);
    if (recorded !== undefined) return { ...base, manifest: recorded.manifest };
    return releaseOf(current, sets, await revisionObjects(client, current, signal, systemNamespace));
  };

  /** Brings the newest revision's mutable fields up to date; false when the API server refuses the revision as changed. */
  const keepCurrent = async (current: ObjectSetManifest, desired: ObjectSetManifest, signal: AbortSignal): Promise<boolean> => {
    if (!mutableUpToDate(current, desired)) {
      try {
        await client.apply(desired, writing(signal));
      } catch (err) {
        if (isInvalid(err)) return false;
        throw new Error(`patching ${current.metadata.name} Revision: ${errorMessage(err)}`, { cause: err });
      }
    }
    const uid = current.metadata.uid;
    // Once per revision and process: a crash between its creation and its Secrets' owner patch
    // is a restart, after which its first reconcile here looks again.
    if (uid !== undefined && !secretsOwned.has(uid)) {
      try {
        await ensureRefSecretOwners(client, systemNamespace, { name: current.metadata.name, uid }, signal);
      } catch (err) {
        throw new Error(`ensuring ownerReferences on ref Secrets: ${errorMessage(err)}`, { cause: err });
      }
      secretsOwned.add(uid);
    }
    return true;
  };

  /** Makes revision newest + 1 of `desired` (see the module comment). */
  const createRevision = async (
    owner: RevisionOwner,
    desired: DesiredRevision,
    sets: readonly ObjectSetManifest[],
    installer: KubeClient,
    signal: AbortSignal,
  ): Promise<Release> => {
    // As the installer, who writes the revision's objects: operator-controller may not get CRDs (config/rbac).
    const kept = await keptCrds(installer, desired.manifest.identities(), desired.bundle.package, signal);
    const inline = desiredRevision(owner, desired, nextRevisionNumber(sets), kept);
    const name = inline.metadata.name;
    for (const gone of revisionsToCollect(sets)) {
      // On the uid listed: the revisions may be the informer's copies, and a name is not proof.
      const collected = sets.find((s) => s.metadata.name === gone)?.metadata;
      const uid = collected?.uid;
      try {
        await client.delete(
          { apiVersion: inline.apiVersion, kind: inline.kind, name: gone },
          { signal, ...(uid === undefined ? {} : { preconditions: { uid } }) },
        );
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err))
          throw new Error(`garbage collecting old revisions: deleting archived revision: ${errorMessage(err)}`, { cause: err });
      }
      lists.changed(owner.name, signal, { name: gone, uid, on: collected?.resourceVersion, gone: true });
    }
    let packed;
    try {
      packed = packObjects({ revisionName: name, ownerName: owner.name, systemNamespace }, inline.spec.phases);
    } catch (err) {
      throw new Error(`packing objects into Secrets: ${errorMessage(err)}`, { cause: err });
    }
    const set: ObjectSetManifest = { ...inline, spec: { ...inline.spec, phases: withRefs(inline.spec.phases, packed.refs) } };
    await createRefSecrets(client, packed.secrets, signal);
    let answer: ObjectSetManifest;
    try {
      // Created, not applied: its number read from the informer's copy may be taken already (a
      // revision not yet in the copy), and then the create fails and the reconcile is retried,
      // reading the revisions from the API server (lists.ts), where an apply would overwrite it.
      answer = asObjectSet(await client.create(set, { fieldManager: FIELD_MANAGER, signal }));
    } catch (err) {
      // Made or not, a revision of that name may be there: the reads after it list until it is in the copy.
      lists.changed(owner.name, signal, { name });
      if (isAlreadyExists(err))
        throw new Error(`creating new Revision: ${name} exists already, retrying with the revisions listed again`, { cause: err });
      throw new Error(`creating new Revision: ${errorMessage(err)}`, { cause: err });
    }
    const uid = answer.metadata.uid;
    lists.changed(owner.name, signal, { name, uid });
    if (uid === undefined) throw new Error(`creating new Revision: ${name} has no uid`);
    try {
      await ownRefSecrets(client, { name, uid }, packed.secrets, signal);
    } catch (err) {
      throw new Error(`patching ownerReferences on ref Secrets: ${errorMessage(err)}`, { cause: err });
    }
    secretsOwned.add(uid);
    const objects = inline.spec.phases.flatMap((p) => p.objects.map((o) => o.object as KubeObject));
    return releaseOf(answer, [...sets, answer], objects);
  };

  /**
   * Objects of the extension that changed since the last look: its revision's controller is asked
   * to reconcile (it puts back what drifted). Nothing is reported as repaired: the drift watches'
   * baseline is the Helm applier's last apply, so the revision controller's own writes (owner
   * references of a takeover, say) look like drift too.
   */
  const repair = (name: string, set: ObjectSetManifest): readonly string[] => {
    if ((ports.drift?.takeDrifted(name) ?? []).length > 0) ports.reconcileRevision?.(set.metadata.name);
    return [];
  };

  /** Removes the kept mark from the CRDs `set` took back once it controls them (looked at until none is left, once per process). */
  const unmarkKept = async (set: ObjectSetManifest, release: Release, installer: () => KubeClient, signal: AbortSignal): Promise<void> => {
    const uid = set.metadata.uid;
    if (uid === undefined || unmarked.has(uid) || !takesBackCrds(set)) return;
    const names = keptCrdNames(set, release.manifest.objects());
    if (await unmarkTakenBack(installer(), names, uid, release.bundle.package, signal)) unmarked.add(uid);
  };

  /** `desired` as revision `set` would hold it: packed under its name, so unchanged content gives its very refs. */
  const comparedWith = (owner: RevisionOwner, desired: DesiredRevision, set: ObjectSetManifest): ObjectSetManifest => {
    // The CRDs `set` takes back, as it does: the kept mark goes once it has them, and the content is the same.
    const plain = desiredRevision(owner, desired, set.spec.revision);
    const kept = takesBackCrds(set) ? keptCrdNames(set, inlineObjects(plain)) : undefined;
    const candidate = asRevision(kept === undefined ? plain : desiredRevision(owner, desired, set.spec.revision, kept), set);
    let packed;
    try {
      packed = packObjects({ revisionName: set.metadata.name, ownerName: owner.name, systemNamespace }, candidate.spec.phases);
    } catch (err) {
      throw new Error(`packing for SSA comparison: ${errorMessage(err)}`, { cause: err });
    }
    return { ...candidate, spec: { ...candidate.spec, phases: withRefs(candidate.spec.phases, packed.refs) } };
  };

  const apply = async (request: ExtensionRequest, desired: DesiredRevision | undefined): Promise<Applied> => {
    const { extension, signal } = request;
    const installerClient = (): KubeClient => scoped.forServiceAccount(request.installer.namespace, request.installer.name);
    const generation = extension.generation ?? 0;
    // Listed first, as upstream: an API failure fails the apply before anything else.
    const sets = await lists.list(extension.name, signal);
    const current = sets.at(-1);
    // No new revision: the ClusterObjectSet controller keeps `set`'s objects applied.
    const keep = async (set: ObjectSetManifest): Promise<Applied> => {
      const repaired = repair(extension.name, set);
      const release = await kept(set, sets, request.history, signal);
      await unmarkKept(set, release, installerClient, signal);
      return { release, changed: false, repaired, rollout: rolloutOf(sets, generation) };
    };
    if (desired === undefined) {
      if (current === undefined) throw new Error('catalog content unavailable and no revision installed');
      return keep(revisionStates(sets).installed ?? current);
    }
    const owner: RevisionOwner = { name: extension.name, uid: extension.uid, progressDeadlineMinutes: extension.progressDeadlineMinutes };
    if (current !== undefined) {
      const compared = comparedWith(owner, desired, current);
      if (sameRevision(current, compared) && (await keepCurrent(current, compared, signal))) {
        if (!mutableUpToDate(current, compared))
          lists.changed(extension.name, signal, { name: current.metadata.name, uid: current.metadata.uid, on: current.metadata.resourceVersion });
        return keep(current);
      }
      // The same bundle in another revision still active (the installed one's record stood in for
      // a pull while a newer revision of that bundle rolls out, say, or a takeover of upstream's
      // revisions whose objects it rendered a little otherwise): no new revision, the newest goes on.
      const sameBundle = (set: ObjectSetManifest): boolean =>
        set.metadata.annotations?.[RevisionAnnotation.bundleName] === desired.bundle.name &&
        set.metadata.annotations?.[RevisionAnnotation.bundleVersion] === desired.bundle.version;
      const heldElsewhere = sets.some(
        (set) => set !== current && set.spec.lifecycleState !== LifecycleState.Archived && sameRevision(set, comparedWith(owner, desired, set)),
      );
      if (sameBundle(current) && heldElsewhere) return keep(current);
    }
    let release: Release;
    try {
      release = await createRevision(owner, desired, sets, installerClient(), signal);
    } finally {
      // Whatever of it was written, the revisions changed: the reads after it list them again.
      lists.changed(extension.name, signal);
    }
    return { release, changed: true, repaired: [], rollout: rolloutOf(await lists.list(extension.name, signal), generation) };
  };

  return {
    authorize,
    apply,
    rollback: (request, desired) => apply(request, desired),
    migrate: async (owner, signal) => {
      if (ports.helmReleases === undefined) return 'none';
      let outcome;
      try {
        outcome = await migrateFromReleases(
          {
            client,
            releases: ports.helmReleases,
            list: (name, s) => lists.list(name, s),
            wrote: (write) => lists.changed(owner.name, signal, write),
          },
          owner,
          signal,
        );
      } catch (err) {
        // It may have written revision 1: the reads after it list again.
        lists.changed(owner.name, signal);
        throw err;
      }
      if (outcome !== 'none') lists.changed(owner.name, signal);
      return outcome;
    },
    uninstall: uninstallWith(
      deleteRevisions(client, {
        systemNamespace,
        settled: ports.settled,
        // The reads after it list until the informer's copy shows the revisions deleted (an extension made again under that name).
        deleted: (name, sets) =>
          lists.changed(
            name,
            undefined,
            ...sets.map((s) => ({ name: s.metadata.name, uid: s.metadata.uid, on: s.metadata.resourceVersion, gone: true })),
          ),
      }),
      true,
    ),
    conflicts: () => undefined,
    deployed: async (name, signal) => deployedSummary(await lists.list(name, signal)),
  };
}
