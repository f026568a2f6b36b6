/**
 * The BoxcutterRuntime's records at an uninstall (the Applier port's `uninstall` deletes the
 * objects first, uninstall.ts): the extension's ClusterObjectSets deleted; their controller lets
 * them go, objects still owned going with them by garbage collection, the uninstall having
 * deleted the rest and released the CRDs before.
 *
 * Nothing is deleted while a CRD still names one of the revisions as owner (issue 69): once the
 * CRDs were released (`after`), it waits until no write of the revisions is in flight
 * (`settled`; none starts while the extension is being deleted), then looks at the CRDs again; a
 * reference a late write put back fails the uninstall, whose retry releases it again. Orphaning
 * (the orphan annotation, or an installer that is gone), the revisions' own Secrets are deleted
 * and the revisions go with propagationPolicy Orphan: the garbage collector removes their owner
 * references from every object, CRDs included, and deletes none of them.
 */
import { CLUSTER_OBJECT_SET } from '../../../shared/api/index.ts';
import { errorMessage } from '../../../shared/errors/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../../shared/kube/index.ts';
import type { ReleaseStore } from '../../release/index.ts';
import type { ObjectSetManifest } from './revision.ts';
import { listRevisions } from './store.ts';
import { ownerSelector } from '../objects.ts';

const TYPE = { apiVersion: CLUSTER_OBJECT_SET.apiVersion, kind: CLUSTER_OBJECT_SET.kind };

/** The type of CustomResourceDefinitions, as deleteAll lists them. */
const CRD_TYPE = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/**
 * The CRDs of `extension` (by its owner labels) that still name one of `sets` as owner: deleting
 * that revision would let the garbage collector delete them with every custom resource.
 */
async function crdsOwnedBy(client: KubeClient, extension: string, sets: readonly ObjectSetManifest[], signal?: AbortSignal): Promise<string[]> {
  const uids = new Set(sets.map((s) => s.metadata.uid ?? ''));
  let items: KubeObject[];
  try {
    ({ items } = await client.listAll(CRD_TYPE, {
      labelSelector: ownerSelector(extension),
      metadataOnly: true,
      ...(signal === undefined ? {} : { signal }),
    }));
  } catch (err) {
    throw new Error(`listing the CustomResourceDefinitions of ${JSON.stringify(extension)}: ${errorMessage(err)}`, { cause: err });
  }
  return items
    .filter((crd) => (crd.metadata.ownerReferences ?? []).some((r) => r.kind === TYPE.kind && uids.has(r.uid)))
    .map((crd) => crd.metadata.name ?? '');
}

/**
 * Deletes the Secrets revision `set` refers to that are provably its own (their controller owner
 * reference names its uid), each at the uid read: an orphaning delete of the revision would
 * leave them behind. Others' Secrets, and those already gone, are left alone.
 */
async function deleteOwnSecrets(client: KubeClient, set: ObjectSetManifest, systemNamespace: string, signal?: AbortSignal): Promise<void> {
  const uid = set.metadata.uid;
  if (uid === undefined) return;
  const refs = new Map<string, { namespace: string; name: string }>();
  for (const phase of set.spec.phases) {
    for (const o of phase.objects) {
      const namespace = o.ref?.namespace || systemNamespace;
      if (o.ref !== undefined && namespace !== '') refs.set(`${namespace}/${o.ref.name}`, { namespace, name: o.ref.name });
    }
  }
  for (const [at, ref] of refs) {
    const secret = { apiVersion: 'v1', kind: 'Secret', ...ref };
    try {
      const live = await client.get(secret, signal === undefined ? {} : { signal });
      if (!(live.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === uid)) continue;
      await client.delete(secret, { preconditions: { uid: live.metadata.uid ?? '' }, ...(signal === undefined ? {} : { signal }) });
    } catch (err) {
      if (!isNotFound(err)) throw new Error(`deleting Secret ${at} of revision ${set.metadata.name}: ${errorMessage(err)}`, { cause: err });
    }
  }
}

/** What deleting revisions needs besides operator-controller's own client. */
interface DeleteRevisionsOptions {
  /** Where a Secret ref without a namespace points (operator-controller's namespace). */
  systemNamespace: string;
  /** Resolves once no write of the extension's revisions is in flight (objectset's RevisionWrites). */
  settled?: ((extension: string) => Promise<void>) | undefined;
}

/** Deletes the revisions of an extension (see the module comment), as a release store's deleteAll. */
export function deleteRevisions(client: KubeClient, options: DeleteRevisionsOptions): ReleaseStore['deleteAll'] {
  const { systemNamespace } = options;
  return async (extension, signal, after, orphan = false) => {
    const sets = await listRevisions(client, extension, signal);
    if (after !== undefined) await after;
    if (sets.length === 0) return;
    await options.settled?.(extension);
    if (orphan) {
      // The garbage collector only releases the objects; the revisions' own Secrets go here.
      for (const set of sets) await deleteOwnSecrets(client, set, systemNamespace, signal);
    } else {
      const owned = await crdsOwnedBy(client, extension, sets, signal);
      if (owned.length > 0) {
        throw new Error(
          `CustomResourceDefinitions ${owned.join(', ')} still name a revision of ${JSON.stringify(extension)} as owner: ` +
            'its revisions are not deleted, which would let the garbage collector delete them with their custom resources; retrying',
        );
      }
    }
    for (const set of sets) {
      try {
        await client.delete(
          { ...TYPE, name: set.metadata.name },
          { ...(orphan ? { propagationPolicy: 'Orphan' as const } : {}), ...(signal === undefined ? {} : { signal }) },
        );
      } catch (err) {
        if (!isNotFound(err)) throw new Error(`deleting revision ${set.metadata.name}: ${errorMessage(err)}`, { cause: err });
      }
    }
  };
}
