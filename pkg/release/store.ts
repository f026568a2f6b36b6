/**
 * The release store over Secrets in the system namespace (reference api-and-controllers.md
 * §1.6, applier-and-bundles.md §4.3).
 *
 * Crash safety: every operation is ordered so that a crash between two Secret writes leaves
 * either the old state or the new one visible, and a retry completes it.
 *  - create: leftover chunks of the key (from a crashed create) are deleted, the new chunks
 *    are written (owned by the ClusterExtension), the index last; then the chunks are re-owned
 *    by the index. Readers only follow indexes, so chunks without one are never seen.
 *  - update: the new chunks are written (owned by the index), the index is replaced
 *    (optimistic concurrency on its resourceVersion), then every other chunk of the key goes.
 *  - deleteAll and pruning: indexes first (oldest revision first, so what remains is always
 *    the newest part of the history), then the chunks.
 * Chunk names are hashes of their bytes, so a retried write meets the same names; an existing
 * chunk is reused only when its bytes are the same.
 */
import { wrapError } from '../errors/index.ts';
import { isAlreadyExists, isNotFound, type KubeClient, type KubeObject, type OwnerReference } from '../kube/index.ts';
import { dns1123SubdomainErrors } from '../k8sname/index.ts';
import { assertChunkCount, assertSecretFits, decodeRelease, encodeRelease, splitPayload } from './codec.ts';
import { revisionsToPrune } from './history.ts';
import { Label, RECORD_OWNER, chunkSecretName, isKeyOf, isLabelValue, releaseKey, selector } from './naming.ts';
import {
  SECRET,
  buildChunkSecret,
  buildIndexSecret,
  chunkPiece,
  describeSecret,
  extensionOwnerRef,
  indexOwnerRef,
  parseIndexSecret,
  unixSeconds,
  type IndexRecord,
} from './secrets.ts';
import type { Release, ReleaseStore, ReleaseStoreOptions } from './types.ts';

