/**
 * File-based catalogs: streaming decoding of FBC directories and streams into Metas, typed
 * loading into a DeclarativeConfig, and `opm validate`'s checks. Decoding and validation follow
 * operator-registry exactly (error texts included); see docs/decisions/0020-0022.
 */
export type {
  Bundle,
  Channel,
  ChannelEntry,
  DeclarativeConfig,
  Deprecation,
  DeprecationEntry,
  DeprecationReference,
  Icon,
  JsonValue,
  Meta,
  MetaSource,
  Package,
  Property,
  RelatedImage,
} from './types.ts';
export { FbcLoadError } from './errors.ts';
export { DEFAULT_DECODE_LIMITS, type DecodeLimits } from './limits.ts';
export { type MetaEntry, type WalkOptions, type WalkStats, walkMetas } from './walk.ts';
export { NeedsUnpackError, type TreeEntry, walkEntryDocuments } from './entry-walk.ts';
export { type ParseStreamOptions, parseMetas, parseMetaStream } from './parse-stream.ts';
export { isZeroMeta } from './meta.ts';
export { canonicalJson } from './canonical-json.ts';
export { loadFS, loadMetas } from './load.ts';
export { isPropertyValueMissing } from './decode-config.ts';
export { firstValidationError, validate } from './validate.ts';
export { imageReferenceError } from './image-ref.ts';
