/**
 * The release store over Secrets in the system namespace, in the shape upstream's Helm applier
 * writes and reads (decision 0074).
 *
 * Crash safety: a crash between two Secret writes leaves the old state or the new one visible,
 * and a retry completes it. create: leftover chunks deleted, new chunks, the index last, then
 * the chunks re-owned by it (readers follow indexes only). update: new chunks, the index
 * replaced at its resourceVersion, then the other chunks deleted. deleteAll and pruning:
 * indexes first, oldest first, then chunks. Chunk names hash their bytes, so a retry meets
 * the same names.
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
    deleteAll: (extension, signal, after) => writer.deleteAll(extension, signal, after),
  };
}
