/**
 * The record Secrets themselves: building index and chunk Secrets from a release's pieces,
 * and reading an index Secret back (zod at the edge), with failures naming the Secret.
 */
import { z } from 'zod';
import type { KubeObject, OwnerReference } from '../../shared/kube/index.ts';
import { MAX_CHUNKS } from './codec.ts';
import { CHUNK_SECRET_TYPE, INDEX_SECRET_TYPE, Label, RECORD_OWNER, bundleMetadata, chunkSecretName, keyLabelValue } from './naming.ts';
import type { Release, ReleaseStatus } from './types.ts';

/** apiVersion/kind of the records. */
export const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;

/** `Secret "<namespace>/<name>"`, for messages. */
export function describeSecret(namespace: string, name: string): string {
  return `Secret ${JSON.stringify(`${namespace}/${name}`)}`;
}

/** Unix seconds of `date`, as the createdAt/modifiedAt labels hold them. */
export function unixSeconds(date: Date): string {
  return String(Math.floor(date.getTime() / 1000));
}

/**
 * The controller reference from an index Secret to its ClusterExtension; undefined when the
 * release carries no UID. `blockOwnerDeletion` is false, so writing it needs no permission on
 * the ClusterExtension's finalizers.
 */
export function extensionOwnerRef(release: Pick<Release, 'extension' | 'extensionUID'>): OwnerReference | undefined {
  if (release.extensionUID === '') return undefined;
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    name: release.extension,
    uid: release.extensionUID,
    controller: true,
    blockOwnerDeletion: false,
  };
}

/** The controller reference from a chunk Secret to its index Secret. */
export function indexOwnerRef(key: string, uid: string): OwnerReference {
  return { apiVersion: 'v1', kind: 'Secret', name: key, uid, controller: true, blockOwnerDeletion: false };
}

/** What an index Secret is built from. */
interface IndexSecretParts {
  key: string;
  namespace: string;
  release: Release;
  firstPiece: Uint8Array;
  extraChunks: readonly string[];
  createdAt: string;
  modifiedAt?: string | undefined;
  /**
   * The whole payload as Helm's Secret driver stores it (`data.release`: base64 text of the
   * gzip'd JSON, so base64'd twice in the API), when the store decided it fits: stock `helm`
   * reads a revision by its Secret name from that key (docs/decisions/0074).
   */
  helmRelease?: string | undefined;
}

/**
 * The index Secret of a revision, in upstream's shape: system labels, data `chunk` (piece 1)
 * and `extraChunks` (the names of the others). Besides upstream's, it carries the bundle
 * identity (labels where valid, else annotations: for selection and for people; readers take
 * the identity from the payload) and, when given, Helm's `release` key.
 */
export function buildIndexSecret(p: IndexSecretParts): KubeObject {
  const bundle = bundleMetadata(p.release.bundle);
  const labels: Record<string, string> = {
    [Label.name]: p.release.extension,
    [Label.owner]: RECORD_OWNER,
    [Label.status]: p.release.status,
    [Label.version]: String(p.release.revision),
    [Label.key]: keyLabelValue(p.key),
    [Label.type]: 'index',
    [Label.createdAt]: p.createdAt,
    ...(p.modifiedAt === undefined ? {} : { [Label.modifiedAt]: p.modifiedAt }),
    ...bundle.labels,
  };
  const owner = extensionOwnerRef(p.release);
  return {
    ...SECRET,
    metadata: {
      name: p.key,
      namespace: p.namespace,
      labels,
      ...(Object.keys(bundle.annotations).length === 0 ? {} : { annotations: bundle.annotations }),
      ...(owner === undefined ? {} : { ownerReferences: [owner] }),
    },
    type: INDEX_SECRET_TYPE,
    immutable: false,
    data: {
      chunk: Buffer.from(p.firstPiece).toString('base64'),
      extraChunks: Buffer.from(JSON.stringify(p.extraChunks)).toString('base64'),
      ...(p.helmRelease === undefined ? {} : { release: Buffer.from(p.helmRelease).toString('base64') }),
    },
  };
}

/** What a chunk Secret is built from. */
interface ChunkSecretParts {
  name: string;
  key: string;
  extension: string;
  namespace: string;
  piece: Uint8Array;
  owner: OwnerReference | undefined;
  createdAt: string;
}

/**
 * An extra chunk Secret (immutable). Besides upstream's `owner`, `key` and `type` labels it
 * carries `name`, so every Secret of an extension, including chunks a crash left without an
 * index, is found by one label selector.
 */
export function buildChunkSecret(p: ChunkSecretParts): KubeObject {
  return {
    ...SECRET,
    metadata: {
      name: p.name,
      namespace: p.namespace,
      labels: {
        [Label.name]: p.extension,
        [Label.owner]: RECORD_OWNER,
        [Label.key]: keyLabelValue(p.key),
        [Label.type]: 'chunk',
        [Label.createdAt]: p.createdAt,
      },
      ...(p.owner === undefined ? {} : { ownerReferences: [p.owner] }),
    },
    type: CHUNK_SECRET_TYPE,
    immutable: true,
    data: { chunk: Buffer.from(p.piece).toString('base64') },
  };
}

