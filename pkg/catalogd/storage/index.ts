export { CONTENT_FILES, type ContentSummary, writeCatalogContent } from './content-writer.ts';
export { GZIP_FRAME_HEAD, GZIP_FRAME_TAIL, frameDeflateInPlace } from './gzip-framing.ts';
export { MAX_PACKAGE_GZIP, type PackageGzip } from './gzip-segments.ts';
export { CatalogContentError, type CatalogLayers } from './catalog-layers.ts';
export { INGEST_CHILD_ENVIRONMENT, INGEST_CHILD_FLAGS, createProcessIngest, ingestInProcess, type ProcessIngestOptions } from './ingest.ts';
export { type ContentSource, type IngestFn, LocalDirStore, type LocalDirStoreOptions, type VersionInfo, versionDirName } from './local-dir-store.ts';
export { type ByteRange, MetaIndex, MetaIndexBuilder, type MetaQuery } from './meta-index.ts';
export { type RangeFile, StoredVersion } from './stored-version.ts';
