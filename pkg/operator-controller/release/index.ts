/**
 * pkg/operator-controller/release: Helm release records of ClusterExtensions. Every install or upgrade is a
 * numbered revision with a status, stored as Helm's release JSON, gzip'd and split across
 * Secrets in the system namespace as upstream's chunked driver stores it (so that upstream
 * reads ours and we read upstream's), no Secret exceeding 1 MiB with all overhead counted, and
 * read back whole or not at all.
 */
export {
  CHUNK_SIZE,
  MAX_CHUNKS,
  ReleaseTooLargeError,
  SECRET_SIZE_LIMIT,
  SERVER_ADDED_ALLOWANCE,
  decodeRelease,
  encodeRelease,
  releaseJson,
  serializedSize,
  splitPayload,
} from './codec.ts';
export { deployedRelease, revisionsToPrune, type RevisionEntry } from './history.ts';
export {
  BundleKey,
  CHUNK_SECRET_TYPE,
  INDEX_SECRET_TYPE,
  Label,
  RECORD_OWNER,
  base32Hash,
  bundleMetadata,
  chunkSecretName,
  fnv64a,
  isLabelValue,
  keyLabelValue,
  releaseKey,
} from './naming.ts';
export { createReleaseStore, isReleaseName } from './store.ts';
export { ReleaseStatus, type Release, type ReleaseBundle, type ReleaseStore, type ReleaseStoreOptions } from './types.ts';
