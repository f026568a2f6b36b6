/**
 * The release store over Secrets in the system namespace, in the shape upstream's Helm applier
 * writes and reads (decision 0074).
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
import { isConflict, type KubeObject } from '../../shared/kube/index.ts';
import {
  MAX_RECORD_JSON_BYTES,
  SECRET_SIZE_LIMIT,
  SERVER_ADDED_ALLOWANCE,
  assertChunkCount,
  assertSecretFits,
  decodeRelease,
  decodeReleaseSummary,
  decodedSize,
  encodeRelease,
  serializedSize,
  splitPayload,
} from './codec.ts';
import { revisionsToPrune } from './history.ts';
import { Label, checkExtension, isKeyOf, keyLabelValue, keyOf, releaseKey } from './naming.ts';
import { RecordClient } from './record-client.ts';
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
import { ReleaseStatus, type HistoryOptions, type Release, type ReleaseStore, type ReleaseStoreOptions, type ReleaseSummary } from './types.ts';
import type { ManifestSpill } from './manifest-bytes.ts';

/** Creates the Secret-backed release store. Throws on invalid options (negative maxHistory). */
export function createReleaseStore(options: ReleaseStoreOptions): ReleaseStore {
  const { client, namespace } = options;
  const maxHistory = options.maxHistory ?? 10;
  if (!Number.isSafeInteger(maxHistory) || maxHistory < 0) throw new Error(`maxHistory must be a non-negative integer, got ${maxHistory}`);
  const now = options.now ?? (() => new Date());
  const maxRecordBytes = options.maxRecordBytes ?? MAX_RECORD_JSON_BYTES;
  if (!Number.isSafeInteger(maxRecordBytes) || maxRecordBytes < 1)
    throw new Error(`maxRecordBytes must be a positive integer, got ${maxRecordBytes}`);
  const records = new RecordClient(client, namespace);

  /**
   * What this process last read or wrote of each index Secret: enough for an update to skip
   * reading the Secrets of its key (one LIST per status change of a revision). Only one
   * leader writes; a stale entry is met as a conflict on the index's resourceVersion, and the
   * update then reads the Secrets again. A failed update forgets its entry, so the retry reads
   * the key and removes the chunks the failure left; chunks an update interrupted in another
   * process left go with the first update after a restart, or with pruning and uninstall.
   * Small: no payload is kept.
   */
  const layouts = new Map<string, IndexRecord>();
  const remember = (index: KubeObject): void => {
    const { firstPiece: _piece, ...layout } = parseIndexSecret(index, namespace);
    layouts.set(layout.key, { ...layout, firstPiece: Buffer.alloc(0) });
  };
  /**
   * The index keys of each extension as its last LIST of indexes here found them, with this
   * process's creates and prunes since (absent: not listed yet). Every reconcile reads the
   * history before it creates a revision, so this is fresh when `prune` asks whether anything
   * is over `maxHistory`; when nothing can be, it skips its LIST. A record another process
   * created since is met by the next prune after the next read.
   */
  const indexKeys = new Map<string, Set<string>>();
  const listedIndexes = (extension: string, indexes: readonly KubeObject[]): void => {
    indexKeys.set(extension, new Set(indexes.map((i) => i.metadata.name ?? '')));
  };

  async function history(extension: string, options: HistoryOptions = {}): Promise<Release[]> {
    const { signal, admit, spill } = options;
    checkExtension(extension);
    const indexes = await records.list({ [Label.name]: extension, [Label.type]: 'index' }, signal);
    for (const obj of indexes) remember(obj);
    listedIndexes(extension, indexes);
    const releases: Release[] = [];
    if (admit === undefined) {
      // One revision at a time (its chunks in parallel): a large history is never in memory twice.
      for (const obj of indexes) {
        const index = parseIndexSecret(obj, namespace);
        releases.push(await decodeRevision(index, extension, await readPayload(index, extension, signal), spill));
      }
    } else {
      // Every compressed payload first (a fraction of what they decode to), then one admission
      // of all they decode to, then the decoding: a caller that waits for memory waits once.
      const read: { index: IndexRecord; payload: Buffer }[] = [];
      for (const obj of indexes) {
        const index = parseIndexSecret(obj, namespace);
        read.push({ index, payload: await readPayload(index, extension, signal) });
      }
      if (read.length > 0) await admit(read.reduce((n, r) => n + decodedSize(r.payload), 0));
      for (const r of read.splice(0)) releases.push(await decodeRevision(r.index, extension, r.payload, spill));
    }
    return releases.sort((a, b) => b.revision - a.revision);
  }

  /** The joined compressed pieces of a revision (RecordClient.readPayload). */
  async function readPayload(index: IndexRecord, extension: string, signal?: AbortSignal): Promise<Buffer> {
    const where = describeSecret(namespace, index.key);
    if (index.key !== releaseKey(extension, index.revision) || !isKeyOf(index.key, extension)) {
      throw new Error(`release record ${where} is corrupt: its name does not match revision ${index.revision} of ${JSON.stringify(extension)}`);
    }
    return records.readPayload(index, signal);
  }

  async function decodeRevision(index: IndexRecord, extension: string, payload: Buffer, spill?: ManifestSpill): Promise<Release> {
    const where = describeSecret(namespace, index.key);
    const release = await decodeRelease(payload, where, index.extensionUID, spill, maxRecordBytes);
    if (release.extension !== extension || release.revision !== index.revision) {
      throw new Error(`release record ${where} is corrupt: it holds revision ${release.revision} of ${JSON.stringify(release.extension)}`);
    }
    return release;
  }

  async function deployed(extension: string, signal?: AbortSignal): Promise<ReleaseSummary | undefined> {
    checkExtension(extension);
    const indexes = await records.list({ [Label.name]: extension, [Label.type]: 'index' }, signal);
    for (const obj of indexes) remember(obj);
    listedIndexes(extension, indexes);
    const parsed = indexes.map((obj) => parseIndexSecret(obj, namespace)).sort((a, b) => b.revision - a.revision);
    // The status labels name the candidates; a label that disagrees with its record (a write
    // interrupted between the two) falls back to reading every revision, newest first.
    const labelled = parsed.filter((i) => i.status === ReleaseStatus.Deployed);
    for (const candidates of [labelled, parsed.filter((i) => i.status !== ReleaseStatus.Deployed)]) {
      for (const index of candidates) {
        const summary = await decodeReleaseSummary(
          await readPayload(index, extension, signal),
          describeSecret(namespace, index.key),
          index.extensionUID,
          maxRecordBytes,
        );
        if (summary.extension !== extension || summary.revision !== index.revision) {
          throw new Error(
            `release record ${describeSecret(namespace, index.key)} is corrupt: it holds revision ${summary.revision} of ${JSON.stringify(summary.extension)}`,
          );
        }
        if (summary.status === ReleaseStatus.Deployed) return summary;
      }
    }
    return undefined;
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
    const parts = { key, namespace, release, firstPiece: pieces[0] ?? Buffer.alloc(0), extraChunks: chunkNames(key, pieces), ...stamps };
    const index = withHelmRelease(parts, pieces) ?? buildIndexSecret(parts);
    for (const secret of [index, ...chunks]) assertSecretFits(key, secret);
    return { index, chunks };
  }

  /** The index Secret of `key` (if any) and its chunk Secrets, in one LIST (a GET and a LIST before). */
  async function secretsOfKey(key: string, signal?: AbortSignal): Promise<{ index: KubeObject | undefined; chunks: KubeObject[] }> {
    const all = await records.list({ [Label.key]: keyLabelValue(key) }, signal);
    return {
      index: all.find((s) => s.metadata.labels?.[Label.type] === 'index' && s.metadata.name === key),
      chunks: all.filter((s) => s.metadata.labels?.[Label.type] === 'chunk'),
    };
  }

  async function create(release: Release, signal?: AbortSignal): Promise<void> {
    const { key, pieces } = await encode(release);
    const { index, chunks } = secretsOf(release, key, pieces, extensionOwnerRef(release), { createdAt: unixSeconds(now()) });

    const existing = await secretsOfKey(key, signal);
    if (existing.index !== undefined) throw new Error(`release record ${describeSecret(namespace, key)} already exists`);
    // With no index, any chunk of this key is a leftover of an interrupted create.
    for (const leftover of existing.chunks) await records.delete(leftover.metadata.name ?? '', signal);
    for (const chunk of chunks) await records.createChunk(key, chunk, signal);
    const created = await records.create(index, signal);
    remember(created);
    indexKeys.get(release.extension)?.add(key);

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
    const key = keyOf(release);
    const known = layouts.get(key);
    try {
      await rewrite(release, known, signal);
    } catch (err) {
      layouts.delete(key);
      // A stale layout (another write since) meets the resourceVersion precondition: read the Secrets and retry once.
      if (known === undefined || !(isConflict(err) || (err instanceof Error && isConflict(err.cause)))) throw err;
      await rewrite(release, undefined, signal);
    }
  }

  /** Replaces revision `release` over `known` (its index as last seen here), or over what a LIST of its key finds. */
  async function rewrite(release: Release, known: IndexRecord | undefined, signal?: AbortSignal): Promise<void> {
    const { key, pieces } = await encode(release);
    let current = known;
    let old = known?.extraChunks ?? [];
    if (current === undefined) {
      const found = await secretsOfKey(key, signal);
      if (found.index === undefined) throw new Error(`release record ${describeSecret(namespace, key)} does not exist`);
      current = parseIndexSecret(found.index, namespace);
      old = found.chunks.map((c) => c.metadata.name ?? '');
    }
    if (current.extension !== release.extension) {
      throw new Error(`release record ${describeSecret(namespace, key)} belongs to ${JSON.stringify(current.extension)}`);
    }
    const stamp = unixSeconds(now());
    const owner = indexOwnerRef(key, current.uid);
    const { index, chunks } = secretsOf(release, key, pieces, owner, { createdAt: current.createdAt ?? stamp, modifiedAt: stamp }, stamp);
    index.metadata.resourceVersion = current.resourceVersion;

    for (const chunk of chunks) await records.createChunk(key, chunk, signal);
    remember(await records.update(index, signal));
    const keep = new Set(chunks.map((c) => c.metadata.name));
    for (const name of old) if (!keep.has(name)) await records.delete(name, signal);
  }

  async function deleteAll(extension: string, signal?: AbortSignal): Promise<void> {
    checkExtension(extension);
    for (const key of layouts.keys()) if (isKeyOf(key, extension)) layouts.delete(key);
    indexKeys.delete(extension);
    const all = await records.list({ [Label.name]: extension }, signal);
    const indexes = all.filter((s) => s.metadata.labels?.[Label.type] === 'index').sort((a, b) => versionOf(a) - versionOf(b));
    // Our chunks carry the `name` label; upstream's carry only `key`: both are gathered before
    // any index goes, so that what is left after a crash is always found again.
    const chunks = new Map(all.filter((s) => s.metadata.labels?.[Label.type] !== 'index').map((s) => [s.metadata.name ?? '', s]));
    for (const index of indexes) {
      for (const chunk of await records.list({ [Label.key]: keyLabelValue(index.metadata.name ?? ''), [Label.type]: 'chunk' }, signal)) {
        chunks.set(chunk.metadata.name ?? '', chunk);
      }
    }
    for (const index of indexes) await records.delete(index.metadata.name ?? '', signal);
    for (const name of chunks.keys()) await records.delete(name, signal);
  }

  async function prune(extension: string, signal?: AbortSignal): Promise<void> {
    // Nothing is pruned at or below maxHistory revisions (revisionsToPrune), nor with no limit.
    const known = indexKeys.get(extension);
    if (maxHistory <= 0 || (known !== undefined && known.size <= maxHistory)) return;
    const indexes = await records.list({ [Label.name]: extension, [Label.type]: 'index' }, signal);
    listedIndexes(extension, indexes);
    const entries = indexes.map((s) => ({ revision: versionOf(s), status: s.metadata.labels?.[Label.status] ?? '', name: s.metadata.name ?? '' }));
    const doomed = new Set(revisionsToPrune(entries, maxHistory));
    for (const entry of entries.filter((e) => doomed.has(e.revision)).sort((a, b) => a.revision - b.revision)) {
      layouts.delete(entry.name);
      await records.delete(entry.name, signal);
      indexKeys.get(extension)?.delete(entry.name);
      for (const chunk of await records.list({ [Label.key]: keyLabelValue(entry.name), [Label.type]: 'chunk' }, signal)) {
        await records.delete(chunk.metadata.name ?? '', signal);
      }
    }
  }

  return { history, deployed, list, create, update, deleteAll };
}

/** Checks the release's identity and compresses and splits its payload. */
async function encode(release: Release): Promise<{ key: string; pieces: Buffer[] }> {
  const key = keyOf(release);
  const pieces = splitPayload(await encodeRelease(release));
  assertChunkCount(key, pieces.length);
  return { key, pieces };
}

/**
 * The index Secret with Helm's `release` key (the payload as stock Helm's Secret driver stores
 * it), when the revision is the deployed one, its release is one piece and the Secret still
 * fits the size limit with it; else undefined. The key costs about 1.8 times the compressed
 * payload, in the Secret and in every history read, hence only on the deployed revision (a
 * superseded one is rewritten without it) and not for releases of some 300 KB compressed and
 * more (docs/decisions/0074).
 */
function withHelmRelease(parts: Parameters<typeof buildIndexSecret>[0], pieces: readonly Buffer[]): KubeObject | undefined {
  const [only] = pieces;
  if (parts.release.status !== ReleaseStatus.Deployed || pieces.length !== 1 || only === undefined) return undefined;
  const index = buildIndexSecret({ ...parts, helmRelease: only.toString('base64') });
  return serializedSize(index) + SERVER_ADDED_ALLOWANCE <= SECRET_SIZE_LIMIT ? index : undefined;
}