/** The fields of a record Secret this module reads (shape only; the API server validated the rest). */
const RecordSecret = z.object({
  metadata: z.object({
    name: z.string().min(1),
    uid: z.string().optional(),
    resourceVersion: z.string().optional(),
    labels: z.record(z.string(), z.string()).optional(),
    ownerReferences: z.array(z.object({ kind: z.string().optional(), uid: z.string().optional(), controller: z.boolean().optional() })).optional(),
  }),
  type: z.string().optional(),
  data: z.record(z.string(), z.string()).optional(),
});

/** A record Secret; see the `RecordSecret` schema. */
type RecordSecret = z.infer<typeof RecordSecret>;

/** An index Secret, read. */
export interface IndexRecord {
  key: string;
  uid: string;
  resourceVersion: string;
  extension: string;
  /** The uid of the ClusterExtension the index Secret's controller reference names, else ''. */
  extensionUID: string;
  revision: number;
  status: ReleaseStatus | string;
  createdAt: string | undefined;
  firstPiece: Buffer;
  extraChunks: string[];
}

/** Reads an index Secret; throws an Error naming it when its shape is not a record's. */
export function parseIndexSecret(obj: unknown, namespace: string): IndexRecord {
  const parsed = RecordSecret.safeParse(obj);
  const name = parsed.success ? parsed.data.metadata.name : '<unnamed>';
  const fail = (problem: string, cause?: unknown): never => {
    throw new Error(`release record ${describeSecret(namespace, name)} is corrupt: ${problem}`, cause === undefined ? undefined : { cause });
  };
  if (!parsed.success) return fail('not a Secret', parsed.error);
  const s = parsed.data;
  const labels = s.metadata.labels ?? {};
  if (s.type !== INDEX_SECRET_TYPE) fail(`type is ${JSON.stringify(s.type)}, not ${INDEX_SECRET_TYPE}`);
  const revision = Number(labels[Label.version]);
  if (!Number.isSafeInteger(revision) || revision < 1) fail(`label ${Label.version} is ${JSON.stringify(labels[Label.version])}`);
  const extension = labels[Label.name] ?? '';
  if (extension === '') fail(`label ${Label.name} is missing`);
  const chunk = s.data?.['chunk'];
  if (chunk === undefined) fail('data.chunk is missing');
  let extraChunks: unknown;
  try {
    extraChunks = JSON.parse(Buffer.from(s.data?.['extraChunks'] ?? '', 'base64').toString('utf8'));
  } catch {
    // Not the SyntaxError as cause: its message quotes the Secret's bytes (issue 69).
    fail('data.extraChunks is not a JSON list');
  }
  // Go's encoding/json writes a nil list as null; upstream writes [] but a null is no harm.
  const list = z.array(z.string().min(1)).safeParse(extraChunks ?? []);
  if (!list.success) return fail('data.extraChunks is not a list of Secret names', list.error);
  if (list.data.length + 1 > MAX_CHUNKS) fail(`it has ${list.data.length + 1} chunks, more than the maximum of ${MAX_CHUNKS}`);
  return {
    key: name,
    uid: s.metadata.uid ?? '',
    resourceVersion: s.metadata.resourceVersion ?? '',
    extension,
    extensionUID: s.metadata.ownerReferences?.find((o) => o.kind === 'ClusterExtension' && o.controller === true)?.uid ?? '',
    revision,
    status: labels[Label.status] ?? '',
    createdAt: labels[Label.createdAt],
    firstPiece: Buffer.from(chunk ?? '', 'base64'),
    extraChunks: list.data,
  };
}

/** The piece a chunk Secret holds; throws an Error naming it (and the index) when it is not one. */
export function chunkPiece(obj: unknown, namespace: string, key: string): Buffer {
  const parsed = RecordSecret.safeParse(obj);
  const chunk = parsed.success ? parsed.data.data?.['chunk'] : undefined;
  if (!parsed.success || parsed.data.type !== CHUNK_SECRET_TYPE || chunk === undefined) {
    const name = parsed.success ? parsed.data.metadata.name : '<unnamed>';
    throw new Error(
      `release record ${describeSecret(namespace, key)} is corrupt: chunk ${describeSecret(namespace, name)} is not a chunk Secret with data.chunk`,
    );
  }
  return Buffer.from(chunk, 'base64');
}

/** The names of a release's chunk Secrets: one per piece after the first, named by its bytes. */
export function chunkNames(key: string, pieces: readonly Buffer[]): string[] {
  return pieces.slice(1).map((p) => chunkSecretName(key, p));
}

// One Secret per distinct extra piece (two identical pieces share a name, and so a Secret).
export function uniqueChunks(key: string, pieces: readonly Buffer[], build: (name: string, piece: Buffer) => KubeObject): KubeObject[] {
  const byName = new Map<string, KubeObject>();
  for (const piece of pieces.slice(1)) {
    const name = chunkSecretName(key, piece);
    if (!byName.has(name)) byName.set(name, build(name, piece));
  }
  return [...byName.values()];
}

/** The revision a record Secret's version label gives; 0 when it has none. */
export function versionOf(secret: KubeObject): number {
  return Number(secret.metadata.labels?.[Label.version] ?? 0);
}
