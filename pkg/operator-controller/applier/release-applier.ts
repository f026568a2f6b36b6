/**
 * The Applier port (port.ts) over Helm-compatible release records: objects applied as the
 * installer with single ownership (release-apply.ts), each revision recorded as a release, the
 * drift watches told what a release holds and asked what is in sync. Pre-authorization checks
 * the installer's rules for the objects a move writes and deletes (preauthorize.ts).
 */
import { deployedRelease, type Release, type ReleaseStore } from '../release/index.ts';
import type { KubeObject, ScopedClientFactory } from '../../shared/kube/index.ts';
import { describeObject } from './objects.ts';
import { OwnershipConflictError } from './ownership.ts';
import type { Applied, ApplyConflict, Applier } from './port.ts';
import { authorizeMove } from './authorize.ts';
import { applyRelease, objectsToDelete, type DesiredRelease } from './release-apply.ts';

/** What the release applier needs of the drift watches (pkg/operator-controller/drift's tracker has it). */
export interface DriftMemory {
  /** Resolves once extension `name`'s watches have listed (or tried long enough). */
  listed(name: string, signal?: AbortSignal): Promise<void>;
  ownedUid(name: string, obj: KubeObject): string | undefined;
  inSync(name: string, obj: KubeObject): boolean;
  noteApplied(name: string, answer: KubeObject): void;
  expectDeletes(name: string, objects: readonly KubeObject[]): void;
  /** The objects (`Kind ns/name`) whose drift queued a reconcile since the last call. */
  takeDrifted(name: string): string[];
  track(
    release: {
      extension: string;
      installNamespace: string;
      serviceAccount: string;
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
}

/** The deployed release of `history` as a release to apply again, unchanged. */
function recorded(extension: { name: string; uid: string; installNamespace: string }, record: Release): DesiredRelease {
  return {
    extension: extension.name,
    extensionUID: extension.uid,
    installNamespace: extension.installNamespace,
    bundle: record.bundle,
    manifest: record.manifest,
    properties: record.properties,
    ...(record.config === undefined ? {} : { config: record.config }),
  };
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
      release = recorded(extension, deployed);
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
    const result: Applied = { release: applied.release, changed: applied.changed, repaired };
    return result;
  };

  return { authorize, apply, conflicts: conflictsOf, deployed: (name, signal) => releases.deployed(name, signal) };
}

function conflictsOf(err: unknown): ApplyConflict[] | undefined {
  if (!(err instanceof OwnershipConflictError)) return undefined;
  return err.conflicts.map((c) => ({
    object: describeObject(c.object),
    owner: c.ownership.kind === 'other-extension' ? c.ownership.extension : undefined,
  }));
}
