/**
 * pkg/operator-controller/release: Helm release records of ClusterExtensions. Every install or upgrade is a
 * numbered revision with a status, stored as Helm's release JSON, gzip'd and split across
 * Secrets in the system namespace as upstream's chunked driver stores it (so that upstream
 * reads ours and we read upstream's), no Secret exceeding 1 MiB with all overhead counted, and
 * read back whole or not at all.
 */
export {
  CHUNK_SIZE,
  MAX_RECORD_JSON_BYTES,
  ReleaseTooLargeError,
  SECRET_SIZE_LIMIT,
  SERVER_ADDED_ALLOWANCE,
  encodeRelease,
  releaseJson,
  serializedSize,
  splitPayload,
} from './codec.ts';
export { deployedRelease } from './history.ts';
export { Manifest, identityOf, manifestLine, type ObjectSequence } from './manifest.ts';
export type { ManifestSpill } from './manifest-bytes.ts';
export { Label, keyLabelValue, releaseKey } from './naming.ts';
export { createReleaseStore } from './store.ts';
export { isReleaseName } from './naming.ts';
export { ReleaseStatus, type HistoryOptions, type Release, type ReleaseBundle, type ReleaseStore, type ReleaseSummary } from './types.ts';