/** Creates the Secret-backed release store. Throws on invalid options (negative maxHistory). */
export function createReleaseStore(options: ReleaseStoreOptions): ReleaseStore {
  const { client, namespace } = options;
  const maxHistory = options.maxHistory ?? 10;
  if (!Number.isSafeInteger(maxHistory) || maxHistory < 0) throw new Error(`maxHistory must be a non-negative integer, got ${maxHistory}`);
  const now = options.now ?? (() => new Date());
  const records = new RecordClient(client, namespace);
  // The records client of one extension's writes: with the test pause hook when there is one.
  const beforeWrite = options.beforeWrite;
  const recordsOf = (extension: string): RecordClient =>
    beforeWrite === undefined ? records : new RecordClient(client, namespace, () => beforeWrite(extension));

  async function history(extension: string, signal?: AbortSignal): Promise<Release[]> {
    checkExtension(extension);
    const indexes = await records.list({ [Label.name]: extension, [Label.type]: 'index' }, signal);
    // One revision at a time (its chunks in parallel): a large history is never in memory twice.
    const releases: Release[] = [];
    for (const obj of indexes) releases.push(await readRevision(parseIndexSecret(obj, namespace), extension, signal));
    return releases.sort((a, b) => b.revision - a.revision);
  }

  async function readRevision(index: IndexRecord, extension: string, signal?: AbortSignal): Promise<Release> {
    const where = describeSecret(namespace, index.key);
    if (index.key !== releaseKey(extension, index.revision) || !isKeyOf(index.key, extension)) {
      throw new Error(`release record ${where} is corrupt: its name does not match revision ${index.revision} of ${JSON.stringify(extension)}`);
    }
    const extra = await Promise.all(index.extraChunks.map((name) => records.readChunk(index.key, name, signal)));
    const release = await decodeRelease(Buffer.concat([index.firstPiece, ...extra]), where);
    if (release.extension !== extension || release.revision !== index.revision) {
      throw new Error(`release record ${where} is corrupt: it holds revision ${release.revision} of ${JSON.stringify(release.extension)}`);
    }
    return release;
  }

  async function list(signal?: AbortSignal): Promise<string[]> {
    const indexes = await records.list({ [Label.type]: 'index' }, signal);
    const names = new Set<string>();
    for (const obj of indexes) {
      const name = obj.metadata.labels?.[Label.name];
      if (name !== undefined && name !== '') names.add(name);
    }
    return [...names].sort();
  }

  /**
   * The index and chunk Secrets of `release`, checked to fit the size limit. Chunks are stamped
   * `chunkCreatedAt` (default: the index's `createdAt`).
   */
  function secretsOf(
    release: Release,
    key: string,
    pieces: Buffer[],
    chunkOwner: Parameters<typeof buildChunkSecret>[0]['owner'],
    stamps: { createdAt: string; modifiedAt?: string },
    chunkCreatedAt = stamps.createdAt,
  ) {
    const chunks = uniqueChunks(key, pieces, (name, piece) =>
      buildChunkSecret({ name, key, extension: release.extension, namespace, piece, owner: chunkOwner, createdAt: chunkCreatedAt }),
    );
    const index = buildIndexSecret({
      key,
      namespace,
      release,
      firstPiece: pieces[0] ?? Buffer.alloc(0),
      extraChunks: chunkNames(key, pieces),
      ...stamps,
    });
    for (const secret of [index, ...chunks]) assertSecretFits(key, secret);
    return { index, chunks };
  }

  /** The index Secret of `key` (if any) and its chunk Secrets, in one LIST (a GET and a LIST before). */
  async function secretsOfKey(key: string, signal?: AbortSignal): Promise<{ index: KubeObject | undefined; chunks: KubeObject[] }> {
    const all = await records.list({ [Label.key]: key }, signal);
    return {
      index: all.find((s) => s.metadata.labels?.[Label.type] === 'index' && s.metadata.name === key),
      chunks: all.filter((s) => s.metadata.labels?.[Label.type] === 'chunk'),
    };
  }

  async function create(release: Release, signal?: AbortSignal): Promise<void> {
    const records = recordsOf(release.extension);
    const { key, pieces } = await encode(release);
    const { index, chunks } = secretsOf(release, key, pieces, extensionOwnerRef(release), { createdAt: unixSeconds(now()) });

    const existing = await secretsOfKey(key, signal);
    if (existing.index !== undefined) throw new Error(`release record ${describeSecret(namespace, key)} already exists`);
    // With no index, any chunk of this key is a leftover of an interrupted create.
    for (const leftover of existing.chunks) await records.delete(leftover.metadata.name ?? '', signal);
    for (const chunk of chunks) await records.createChunk(key, chunk, signal);
    const created = await records.create(index, signal);

    // The record is complete and readable from here on; what follows is housekeeping that
    // must not make a caller retry (and meet "already exists"). Until the chunks are re-owned
    // the ClusterExtension is their garbage-collection backstop; a later create prunes what
    // this one could not.
    try {
      const owner = indexOwnerRef(key, created.metadata.uid ?? '');
      for (const chunk of chunks) await records.setOwner(chunk.metadata.name ?? '', owner, signal);
    } catch (e) {
      options.log?.warn({ err: e, key }, 'setting the owner of release chunks failed');
    }
    try {
      await prune(release.extension, signal);
    } catch (e) {
      options.log?.warn({ err: e, extension: release.extension }, 'pruning release history failed');
    }
  }

  async function update(release: Release, signal?: AbortSignal): Promise<void> {
    const records = recordsOf(release.extension);
    const { key, pieces } = await encode(release);
    const { index: existing, chunks: old } = await secretsOfKey(key, signal);
    if (existing === undefined) throw new Error(`release record ${describeSecret(namespace, key)} does not exist`);
    const current = parseIndexSecret(existing, namespace);
    if (current.extension !== release.extension) {
      throw new Error(`release record ${describeSecret(namespace, key)} belongs to ${JSON.stringify(current.extension)}`);
    }
    const stamp = unixSeconds(now());
    const owner = indexOwnerRef(key, current.uid);
    const { index, chunks } = secretsOf(release, key, pieces, owner, { createdAt: current.createdAt ?? stamp, modifiedAt: stamp }, stamp);
    index.metadata.resourceVersion = current.resourceVersion;

    for (const chunk of chunks) await records.createChunk(key, chunk, signal);
    await records.update(index, signal);
    const keep = new Set(chunks.map((c) => c.metadata.name));
    for (const chunk of old) if (!keep.has(chunk.metadata.name)) await records.delete(chunk.metadata.name ?? '', signal);
  }

  async function deleteAll(extension: string, signal?: AbortSignal): Promise<void> {
    checkExtension(extension);
    const records = recordsOf(extension);
    const all = await records.list({ [Label.name]: extension }, signal);
    const indexes = all.filter((s) => s.metadata.labels?.[Label.type] === 'index').sort((a, b) => versionOf(a) - versionOf(b));
    for (const index of indexes) await records.delete(index.metadata.name ?? '', signal);
    for (const chunk of all) if (chunk.metadata.labels?.[Label.type] !== 'index') await records.delete(chunk.metadata.name ?? '', signal);
  }

  async function prune(extension: string, signal?: AbortSignal): Promise<void> {
    const records = recordsOf(extension);
    const indexes = await records.list({ [Label.name]: extension, [Label.type]: 'index' }, signal);
    const entries = indexes.map((s) => ({ revision: versionOf(s), status: s.metadata.labels?.[Label.status] ?? '', name: s.metadata.name ?? '' }));
    const doomed = new Set(revisionsToPrune(entries, maxHistory));
    for (const entry of entries.filter((e) => doomed.has(e.revision)).sort((a, b) => a.revision - b.revision)) {
      await records.delete(entry.name, signal);
      for (const chunk of await records.list({ [Label.key]: entry.name, [Label.type]: 'chunk' }, signal)) {
        await records.delete(chunk.metadata.name ?? '', signal);
      }
    }
  }

  return { history, list, create, update, deleteAll };
}

