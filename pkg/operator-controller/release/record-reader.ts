/**
 * The reads of the release store (store.ts): an extension's history, its deployed revision
 * without objects, and the names of all extensions with records.
 */
import { decodeRelease, decodeReleaseSummary, decodedSize } from './codec.ts';
import type { ManifestSpill } from './manifest-bytes.ts';
import { OversizedPayloads } from './oversized.ts';
import { Label, checkExtension, isKeyOf, releaseKey } from './naming.ts';
import type { RecordCache } from './record-cache.ts';
import type { RecordClient } from './record-client.ts';
import { describeSecret, parseIndexSecret, type IndexRecord } from './secrets.ts';
import { ReleaseStatus, type HistoryOptions, type Release, type ReleaseSummary } from './types.ts';

/** Reads records through a RecordClient, noting what it lists in the store's RecordCache. */
export class RecordReader {
  readonly #records: RecordClient;
  readonly #cache: RecordCache;
  readonly #namespace: string;
  readonly #maxRecordBytes: number;
  /** Payloads found to inflate past the bound, not inflated again. */
  readonly #oversized = new OversizedPayloads();

  constructor(records: RecordClient, cache: RecordCache, namespace: string, maxRecordBytes: number) {
    this.#records = records;
    this.#cache = cache;
    this.#namespace = namespace;
    this.#maxRecordBytes = maxRecordBytes;
  }

  /** All revisions of `extension`, newest first (ReleaseStore.history). */
  async history(extension: string, o: HistoryOptions = {}): Promise<Release[]> {
    const indexes = await this.#indexes(extension, o.signal);
    const releases =
      o.admit === undefined ? await this.#decodeEach(extension, indexes, o) : await this.#readThenAdmit(extension, indexes, o.admit, o);
    return releases.sort((a, b) => b.revision - a.revision);
  }

  /** One revision at a time (its chunks in parallel): a large history is never in memory twice. */
  async #decodeEach(extension: string, indexes: readonly IndexRecord[], o: HistoryOptions): Promise<Release[]> {
    const releases: Release[] = [];
    for (const index of indexes) releases.push(await this.#decode(index, extension, await this.#payload(index, extension, o.signal), o.spill));
    return releases;
  }

  /**
   * Every compressed payload first (a fraction of what they decode to), then one admission of
   * all they decode to, then the decoding: a caller that waits for memory waits once.
   */
  async #readThenAdmit(
    extension: string,
    indexes: readonly IndexRecord[],
    admit: (bytes: number) => Promise<void>,
    o: HistoryOptions,
  ): Promise<Release[]> {
    const read: { index: IndexRecord; payload: Buffer }[] = [];
    for (const index of indexes) read.push({ index, payload: await this.#payload(index, extension, o.signal) });
    if (read.length > 0) await admit(read.reduce((n, r) => n + decodedSize(r.payload), 0));
    const releases: Release[] = [];
    for (const r of read.splice(0)) releases.push(await this.#decode(r.index, extension, r.payload, o.spill));
    return releases;
  }

  /** The deployed revision of `extension` without its objects (ReleaseStore.deployed). */
  async deployed(extension: string, signal?: AbortSignal): Promise<ReleaseSummary | undefined> {
    const parsed = (await this.#indexes(extension, signal)).sort((a, b) => b.revision - a.revision);
    // The status labels name the candidates; a label that disagrees with its record (a write
    // interrupted between the two) falls back to reading every revision, newest first.
    const labelled = parsed.filter((i) => i.status === ReleaseStatus.Deployed);
    for (const candidates of [labelled, parsed.filter((i) => i.status !== ReleaseStatus.Deployed)]) {
      for (const index of candidates) {
        const where = describeSecret(this.#namespace, index.key);
        const payload = await this.#payload(index, extension, signal);
        const summary = await this.#bounded(payload, where, () => decodeReleaseSummary(payload, where, index.extensionUID, this.#maxRecordBytes));
        this.#checkHolds(index, extension, summary);
        if (summary.status === ReleaseStatus.Deployed) return summary;
      }
    }
    return undefined;
  }

  /** Names of all extensions that have records (ReleaseStore.list). */
  async list(signal?: AbortSignal): Promise<string[]> {
    const indexes = await this.#records.list({ [Label.type]: 'index' }, signal);
    const names = new Set<string>();
    for (const obj of indexes) {
      const name = obj.metadata.labels?.[Label.name];
      if (name !== undefined && name !== '') names.add(name);
    }
    return [...names].sort();
  }

  /** The index Secrets of `extension`, parsed, after noting their layouts and keys in the cache. */
  async #indexes(extension: string, signal?: AbortSignal): Promise<IndexRecord[]> {
    checkExtension(extension);
    const indexes = await this.#records.list({ [Label.name]: extension, [Label.type]: 'index' }, signal);
    for (const obj of indexes) this.#cache.remember(obj);
    this.#cache.listed(extension, indexes);
    return indexes.map((obj) => parseIndexSecret(obj, this.#namespace));
  }

  /** The joined compressed pieces of a revision (RecordClient.readPayload), once its name is checked. */
  async #payload(index: IndexRecord, extension: string, signal?: AbortSignal): Promise<Buffer> {
    if (index.key !== releaseKey(extension, index.revision) || !isKeyOf(index.key, extension)) {
      const where = describeSecret(this.#namespace, index.key);
      throw new Error(`release record ${where} is corrupt: its name does not match revision ${index.revision} of ${JSON.stringify(extension)}`);
    }
    return this.#records.readPayload(index, signal);
  }

  async #decode(index: IndexRecord, extension: string, payload: Buffer, spill?: ManifestSpill): Promise<Release> {
    const where = describeSecret(this.#namespace, index.key);
    const release = await this.#bounded(payload, where, () => decodeRelease(payload, where, index.extensionUID, spill, this.#maxRecordBytes));
    this.#checkHolds(index, extension, release);
    return release;
  }

  /** `decode` of `payload`, unless it is known to inflate past the bound (then that error at once). */
  async #bounded<T>(payload: Buffer, where: string, decode: () => Promise<T>): Promise<T> {
    this.#oversized.check(payload, where, this.#maxRecordBytes);
    try {
      return await decode();
    } catch (e) {
      return this.#oversized.remember(payload, this.#maxRecordBytes, e);
    }
  }

  /** Throws unless the record under `index` holds that revision of `extension`. */
  #checkHolds(index: IndexRecord, extension: string, held: ReleaseSummary): void {
    if (held.extension !== extension || held.revision !== index.revision) {
      throw new Error(
        `release record ${describeSecret(this.#namespace, index.key)} is corrupt: it holds revision ${held.revision} of ${JSON.stringify(held.extension)}`,
      );
    }
  }
}
