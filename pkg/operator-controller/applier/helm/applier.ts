/**
 * The Applier port (port.ts) over Helm-compatible release records: objects applied as the
 * installer with single ownership (apply.ts), each revision recorded as a release, the
 * drift watches told what a release holds and asked what is in sync. Pre-authorization checks
 * the installer's rules for the objects a move writes and deletes (preauthorize.ts). A rollback
 * on failure is recorded as Helm's atomic upgrade records it; an uninstall ends with the records.
 */
import { deployedRelease, ReleaseStatus, type ReleaseStore } from '../../release/index.ts';
import { rollbackDescription } from '../../rollback/index.ts';
import type { KubeObject, ScopedClientFactory } from '../../../shared/kube/index.ts';
import { describeObject } from '../objects.ts';
import { OwnershipConflictError } from '../ownership.ts';
import type { ApplyConflict, Applier } from '../port.ts';
import { authorizeMove } from '../authorize.ts';
import { applyRelease } from './apply.ts';
import { desiredRelease, objectsToDelete } from '../revision.ts';
import { uninstallWith } from '../uninstall.ts';

/**
 * What the release applier needs of the drift watches (pkg/operator-controller/drift's
 * DriftTracker extends it): which objects of a deployed release to watch, and what the watches'
 * caches tell an apply (ownership, whether an object is as the last apply left it).
 */
export interface DriftMemory {
  /**
   * Resolves once every watch of the extension has listed, or has tried to for a few
   * seconds (a watch that cannot list is not waited for again); never rejects.
   * A reconcile after a restart waits here so that its apply finds the objects cached.
   */
  listed(extension: string, signal?: AbortSignal): Promise<void>;
  /**
   * The uid of `obj`'s live copy when a synced watch of the extension holds it, i.e. when that
   * copy carries the extension's owner labels (the watches select by them) and no owner
   * reference to a ClusterExtension; undefined when no synced watch has it.
   */
  ownedUid(extension: string, obj: KubeObject): string | undefined;
  /**
   * True when a synced watch of the extension holds `obj` and its cached content (without
   * status) is what this process's last apply of it left (`noteApplied`), or, for an object this
   * process has not applied (after a restart), when operator-controller's apply wrote its content
   * last: nobody changed it since, so re-applying the same object would write nothing. Until the
   * watch lists, true for an object this process applied in the last minute (drift/watches.ts).
   * False when unknown (no watch, not applied, referred to by an owner reference). Asked only
   * about objects the deployed revision applied as they are, with no revision recorded since.
   */
  inSync(extension: string, obj: KubeObject): boolean;
  /**
   * Operator-controller applied `answer` (the API server's answer to an apply: the object as
   * stored): remembered, in memory, as the content its last apply left, for `inSync`.
   */
  noteApplied(extension: string, answer: KubeObject): void;
  /**
   * The reconcile is about to delete `objects` (a new release dropped them): their delete
   * events are no drift. Each is expected once, for a few minutes at most.
   */
  expectDeletes(extension: string, objects: readonly KubeObject[]): void;
  /**
   * The objects (`Kind ns/name`) whose drift queued a reconcile of the extension since the last
   * call, and forgets them: after a successful apply of the unchanged release, what it put back.
   */
  takeDrifted(extension: string): string[];
  /** Makes the extension's watches cover exactly `release`'s objects (the deployed release's); never throws. */
  track(
    release: {
      extension: string;
      /** `spec.namespace`: the namespace of namespaced objects that name none, and of the ServiceAccount. */
      installNamespace: string;
      serviceAccount: string;
      /** The ServiceAccount's namespace when it is not `installNamespace` (the default installer's). */
      serviceAccountNamespace?: string;
      objects: readonly KubeObject[];
    },
    signal?: AbortSignal,
  ): Promise<void>;
}