/** Checks the release's identity and compresses and splits its payload. */
async function encode(release: Release): Promise<{ key: string; pieces: Buffer[] }> {
  checkExtension(release.extension);
  if (!Number.isSafeInteger(release.revision) || release.revision < 1) {
    throw new Error(`release ${JSON.stringify(release.extension)} has invalid revision ${release.revision}`);
  }
  const key = releaseKey(release.extension, release.revision);
  const pieces = splitPayload(await encodeRelease(release));
  assertChunkCount(key, pieces.length);
  return { key, pieces };
}

/**
 * True when `extension` can name release records: it is a Secret-name part and the `name` label
 * value, so both rules apply. No record of any other name can exist.
 */
export function isReleaseName(extension: string): boolean {
  return extension !== '' && isLabelValue(extension) && dns1123SubdomainErrors(extension).length === 0;
}

function checkExtension(extension: string): void {
  if (!isReleaseName(extension)) {
    throw new Error(`invalid release name ${JSON.stringify(extension)}: must be a DNS-1123 subdomain of at most 63 characters`);
  }
}

function chunkNames(key: string, pieces: readonly Buffer[]): string[] {
  return pieces.slice(1).map((p) => chunkSecretName(key, p));
}

// One Secret per distinct extra piece (two identical pieces share a name, and so a Secret).
function uniqueChunks(key: string, pieces: readonly Buffer[], build: (name: string, piece: Buffer) => KubeObject): KubeObject[] {
  const byName = new Map<string, KubeObject>();
  for (const piece of pieces.slice(1)) {
    const name = chunkSecretName(key, piece);
    if (!byName.has(name)) byName.set(name, build(name, piece));
  }
  return [...byName.values()];
}

function versionOf(secret: KubeObject): number {
  return Number(secret.metadata.labels?.[Label.version] ?? 0);
}

/** The Secret calls of the store, with API errors wrapped to name the Secret and the step. */
class RecordClient {
  readonly #client: KubeClient;
  readonly #namespace: string;
  readonly #beforeWrite: (() => Promise<void>) | undefined;

  /** `beforeWrite` is awaited before every create, update, patch and delete. */
  constructor(client: KubeClient, namespace: string, beforeWrite?: () => Promise<void>) {
    this.#client = client;
    this.#namespace = namespace;
    this.#beforeWrite = beforeWrite;
  }

  #ref(name: string) {
    return { ...SECRET, namespace: this.#namespace, name };
  }

