/**
 * Objects of a ClusterObjectSet revision kept in Secrets instead of inline, as upstream's
 * applier stores them (internal/operator-controller/applier/secretpacker.go): every object of
 * a new revision is serialized as Go's encoding/json writes it (keys sorted, `<>&` escaped),
 * gzip-compressed when larger than 900 KiB, and stored under a key that is the unpadded
 * base64url SHA-256 of its bytes; objects are packed in order into Secrets of at most 900 KiB
 * of data (identical objects share one key of the Secret being filled), each named
 * `<revision>-<16 hex>` after a SHA-256 over its sorted keys and values, immutable, of type
 * `olm.operatorframework.io/object-data`, in the system namespace, labelled with the revision
 * and the extension. The revision refers to them by name, namespace and key, and becomes their
 * controller owner once it exists.
 *
 * Packing is pure; the edge below creates the Secrets, gives them their owner and reads refs
 * back. Gzip output is Node's, not Go's: an object over 900 KiB gets another key than
 * upstream's would (its content is the same), so an upstream revision holding one is not
 * recognised as unchanged and is followed by a new revision.
 */
import { createHash } from 'node:crypto';
import { gzipSync, constants as zlib } from 'node:zlib';
import type { ObjectSetObject, ObjectSourceRef } from '../../../shared/api/index.ts';
import { isAlreadyExists, type KubeClient, type KubeObject, type OwnerReference } from '../../../shared/kube/index.ts';
import { CLUSTER_OBJECT_SET, OWNER_NAME_LABEL } from '../../../shared/api/index.ts';
import { goJsonMarshal } from '../../bundle/index.ts';
import { errorMessage } from '../../../shared/errors/index.ts';
import { readRefObject, readingOnce } from '../../objectset/index.ts';

/** Most bytes of data one Secret is filled with before another is started (upstream's 900 KiB). */
export const MAX_SECRET_DATA_SIZE = 900 * 1024;
/** Objects serialized larger than this are stored gzip-compressed (upstream's 900 KiB). */
export const GZIP_THRESHOLD = 900 * 1024;
/** Type of the Secrets holding a revision's objects. */
export const OBJECT_DATA_SECRET_TYPE = 'olm.operatorframework.io/object-data';
/** Label on those Secrets: the ClusterObjectSet they hold objects of. */
export const REVISION_NAME_LABEL = 'olm.operatorframework.io/revision-name';

/** Who the Secrets are for. */
interface PackTarget {
  /** The ClusterObjectSet's name (the Secrets' name prefix and label). */
  revisionName: string;
  /** The ClusterExtension's name (owner-name label). */
  ownerName: string;
  /** Where the Secrets live (operator-controller's namespace). */
  systemNamespace: string;
}

/** The Secrets to create before the revision, and each object's ref (`refs[phase][object]`; undefined for an entry that was a ref already). */
interface PackResult {
  secrets: KubeObject[];
  refs: (ObjectSourceRef | undefined)[][];
}

/** Go's `json.Marshal` of an unstructured object (map keys sorted, HTML characters escaped). */
export function objectBytes(obj: Record<string, unknown>): Buffer {
  return Buffer.from(goJsonMarshal(obj, true), 'utf8');
}

/** A data key: the unpadded base64url SHA-256 of `data` (43 characters). */
export function contentKey(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('base64url');
}

