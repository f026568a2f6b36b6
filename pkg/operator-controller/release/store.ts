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
 *
 * The store is assembled from named parts, each a class because it keeps state or holds its
 * collaborators: RecordClient (the Secret calls), RecordCache (what this process knows of the
 * Secrets), RecordReader (history, deployed, list) and RecordWriter (create, update, deleteAll,
 * pruning).
 */
import { MAX_RECORD_JSON_BYTES } from './codec.ts';
import { RecordCache } from './record-cache.ts';
import { RecordClient } from './record-client.ts';
import { RecordReader } from './record-reader.ts';
import { RecordWriter } from './record-writer.ts';
import type { ReleaseStore, ReleaseStoreOptions } from './types.ts';

/** Creates the Secret-backed release store. Throws on invalid options (negative maxHistory). */
export function createReleaseStore(options: ReleaseStoreOptions): ReleaseStore {
  const { client, namespace } = options;
  const maxHistory = options.maxHistory ?? 10;
  if (!Number.isSafeInteger(maxHistory) || maxHistory < 0) throw new Error(`maxHistory must be a non-negative integer, got ${maxHistory}`);
  const maxRecordBytes = options.maxRecordBytes ?? MAX_RECORD_JSON_BYTES;
  if (!Number.isSafeInteger(maxRecordBytes) || maxRecordBytes < 1)
    throw new Error(`maxRecordBytes must be a positive integer, got ${maxRecordBytes}`);
  const records = new RecordClient(client, namespace);
  const cache = new RecordCache(namespace);
  const reader = new RecordReader(records, cache, namespace, maxRecordBytes);
  const writer = new RecordWriter({ records, cache, namespace, maxHistory, now: options.now ?? (() => new Date()), log: options.log });
  return {
    history: (extension, options) => reader.history(extension, options),
    deployed: (extension, signal) => reader.deployed(extension, signal),
    list: (signal) => reader.list(signal),
    create: (release, signal) => writer.create(release, signal),
    update: (release, signal) => writer.update(release, signal),
    deleteAll: (extension, signal) => writer.deleteAll(extension, signal),
  };
}
