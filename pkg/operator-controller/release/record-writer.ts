/**
 * The writes of the release store (store.ts): create, update, deleteAll and the pruning after a
 * create, each ordered so that a crash between two Secret writes leaves the old state or the
 * new one visible (store.ts says how).
 */
import type { Logger } from 'pino';
import { isAlreadyExists, isConflict, type KubeObject } from '../../shared/kube/index.ts';
import {
  SECRET_SIZE_LIMIT,
  SERVER_ADDED_ALLOWANCE,
  assertChunkCount,
  assertSecretFits,
  encodeRelease,
  serializedSize,
  splitPayload,
} from './codec.ts';
import { revisionsToPrune } from './types.ts';
import { Label, checkExtension, isChunkNameOf, keyLabelValue, keyOf } from './naming.ts';
import type { RecordCache } from './record-cache.ts';
import type { RecordClient } from './record-client.ts';
import {
  buildChunkSecret,
  buildIndexSecret,
  chunkNames,
  describeSecret,
  extensionOwnerRef,
  indexOwnerRef,
  parseIndexSecret,
  uniqueChunks,
  unixSeconds,
  versionOf,
  type IndexRecord,
} from './secrets.ts';
import { ReleaseStatus, type Release } from './types.ts';

/** What a RecordWriter is made of. */
interface RecordWriterOptions {
  records: RecordClient;
  cache: RecordCache;
  namespace: string;
  /** Revisions kept per extension after a create; 0 keeps all. */
  maxHistory: number;
  now: () => Date;
  log?: Logger | undefined;
}

/** Writes records through a RecordClient, keeping the store's RecordCache up to date. */
export class RecordWriter {
  readonly #o: RecordWriterOptions;

  constructor(options: RecordWriterOptions) {
    this.#o = options;
  }

  /** Writes a new revision, then prunes the history (ReleaseStore.create). */
  async create(release: Release, signal?: AbortSignal): Promise<void> {
    const { records, cache, namespace } = this.#o;
    const { key, pieces } = await encode(release);
    const { index, chunks } = this.#secretsOf(release, key, pieces, extensionOwnerRef(release), { createdAt: unixSeconds(this.#o.now()) });

    // A record in one Secret whose key the extension's last LIST here (the reconcile's history
    // read) did not find needs no LIST: its create fails if it exists after all. Chunks need the
    // LIST: with no index, any chunk of this key is a leftover of an interrupted create.
    if (chunks.length > 0 || cache.hasKey(release.extension, key) !== false) {
      const existing = await this.#secretsOfKey(key, signal);
      if (existing.index !== undefined) throw new Error(`release record ${describeSecret(namespace, key)} already exists`);
      for (const leftover of existing.chunks) await records.delete(leftover.metadata.name ?? '', signal);
    }
    for (const chunk of chunks) await records.createChunk(key, chunk, signal);
    const created = await records.create(index, signal).catch((err: unknown) => {
      if (isAlreadyExists(err) || (err instanceof Error && isAlreadyExists(err.cause))) {
        throw new Error(`release record ${describeSecret(namespace, key)} already exists`, { cause: err });
      }
      throw err;
    });
    cache.remember(created);
    cache.keyChanged(release.extension, key, true);

    // The record is complete and readable from here on; what follows is housekeeping that
    // must not make a caller retry (and meet "already exists"). Until the chunks are re-owned
    // the ClusterExtension is their garbage-collection backstop; a later create prunes what
    // this one could not.
    try {
      const owner = indexOwnerRef(key, created.metadata.uid ?? '');
      for (const chunk of chunks) await records.setOwner(chunk.metadata.name ?? '', owner, signal);
    } catch (e) {
      this.#o.log?.warn({ err: e, key }, 'setting the owner of release chunks failed');
    }
    try {
      await this.#prune(release.extension, signal);
    } catch (e) {
      this.#o.log?.warn({ err: e, extension: release.extension }, 'pruning release history failed');
    }
  }