interface ReleaseApplierPorts {
  /** Clients acting as the installer: every object is read and written with its identity. */
  scoped: Pick<ScopedClientFactory, 'forServiceAccount'>;
  /** The release records (written with operator-controller's own identity). */
  releases: ReleaseStore;
  drift: DriftMemory;
  /**
   * Where the ClusterObjectSet kind is served: takes an extension's revisions back to release
   * records (the BoxcutterRuntime's migrateToReleases, wired by the composition root so that
   * this runtime imports nothing of the other).
   */
  toReleases?: ((owner: Parameters<Applier['migrate']>[0], signal: AbortSignal) => Promise<unknown>) | undefined;
}

export function createReleaseApplier(ports: ReleaseApplierPorts): Applier {
  const { scoped, releases, drift } = ports;

  const authorize: Applier['authorize'] = (request, desired, fix) => authorizeMove(scoped, request, desired, fix);

  const apply: Applier['apply'] = async (request, desired) => {
    const { extension, installer: sa, history, signal } = request;
    const name = extension.name;
    let release = desired;
    if (release === undefined) {
      const deployed = deployedRelease(history);
      if (deployed === undefined) throw new Error(`no deployed release of ${name} to keep`);
      release = desiredRelease(extension, deployed.bundle, deployed);
    } else {
      // The objects the new release drops are deleted by the apply: no drift to repair.
      drift.expectDeletes(name, objectsToDelete(history, release));
    }
    // Right after a restart the watches' caches are what tell the apply that an object needs no write.
    await drift.listed(name, signal);
    let applied;
    try {
      applied = await applyRelease(
        {
          client: scoped.forServiceAccount(sa.namespace, sa.name),
          store: releases,
          signal,
          knownUid: (obj) => drift.ownedUid(name, obj),
          inSync: (obj) => drift.inSync(name, obj),
          onApplied: (answer) => drift.noteApplied(name, answer),
        },
        history,
        release,
      );
    } catch (err) {
      const conflicts = conflictsOf(err);
      if (conflicts !== undefined) request.log.warn({ conflicts }, 'release refused: objects not owned by this extension');
      throw err;
    }
    // Drift noticed before this apply is repaired by it (or superseded by a new revision).
    const repaired = drift.takeDrifted(name);
    if (applied.changed) {
      await drift.track(
        {
          extension: name,
          installNamespace: extension.installNamespace,
          serviceAccount: sa.name,
          serviceAccountNamespace: sa.namespace,
          objects: applied.release.manifest.identities(),
        },
        signal,
      );
    }
    return { release: applied.release, changed: applied.changed, repaired };
  };

  const rollback: Applier['rollback'] = async (request, desired, undo) => {
    const applied = await apply(request, desired);
    // Helm's records of an atomic upgrade: the rollback says so, the undone revision failed.
    try {
      await releases.update({ ...applied.release, description: rollbackDescription(undo.to) }, request.signal);
      await releases.update({ ...undo.from, status: ReleaseStatus.Failed, description: undo.why }, request.signal);
    } catch (err) {
      request.log.warn({ err }, 'rollback on failure: the release records could not be annotated');
    }
    return applied;
  };

  return {
    authorize,
    apply,
    rollback,
    // Back from ClusterObjectSets: only for an extension whose status lists revisions (no request otherwise).
    migrate: async (owner, signal) => {
      if (ports.toReleases === undefined || owner.activeRevisions === 0) return 'none';
      await ports.toReleases(owner, signal);
      return 'released';
    },
    uninstall: uninstallWith((name, signal, after, orphan) => releases.deleteAll(name, signal, after, orphan)),
    conflicts: conflictsOf,
    deployed: (name, signal) => releases.deployed(name, signal),
  };
}

function conflictsOf(err: unknown): ApplyConflict[] | undefined {
  if (!(err instanceof OwnershipConflictError)) return undefined;
  return err.conflicts.map((c) => ({
    object: describeObject(c.object),
    owner: c.ownership.kind === 'other-extension' ? c.ownership.extension : undefined,
  }));
}