/** `<revision>-<first 8 bytes, hex, of SHA-256 over the sorted keys and their values>`. */
function secretName(revisionName: string, data: ReadonlyMap<string, Uint8Array>): string {
  const h = createHash('sha256');
  for (const key of [...data.keys()].sort(byteOrder)) {
    h.update(key, 'utf8');
    h.update(data.get(key) as Uint8Array);
  }
  return `${revisionName}-${h.digest('hex').slice(0, 16)}`;
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * Packs the inline objects of `phases` into Secrets (see the module comment). Throws, as
 * upstream, for an object that is over MAX_SECRET_DATA_SIZE even compressed:
 * `object in phase P index I exceeds maximum Secret data size (N bytes > 921600 bytes) even after compression`.
 */
export function packObjects(target: PackTarget, phases: readonly { objects: readonly ObjectSetObject[] }[]): PackResult {
  const secrets: KubeObject[] = [];
  const refs: (ObjectSourceRef | undefined)[][] = phases.map((p) => p.objects.map(() => undefined));
  let data = new Map<string, Uint8Array>();
  let size = 0;
  let pending: { phase: number; index: number; key: string }[] = [];
  const finish = (): void => {
    if (data.size === 0) return;
    const secret = refSecret(target, data);
    const name = secret.metadata.name ?? '';
    for (const p of pending) (refs[p.phase] as (ObjectSourceRef | undefined)[])[p.index] = { name, namespace: target.systemNamespace, key: p.key };
    secrets.push(secret);
    data = new Map();
    size = 0;
    pending = [];
  };
  phases.forEach((phase, p) => {
    phase.objects.forEach((entry, i) => {
      if (entry.object === undefined) return;
      let bytes: Uint8Array = objectBytes(entry.object);
      if (bytes.length > GZIP_THRESHOLD) bytes = gzipSync(bytes, { level: zlib.Z_BEST_COMPRESSION });
      if (bytes.length > MAX_SECRET_DATA_SIZE) {
        throw new Error(
          `object in phase ${p} index ${i} exceeds maximum Secret data size (${bytes.length} bytes > ${MAX_SECRET_DATA_SIZE} bytes) even after compression`,
        );
      }
      const key = contentKey(bytes);
      // The same object twice shares the entry and counts once.
      if (!data.has(key)) {
        if (size + bytes.length > MAX_SECRET_DATA_SIZE && data.size > 0) finish();
        data.set(key, bytes);
        size += bytes.length;
      }
      pending.push({ phase: p, index: i, key });
    });
  });
  finish();
  return { secrets, refs };
}

/** The immutable Secret holding `data` (values base64, as the API carries `[]byte`). */
function refSecret(target: PackTarget, data: ReadonlyMap<string, Uint8Array>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: secretName(target.revisionName, data),
      namespace: target.systemNamespace,
      labels: { [REVISION_NAME_LABEL]: target.revisionName, [OWNER_NAME_LABEL]: target.ownerName },
    },
    immutable: true,
    type: OBJECT_DATA_SECRET_TYPE,
    data: Object.fromEntries([...data].map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
}

/** `phases` with each packed object replaced by its ref (entries without a ref kept as they are). */
export function withRefs<P extends { objects: readonly ObjectSetObject[] }>(phases: readonly P[], refs: PackResult['refs']): P[] {
  return phases.map((phase, p) => ({
    ...phase,
    objects: phase.objects.map((entry, i) => {
      const ref = refs[p]?.[i];
      if (ref === undefined) return entry;
      const { object: _inline, ...rest } = entry;
      return { ...rest, ref };
    }),
  }));
}

// ---- the edge ---------------------------------------------------------------------------

const opts = (signal: AbortSignal | undefined): { signal?: AbortSignal } => (signal === undefined ? {} : { signal });

/** Creates the Secrets; one that exists already (a retry: names are content hashes) is fine. */
export async function createRefSecrets(client: KubeClient, secrets: readonly KubeObject[], signal?: AbortSignal): Promise<void> {
  for (const secret of secrets) {
    try {
      await client.create(secret, opts(signal));
    } catch (err) {
      if (isAlreadyExists(err)) continue;
      throw new Error(`creating ref Secret ${JSON.stringify(secret.metadata.name)}: ${errorMessage(err)}`, { cause: err });
    }
  }
}

/** The controller owner reference of a revision's Secrets. */
function revisionOwner(set: { name: string; uid: string }): OwnerReference {
  return {
    apiVersion: CLUSTER_OBJECT_SET.apiVersion,
    kind: CLUSTER_OBJECT_SET.kind,
    name: set.name,
    uid: set.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Makes revision `set` the owner of those of `secrets` that do not name it yet (merge patches). */
export async function ownRefSecrets(
  client: KubeClient,
  set: { name: string; uid: string },
  secrets: readonly KubeObject[],
  signal?: AbortSignal,
): Promise<void> {
  for (const s of secrets) {
    const owners = s.metadata.ownerReferences ?? [];
    if (owners.some((o) => o.uid === set.uid)) continue;
    const ns = s.metadata.namespace ?? '';
    const name = s.metadata.name ?? '';
    try {
      await client.patch(
        { apiVersion: 'v1', kind: 'Secret', namespace: ns, name },
        { metadata: { ownerReferences: [...owners, revisionOwner(set)] } },
        'merge',
        opts(signal),
      );
    } catch (err) {
      throw new Error(`patching ownerReference on Secret ${ns}/${name}: ${errorMessage(err)}`, { cause: err });
    }
  }
}

/**
 * Gives the Secrets labelled with revision `set`'s name their owner when a crash came between
 * creating the revision and patching them (upstream does this on every unchanged apply).
 */
export async function ensureRefSecretOwners(
  client: KubeClient,
  namespace: string,
  set: { name: string; uid: string },
  signal?: AbortSignal,
): Promise<void> {
  let items: KubeObject[];
  try {
    ({ items } = await client.list(
      { apiVersion: 'v1', kind: 'Secret' },
      { namespace, labelSelector: `${REVISION_NAME_LABEL}=${set.name}`, ...opts(signal) },
    ));
  } catch (err) {
    throw new Error(`listing ref Secrets for revision ${JSON.stringify(set.name)}: ${errorMessage(err)}`, { cause: err });
  }
  await ownRefSecrets(client, set, items, signal);
}

/**
 * The objects of `phases`, inline or read from their Secrets (each Secret read once), per
 * phase; a ref without a namespace names one in `systemNamespace` (the CRD's "empty means OLM's
 * own namespace"). Throws naming the ref when a Secret or key is missing or its value is no
 * object, never quoting the value.
 */
export async function resolveRefs(
  client: KubeClient,
  phases: readonly { objects: readonly ObjectSetObject[] }[],
  signal?: AbortSignal,
  systemNamespace = '',
): Promise<KubeObject[][]> {
  const once = readingOnce(client, signal);
  const namespaceOf = (ref: ObjectSourceRef): string => (ref.namespace === undefined || ref.namespace === '' ? systemNamespace : ref.namespace);
  const out: KubeObject[][] = [];
  for (const phase of phases) {
    const objects: KubeObject[] = [];
    for (const entry of phase.objects) {
      if (entry.object !== undefined) {
        objects.push(entry.object as KubeObject);
        continue;
      }
      const ref = entry.ref;
      if (ref === undefined) throw new Error('object entry has neither object nor ref');
      try {
        objects.push(await readRefObject(once, ref, systemNamespace, signal));
      } catch (err) {
        throw new Error(`reading Secret ${namespaceOf(ref)}/${ref.name} key ${JSON.stringify(ref.key)}: ${errorMessage(err)}`, { cause: err });
      }
    }
    out.push(objects);
  }
  return out;
}