  /** Rewrites an existing revision (ReleaseStore.update). */
  async update(release: Release, signal?: AbortSignal): Promise<void> {
    const key = keyOf(release);
    const known = this.#o.cache.layout(key);
    try {
      await this.#rewrite(release, known, signal);
    } catch (err) {
      this.#o.cache.forgetLayout(key);
      // A stale layout (another write since) meets the resourceVersion precondition: read the Secrets and retry once.
      if (known === undefined || !(isConflict(err) || (err instanceof Error && isConflict(err.cause)))) throw err;
      await this.#rewrite(release, undefined, signal);
    }
  }

  /** Replaces revision `release` over `known` (its index as last seen here), or over what a LIST of its key finds. */
  async #rewrite(release: Release, known: IndexRecord | undefined, signal?: AbortSignal): Promise<void> {
    const { records, namespace } = this.#o;
    const { key, pieces } = await encode(release);
    let current = known;
    let old = known?.extraChunks ?? [];
    if (current === undefined) {
      const found = await this.#secretsOfKey(key, signal);
      if (found.index === undefined) throw new Error(`release record ${describeSecret(namespace, key)} does not exist`);
      current = parseIndexSecret(found.index, namespace);
      old = found.chunks.map((c) => c.metadata.name ?? '');
    }
    if (current.extension !== release.extension) {
      throw new Error(`release record ${describeSecret(namespace, key)} belongs to ${JSON.stringify(current.extension)}`);
    }
    const stamp = unixSeconds(this.#o.now());
    const owner = indexOwnerRef(key, current.uid);
    const { index, chunks } = this.#secretsOf(release, key, pieces, owner, { createdAt: current.createdAt ?? stamp, modifiedAt: stamp }, stamp);
    index.metadata.resourceVersion = current.resourceVersion;

    for (const chunk of chunks) await records.createChunk(key, chunk, signal);
    this.#o.cache.remember(await records.update(index, signal));
    const keep = new Set(chunks.map((c) => c.metadata.name));
    for (const name of old) if (!keep.has(name)) await records.delete(name, signal);
  }

  /** Deletes every record of `extension`: indexes first, oldest first, then chunks (ReleaseStore.deleteAll). */
  async deleteAll(extension: string, signal?: AbortSignal, after?: Promise<unknown>): Promise<void> {
    const { records } = this.#o;
    checkExtension(extension);
    this.#o.cache.forget(extension);
    const all = await records.list({ [Label.name]: extension }, signal);
    const indexes = all.filter((s) => s.metadata.labels?.[Label.type] === 'index').sort((a, b) => versionOf(a) - versionOf(b));
    // Our chunks carry the `name` label; upstream's carry only `key`, and every index names its
    // chunks (`extraChunks`; a corrupt index's are listed by key instead). All are gathered
    // before any index goes, so that what is left after a crash is always found again.
    const chunks = new Set(all.filter((s) => s.metadata.labels?.[Label.type] !== 'index').map((s) => s.metadata.name ?? ''));
    for (const index of indexes) {
      const key = index.metadata.name ?? '';
      const named = chunksNamedBy(index, key, this.#o.namespace);
      const found =
        named ?? (await records.list({ [Label.key]: keyLabelValue(key), [Label.type]: 'chunk' }, signal)).map((c) => c.metadata.name ?? '');
      for (const name of found) chunks.add(name);
    }
    await after;
    for (const index of indexes) await records.delete(index.metadata.name ?? '', signal);
    // A chunk an index names but a crash never wrote is no error (delete ignores NotFound).
    await Promise.all([...chunks].map((name) => records.delete(name, signal)));
  }

  /** Deletes the revisions over `maxHistory` (revisionsToPrune), oldest first, each index before its chunks. */
  async #prune(extension: string, signal?: AbortSignal): Promise<void> {
    const { records, cache, maxHistory } = this.#o;
    // Nothing is pruned at or below maxHistory revisions (revisionsToPrune), nor with no limit.
    const known = cache.keyCount(extension);
    if (maxHistory <= 0 || (known !== undefined && known <= maxHistory)) return;
    const indexes = await records.list({ [Label.name]: extension, [Label.type]: 'index' }, signal);
    cache.listed(extension, indexes);
    const entries = indexes.map((s) => ({ revision: versionOf(s), status: s.metadata.labels?.[Label.status] ?? '', name: s.metadata.name ?? '' }));
    const doomed = new Set(revisionsToPrune(entries, maxHistory));
    for (const entry of entries.filter((e) => doomed.has(e.revision)).sort((a, b) => a.revision - b.revision)) {
      cache.forgetLayout(entry.name);
      await records.delete(entry.name, signal);
      cache.keyChanged(extension, entry.name, false);
      for (const chunk of await records.list({ [Label.key]: keyLabelValue(entry.name), [Label.type]: 'chunk' }, signal)) {
        await records.delete(chunk.metadata.name ?? '', signal);
      }
    }
  }

