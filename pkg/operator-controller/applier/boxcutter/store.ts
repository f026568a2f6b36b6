/**
 * A ClusterExtension's ClusterObjectSets (BoxcutterRuntime) as its records: its revisions, found
 * by the owner-name label as upstream finds them, and the same revisions as the records the
 * ClusterExtension steps read (history, the deployed revision), their objects read back from the
 * revision's Secrets (once per revision: RevisionObjects).
 *
 * At an uninstall (the Applier port's `uninstall` deletes the objects first, ../uninstall.ts) the
 * extension's ClusterObjectSets are deleted (deleteRevisions); their controller lets them go,
 * objects still owned going with them by garbage collection, the uninstall having deleted the
 * rest and released the CRDs before. Nothing is deleted while a CRD still names one of the
 * revisions as owner (issue 69): once the CRDs were released (`after`), it waits until no write
 * of the revisions is in flight (`settled`; none starts while the extension is being deleted),
 * then looks at the CRDs again; a reference a late write put back fails the uninstall, whose
 * retry releases it again. The revisions are deleted all at once with propagationPolicy
 * Background: the garbage collector deletes the objects and Secrets they control (the uninstall
 * leaves to it the objects the drift watches knew a revision controls). Orphaning (the orphan
 * annotation, or an installer that is gone), the revisions' own Secrets are deleted (found by one
 * list, deleted at once, each conditionally on its uid) and the revisions go with
 * propagationPolicy Orphan: the garbage collector removes their owner references from every
 * object, CRDs included, and deletes none of them.
 */
import { CLUSTER_OBJECT_SET, OWNER_NAME_LABEL, parseClusterObjectSet } from '../../../shared/api/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../../shared/kube/index.ts';
import type { Release, ReleaseStore } from '../../release/index.ts';
import { ownerSelector } from '../objects.ts';
import type { RevisionRecords } from '../port.ts';
import { RevisionLists } from './lists.ts';
import { sortRevisions, type ObjectSetManifest } from './revision.ts';
import { resolveRefs } from './secrets.ts';
import { deployedSummary, releaseOf } from './status.ts';
import { errorMessage } from '../../../shared/errors/index.ts';
import type { BundleBudget, BundleLease } from '../../bundlepull/index.ts';

const TYPE = { apiVersion: CLUSTER_OBJECT_SET.apiVersion, kind: CLUSTER_OBJECT_SET.kind };

/**
 * `raw` as a revision: its spec and status checked for shape (the error names it), its
 * metadata as the API server sent it (owner references included).
 */
export function asObjectSet(raw: KubeObject): ObjectSetManifest {
  const parsed = parseClusterObjectSet(raw);
  if (!parsed.ok) throw new Error(parsed.error);
  const { spec, status } = parsed.value;
  return {
    ...raw,
    metadata: { ...raw.metadata, name: parsed.value.metadata.name },
    spec,
    ...(status === undefined ? {} : { status }),
  } as ObjectSetManifest;
}

/** The revisions of extension `name`, oldest first. Throws (`listing revisions: ...`) when the list fails. */
export async function listRevisions(client: KubeClient, name: string, signal?: AbortSignal): Promise<ObjectSetManifest[]> {
  let items: KubeObject[];
  try {
    ({ items } = await client.listAll(TYPE, { labelSelector: `${OWNER_NAME_LABEL}=${name}`, ...(signal === undefined ? {} : { signal }) }));
  } catch (err) {
    throw new Error(`listing revisions: ${errorMessage(err)}`, { cause: err });
  }
  return sortRevisions(items.map(asObjectSet));
}

/**
 * The revisions of an extension as the ClusterObjectSet informer holds them (`copiesOf`: its
 * copies labelled with the extension's name, as `listRevisions` selects them), oldest first.
 * Each copy is checked for shape once (a copy is replaced, not changed, by the informer).
 */
export function cachedRevisions(copiesOf: (name: string) => readonly Readonly<KubeObject>[]): (name: string) => ObjectSetManifest[] {
  const parsed = new WeakMap<object, ObjectSetManifest>();
  return (name) => {
    const sets: ObjectSetManifest[] = [];
    for (const raw of copiesOf(name)) {
      let set = parsed.get(raw);
      if (set === undefined) {
        set = asObjectSet(raw as KubeObject);
        parsed.set(raw, set);
      }
      sets.push(set);
    }
    return sortRevisions(sets);
  };
}

/** The objects of revision `set`, in phase order, inline or read from its Secrets (a ref without a namespace: `systemNamespace`'s). */
export async function revisionObjects(client: KubeClient, set: ObjectSetManifest, signal?: AbortSignal, systemNamespace = ''): Promise<KubeObject[]> {
  return (await resolveRefs(client, set.spec.phases, signal, systemNamespace)).flat();
}

