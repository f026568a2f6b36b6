/**
 * Reading a ClusterExtension's ClusterObjectSets (BoxcutterRuntime): its revisions, found by
 * the owner-name label as upstream finds them, and the same revisions as the records the
 * ClusterExtension steps read (history, the deployed revision), their objects read back from the
 * revision's Secrets (once per revision: RevisionObjects).
 */
import { CLUSTER_OBJECT_SET, OWNER_NAME_LABEL, parseClusterObjectSet } from '../../../shared/api/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../../shared/kube/index.ts';
import type { Release } from '../../release/index.ts';
import type { RevisionRecords } from '../port.ts';
import { sortRevisions, type ObjectSetManifest } from './revision.ts';
import { resolveRefs } from './secrets.ts';
import { deployedSummary, releaseOf } from './status.ts';
import { errorMessage } from '../../../shared/errors/index.ts';

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

/** The objects of revision `set`, in phase order, inline or read from its Secrets (a ref without a namespace: `systemNamespace`'s). */
export async function revisionObjects(client: KubeClient, set: ObjectSetManifest, signal?: AbortSignal, systemNamespace = ''): Promise<KubeObject[]> {
  return (await resolveRefs(client, set.spec.phases, signal, systemNamespace)).flat();
}

/** How many bytes of revisions' objects (as JSON) createObjectSetReleases keeps by default. */
const REVISION_OBJECTS_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * The objects of revisions already read, by revision uid, least recently used first out past
 * `maxBytes` (their JSON length). A revision's objects never change: its phases are immutable
 * (the CRD's rule) and the Secrets it references immutable, their content checked by the
 * ClusterObjectSet controller (a changed one blocks the revision). So a reconcile reads the
 * Secrets of a revision it has not seen, not of every revision each time.
 */
class RevisionObjects {
  readonly #entries = new Map<string, { objects: KubeObject[]; bytes: number }>();
  #bytes = 0;
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  async of(client: KubeClient, set: ObjectSetManifest, signal?: AbortSignal, systemNamespace = ''): Promise<KubeObject[]> {
    const uid = set.metadata.uid;
    const hit = uid === undefined ? undefined : this.#entries.get(uid);
    if (uid === undefined || hit === undefined) {
      const objects = await revisionObjects(client, set, signal, systemNamespace);
      if (uid !== undefined) this.#keep(uid, objects);
      return objects;
    }
    this.#entries.delete(uid);
    this.#entries.set(uid, hit);
    return hit.objects;
  }

  #keep(uid: string, objects: KubeObject[]): void {
    const bytes = Buffer.byteLength(JSON.stringify(objects));
    if (bytes > this.maxBytes) return;
    this.#entries.set(uid, { objects, bytes });
    this.#bytes += bytes;
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(key);
      this.#bytes -= entry.bytes;
    }
  }
}

/** Options of createObjectSetReleases. */
interface ObjectSetReleasesOptions {
  /** Bytes of revisions' objects kept (default REVISION_OBJECTS_CACHE_BYTES). */
  cacheBytes?: number;
  /** operator-controller's namespace: where a Secret ref without a namespace points. */
  systemNamespace?: string;
}

/**
 * The revisions of extensions as the records the ClusterExtension steps and the one reader read
 * (history, deployed, list). Read-only: the Boxcutter applier makes revisions and its uninstall
 * deletes them (uninstall.ts).
 */
export function createObjectSetReleases(client: KubeClient, options: ObjectSetReleasesOptions = {}): RevisionRecords {
  const objects = new RevisionObjects(options.cacheBytes ?? REVISION_OBJECTS_CACHE_BYTES);
  const systemNamespace = options.systemNamespace ?? '';
  return {
    async history(extension, options = {}) {
      const sets = await listRevisions(client, extension, options.signal);
      const out: Release[] = [];
      for (const set of [...sets].reverse()) {
        let found: KubeObject[];
        try {
          found = await objects.of(client, set, options.signal, systemNamespace);
        } catch (err) {
          // A revision on its way out whose Secrets went first (an orphaning delete, the way back
          // to release records) is no longer history; any other missing Secret is an error.
          if (set.metadata.deletionTimestamp !== undefined && err instanceof Error && isNotFound(err.cause)) continue;
          throw err;
        }
        out.push(releaseOf(set, sets, found));
      }
      return out;
    },
    async deployed(extension, signal) {
      return deployedSummary(await listRevisions(client, extension, signal));
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