  /**
   * The index and chunk Secrets of `release`, checked to fit the size limit. Chunks are stamped
   * `chunkCreatedAt` (default: the index's `createdAt`).
   */
  #secretsOf(
    release: Release,
    key: string,
    pieces: Buffer[],
    chunkOwner: Parameters<typeof buildChunkSecret>[0]['owner'],
    stamps: { createdAt: string; modifiedAt?: string },
    chunkCreatedAt = stamps.createdAt,
  ): { index: KubeObject; chunks: KubeObject[] } {
    const namespace = this.#o.namespace;
    const chunks = uniqueChunks(key, pieces, (name, piece) =>
      buildChunkSecret({ name, key, extension: release.extension, namespace, piece, owner: chunkOwner, createdAt: chunkCreatedAt }),
    );
    const parts = { key, namespace, release, firstPiece: pieces[0] ?? Buffer.alloc(0), extraChunks: chunkNames(key, pieces), ...stamps };
    const index = withHelmRelease(parts, pieces) ?? buildIndexSecret(parts);
    for (const secret of [index, ...chunks]) assertSecretFits(key, secret);
    return { index, chunks };
  }

  /** The index Secret of `key` (if any) and its chunk Secrets, in one LIST (a GET and a LIST before). */
  async #secretsOfKey(key: string, signal?: AbortSignal): Promise<{ index: KubeObject | undefined; chunks: KubeObject[] }> {
    const all = await this.#o.records.list({ [Label.key]: keyLabelValue(key) }, signal);
    return {
      index: all.find((s) => s.metadata.labels?.[Label.type] === 'index' && s.metadata.name === key),
      chunks: all.filter((s) => s.metadata.labels?.[Label.type] === 'chunk'),
    };
  }
}

/**
 * The chunk names index `key` lists, or undefined when it cannot be parsed or names a Secret that
 * is not a chunk of its key (isChunkNameOf, ours and upstream's): never a Secret nobody proved ours.
 */
function chunksNamedBy(index: KubeObject, key: string, namespace: string): readonly string[] | undefined {
  let names: readonly string[];
  try {
    names = parseIndexSecret(index, namespace).extraChunks;
  } catch {
    return undefined;
  }
  return names.every((name) => isChunkNameOf(name, key)) ? names : undefined;
}

/** Checks the release's identity and compresses and splits its payload. */
async function encode(release: Release): Promise<{ key: string; pieces: Buffer[] }> {
  const key = keyOf(release);
  const pieces = splitPayload(await encodeRelease(release));
  assertChunkCount(key, pieces.length);
  return { key, pieces };
}

/**
 * The index Secret with Helm's `release` key (what stock `helm` reads), only for a deployed
 * revision whose release is one piece and still fits the size limit with it: the key costs
 * about 1.8 times the compressed payload (docs/decisions/0074).
 */
function withHelmRelease(parts: Parameters<typeof buildIndexSecret>[0], pieces: readonly Buffer[]): KubeObject | undefined {
  const [only] = pieces;
  if (parts.release.status !== ReleaseStatus.Deployed || pieces.length !== 1 || only === undefined) return undefined;
  const index = buildIndexSecret({ ...parts, helmRelease: only.toString('base64') });
  return serializedSize(index) + SERVER_ADDED_ALLOWANCE <= SECRET_SIZE_LIMIT ? index : undefined;
}
