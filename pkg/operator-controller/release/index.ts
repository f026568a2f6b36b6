/**
 * pkg/operator-controller/release: Helm release records of ClusterExtensions, stored as
 * upstream's chunked driver stores them (each readable by the other), no Secret exceeding
 * 1 MiB, and read back whole or not at all.
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
export { deployedRelease } from './types.ts';
export { Manifest, identityOf, manifestLine, type ObjectSequence } from './manifest.ts';
export type { ManifestSpill } from './manifest-bytes.ts';
export { Label, RECORD_OWNER, keyLabelValue, releaseKey } from './naming.ts';
export { createReleaseStore } from './store.ts';
export { isReleaseName } from './naming.ts';
export { ReleaseStatus, type HistoryOptions, type Release, type ReleaseBundle, type ReleaseStore, type ReleaseSummary } from './types.ts';