/** How many bytes of revisions' objects (as JSON) createObjectSetReleases keeps by default. */
const REVISION_OBJECTS_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * The memory port's budget as a cache uses it (bundlepull's BundleBudget): leases taken only when
 * they fit now, given back when a reconcile's request would wait.
 */
export type CacheBudget = Pick<BundleBudget, 'tryAcquire' | 'onShortage'>;

interface Entry {
  objects: KubeObject[];
  bytes: number;
  lease?: BundleLease;
}

/**
 * The objects of revisions already read, by revision uid, least recently used first out past
 * `maxBytes` (their JSON length), and each held under a lease of the memory port's budget when
 * one is given (the Helm runtime's release records' budget, decision 0098): an entry is kept only
 * when its lease fits, and entries go, oldest first, when a reconcile needs the bytes. A
 * revision's objects never change: its phases are immutable (the CRD's rule) and the Secrets it
 * references immutable, their content checked by the ClusterObjectSet controller (a changed one
 * blocks the revision). So a reconcile reads the Secrets of a revision it has not seen, not of
 * every revision each time.
 */
class RevisionObjects {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  readonly #maxBytes: number;
  readonly #budget: CacheBudget | undefined;
  constructor(maxBytes: number, budget?: CacheBudget) {
    this.#maxBytes = maxBytes;
    this.#budget = budget;
    budget?.onShortage((bytes) => this.#evict(this.#bytes - bytes));
  }

  async of(client: KubeClient, set: ObjectSetManifest, signal?: AbortSignal, systemNamespace = ''): Promise<KubeObject[]> {
    const uid = set.metadata.uid;
    const hit = uid === undefined ? undefined : this.#entries.get(uid);
    if (uid === undefined || hit === undefined) {
      const objects = await revisionObjects(client, set, signal, systemNamespace);
      if (uid !== undefined && !this.#entries.has(uid)) this.#keep(uid, objects);
      return objects;
    }
    this.#entries.delete(uid);
    this.#entries.set(uid, hit);
    return hit.objects;
  }

  #keep(uid: string, objects: KubeObject[]): void {
    const bytes = Buffer.byteLength(JSON.stringify(objects));
    if (bytes > this.#maxBytes) return;
    this.#evict(this.#maxBytes - bytes);
    const lease = this.#budget?.tryAcquire(bytes);
    if (this.#budget !== undefined && lease === undefined) return;
    this.#entries.set(uid, { objects, bytes, ...(lease === undefined ? {} : { lease }) });
    this.#bytes += bytes;
  }

  /** Drops entries, least recently used first, until at most `keep` bytes are held. */
  #evict(keep: number): void {
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= keep) return;
      this.#entries.delete(key);
      this.#bytes -= entry.bytes;
      entry.lease?.release();
    }
  }
}

/** Options of createObjectSetReleases. */
interface ObjectSetReleasesOptions {
  /** Bytes of revisions' objects kept (default REVISION_OBJECTS_CACHE_BYTES). */
  cacheBytes?: number;
  /** operator-controller's namespace: where a Secret ref without a namespace points. */
  systemNamespace?: string;
  /** The memory port's budget the kept objects are counted in (see RevisionObjects); none: bounded by `cacheBytes` alone. */
  budget?: CacheBudget;
  /** The lists of revisions a reconcile's reads share (lists.ts), with the applier's; none: shared among these reads only. */
  lists?: RevisionLists;
}

/**
 * The revisions of extensions as the records the ClusterExtension steps and the one reader read
 * (history, deployed, list). Read-only: the Boxcutter applier makes revisions and its uninstall
 * deletes them (deleteRevisions).
 */
