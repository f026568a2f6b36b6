/**
 * File-based catalogs: streaming decoding of FBC directories and streams into Metas, typed
 * loading into a DeclarativeConfig, and `opm validate`'s checks. Decoding and validation follow
 * operator-registry exactly (error texts included); see docs/decisions/0020-0022.
 */
export type { Bundle, DeclarativeConfig, Deprecation, JsonValue, Meta } from './types.ts';
export { FbcLoadError } from './errors.ts';
export { DEFAULT_DECODE_LIMITS, type DecodeLimits } from './limits.ts';
export { walkMetas } from './walk.ts';
export { type TreeEntry, walkEntryDocuments } from './entry-walk.ts';
export { parseMetas, parseMetaStream } from './parse-stream.ts';
export { canonicalJson } from './canonical-json.ts';
export { loadFS, loadMetas } from './load.ts';
export { validate } from './validate.ts';