  /** Record Secrets (owner=operator-controller) matching `labels`. */
  async list(labels: Record<string, string>, signal?: AbortSignal): Promise<KubeObject[]> {
    const labelSelector = selector({ [Label.owner]: RECORD_OWNER, ...labels });
    try {
      const { items } = await this.#client.listAll(SECRET, {
        namespace: this.#namespace,
        labelSelector,
        limit: 50,
        ...(signal === undefined ? {} : { signal }),
      });
      return items;
    } catch (e) {
      throw wrapError(`listing release records in namespace ${JSON.stringify(this.#namespace)} (${labelSelector})`, e);
    }
  }

  /** The Secret, or undefined when it does not exist. */
  async get(name: string, signal?: AbortSignal): Promise<KubeObject | undefined> {
    try {
      return await this.#client.get(this.#ref(name), signal === undefined ? {} : { signal });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw wrapError(`reading release record ${describeSecret(this.#namespace, name)}`, e);
    }
  }

  async create(secret: KubeObject, signal?: AbortSignal): Promise<KubeObject> {
    await this.#beforeWrite?.();
    try {
      return await this.#client.create(secret, signal === undefined ? {} : { signal });
    } catch (e) {
      throw wrapError(`writing release record ${describeSecret(this.#namespace, secret.metadata.name ?? '')}`, e);
    }
  }

  async update(secret: KubeObject, signal?: AbortSignal): Promise<void> {
    await this.#beforeWrite?.();
    try {
      await this.#client.update(secret, signal === undefined ? {} : { signal });
    } catch (e) {
      throw wrapError(`updating release record ${describeSecret(this.#namespace, secret.metadata.name ?? '')}`, e);
    }
  }

  /** Creates a chunk Secret; one that exists already is accepted only with the same bytes. */
  async createChunk(key: string, chunk: KubeObject, signal?: AbortSignal): Promise<void> {
    const name = chunk.metadata.name ?? '';
    await this.#beforeWrite?.();
    try {
      await this.#client.create(chunk, signal === undefined ? {} : { signal });
      return;
    } catch (e) {
      if (!isAlreadyExists(e)) throw wrapError(`writing release chunk ${describeSecret(this.#namespace, name)}`, e);
    }
    const existing = await this.get(name, signal);
    const want = (chunk['data'] as Record<string, string>)['chunk'];
    if (existing === undefined || chunkPiece(existing, this.#namespace, key).toString('base64') !== want) {
      throw new Error(`release chunk ${describeSecret(this.#namespace, name)} exists with other content`);
    }
  }

  /** Makes `owner` the only owner of a chunk Secret. */
  async setOwner(name: string, owner: OwnerReference, signal?: AbortSignal): Promise<void> {
    await this.#beforeWrite?.();
    try {
      await this.#client.patch(this.#ref(name), { metadata: { ownerReferences: [owner] } }, 'merge', signal === undefined ? {} : { signal });
    } catch (e) {
      throw wrapError(`setting the owner of release chunk ${describeSecret(this.#namespace, name)}`, e);
    }
  }

  /** Deletes a Secret; one already gone is fine. */
  async delete(name: string, signal?: AbortSignal): Promise<void> {
    await this.#beforeWrite?.();
    try {
      await this.#client.delete(this.#ref(name), signal === undefined ? {} : { signal });
    } catch (e) {
      if (!isNotFound(e)) throw wrapError(`deleting release record ${describeSecret(this.#namespace, name)}`, e);
    }
  }

  /** The piece held by chunk `name` of the revision stored under `key`; throws naming both when missing or corrupt. */
  async readChunk(key: string, name: string, signal?: AbortSignal): Promise<Buffer> {
    const where = describeSecret(this.#namespace, key);
    let obj: KubeObject;
    try {
      obj = await this.#client.get(this.#ref(name), signal === undefined ? {} : { signal });
    } catch (e) {
      if (isNotFound(e))
        throw new Error(`release record ${where} is corrupt: its chunk ${describeSecret(this.#namespace, name)} does not exist`, { cause: e });
      throw wrapError(`reading release chunk ${describeSecret(this.#namespace, name)} of ${where}`, e);
    }
    const piece = chunkPiece(obj, this.#namespace, key);
    const expected = chunkSecretName(key, piece);
    if (expected !== name) {
      throw new Error(`release record ${where} is corrupt: the content of chunk ${describeSecret(this.#namespace, name)} does not match its name`, {
        cause: new Error(`its bytes hash to the name ${expected}`),
      });
    }
    return piece;
  }
}