export function createObjectSetReleases(client: KubeClient, options: ObjectSetReleasesOptions = {}): RevisionRecords {
  const objects = new RevisionObjects(options.cacheBytes ?? REVISION_OBJECTS_CACHE_BYTES, options.budget);
  const systemNamespace = options.systemNamespace ?? '';
  const lists = options.lists ?? new RevisionLists((name, signal) => listRevisions(client, name, signal));
  return {
    async history(extension, options = {}) {
      const sets = await lists.list(extension, options.signal);
      const out: Release[] = [];
      for (const set of [...sets].reverse()) {
        let found: KubeObject[];
        try {
          found = await objects.of(client, set, options.signal, systemNamespace);
        } catch (err) {
          // A revision on its way out whose Secrets went first (an orphaning delete, the way back
          // to release records) is no longer history; any other missing Secret is an error.
          if (set.metadata.deletionTimestamp !== undefined && err instanceof Error && isNotFound((err.cause as Error | undefined)?.cause)) continue;
          throw err;
        }
        out.push(releaseOf(set, sets, found));
      }
      return out;
    },
    async deployed(extension, signal) {
      return deployedSummary(await lists.list(extension, signal));
    },
    async list(signal) {
      const { items } = await client.listAll(TYPE, {
        labelSelector: OWNER_NAME_LABEL,
        metadataOnly: true,
        ...(signal === undefined ? {} : { signal }),
      });
      return [...new Set(items.map((i) => i.metadata.labels?.[OWNER_NAME_LABEL] ?? '').filter((n) => n !== ''))];
    },
  };
}

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
 * Deletes the Secrets the revisions `sets` refer to that are provably their own (their controller
 * owner reference names the referring revision's uid), each conditionally on the uid listed and
 * all at once: an orphaning delete of the revisions would leave them behind. The Secrets are found
 * by one list per namespace (metadata only, by the extension's owner-name label, which
 * packObjects sets), not read one by one. Others' Secrets, and those already gone, are left alone.
 */
async function deleteOwnSecrets(
  client: KubeClient,
  extension: string,
  sets: readonly ObjectSetManifest[],
  systemNamespace: string,
  signal?: AbortSignal,
): Promise<void> {
  // namespace -> Secret name -> the uid of the revision that refers to it, and that revision's name.
  const wanted = new Map<string, Map<string, { uid: string; revision: string }>>();
  for (const set of sets) {
    const uid = set.metadata.uid;
    if (uid === undefined) continue;
    for (const phase of set.spec.phases) {
      for (const o of phase.objects) {
        const namespace = o.ref?.namespace || systemNamespace;
        if (o.ref === undefined || namespace === '') continue;
        const names = wanted.get(namespace) ?? new Map<string, { uid: string; revision: string }>();
        names.set(o.ref.name, { uid, revision: set.metadata.name });
        wanted.set(namespace, names);
      }
    }
  }
  const opts = signal === undefined ? {} : { signal };
  await Promise.all(
    [...wanted].map(async ([namespace, names]) => {
      let items: KubeObject[];
      try {
        ({ items } = await client.listAll(
          { apiVersion: 'v1', kind: 'Secret' },
          { namespace, labelSelector: `${OWNER_NAME_LABEL}=${extension}`, metadataOnly: true, ...opts },
        ));
      } catch (err) {
        throw new Error(`listing the Secrets of ${JSON.stringify(extension)}'s revisions in ${namespace}: ${errorMessage(err)}`, { cause: err });
      }
      await Promise.all(
        items.map(async (live) => {
          const name = live.metadata.name ?? '';
          const owner = names.get(name);
          if (owner === undefined || !(live.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === owner.uid)) return;
          try {
            await client.delete({ apiVersion: 'v1', kind: 'Secret', namespace, name }, { preconditions: { uid: live.metadata.uid ?? '' }, ...opts });
          } catch (err) {
            if (!isNotFound(err))
              throw new Error(`deleting Secret ${namespace}/${name} of revision ${owner.revision}: ${errorMessage(err)}`, { cause: err });
          }
        }),
      );
    }),
  );
}

/** What deleting revisions needs besides operator-controller's own client. */
interface DeleteRevisionsOptions {
  /** Where a Secret ref without a namespace points (operator-controller's namespace). */
  systemNamespace: string;
  /** Resolves once no write of the extension's revisions is in flight (objectset's RevisionWrites). */
  settled?: ((extension: string) => Promise<void>) | undefined;
  /** Told of the revisions whose delete was sent (the reads of the extension's revisions wait for the informer's copy to show it, lists.ts). */
  deleted?: ((extension: string, sets: readonly ObjectSetManifest[]) => void) | undefined;
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
      await deleteOwnSecrets(client, extension, sets, systemNamespace, signal);
    } else {
      const owned = await crdsOwnedBy(client, extension, sets, signal);
      if (owned.length > 0) {
        throw new Error(
          `CustomResourceDefinitions ${owned.join(', ')} still name a revision of ${JSON.stringify(extension)} as owner: ` +
            'its revisions are not deleted, which would let the garbage collector delete them with their custom resources; retrying',
        );
      }
    }
    // All at once: no revision's delete waits for another's. Background: the garbage collector
    // deletes what each one controls (its objects and Secrets) once it is gone.
    const propagationPolicy = orphan ? ('Orphan' as const) : ('Background' as const);
    const deletes = await Promise.allSettled(
      sets.map(async (set) => {
        try {
          await client.delete({ ...TYPE, name: set.metadata.name }, { propagationPolicy, ...(signal === undefined ? {} : { signal }) });
        } catch (err) {
          if (!isNotFound(err)) throw new Error(`deleting revision ${set.metadata.name}: ${errorMessage(err)}`, { cause: err });
        }
      }),
    );
    options.deleted?.(extension, sets);
    const failed = deletes.find((d) => d.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  };
}
