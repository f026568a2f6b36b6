export { GZIP_FRAME_HEAD, GZIP_FRAME_TAIL, frameDeflateInPlace } from './gzip-framing.ts';
export { type PackageGzip } from './gzip-segments.ts';
export { CatalogContentError } from './catalog-layers.ts';
export { createProcessIngest, ingestInProcess } from './ingest.ts';
export { type ContentSource, LocalDirStore } from './local-dir-store.ts';
export { type ByteRange } from './meta-index.ts';
export { type RangeFile, StoredVersion, type VersionInfo } from './stored-version.ts';
