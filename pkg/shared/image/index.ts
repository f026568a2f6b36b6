/**
 * OCI image client: pull (with digest-keyed unpack cache), read into memory, build, push.
 * Public surface of `pkg/shared/image`.
 */
export { createImageClient, type ImageClient, type ImageClientOptions } from './client.ts';
export {
  buildCatalogImage,
  buildImage,
  buildIndex,
  buildLayer,
  filesToEntries,
  rawLayer,
  type BuildImageOptions,
  type BuiltBlob,
  type BuiltImage,
  type BuiltIndex,
  type BuiltLayer,
  type ImageFormat,
  type LayerCompression,
} from './build.ts';
export { createDiskImageCache, type CacheEntry, type ImageCache } from './cache.ts';
export {
  credentialsFor,
  dockerConfigFromSecret,
  mergeDockerConfigs,
  parseDockerConfigJson,
  parseDockercfg,
  type DockerConfig,
  type RegistryCredentials,
  type SecretPayload,
} from './docker-config.ts';
export { chunksOf } from './decompress.ts';
export { isDigest, sha256Digest } from './digest.ts';
export type { ResolvedReference } from './image-source.ts';
export { MediaTypes, type ImageConfig, type Platform } from './manifest.ts';
export { readLayerEntries, type LayerEntry } from './layer-entries.ts';
export { CATALOG_CONFIGS_LABEL, onlyPath, type EntryFilter } from './path-filter.ts';
export { BUNDLE_IMAGE_LIMITS, CATALOG_IMAGE_LIMITS, ImageLimitError, type ImageLimitKind, type ImageLimits } from './limits.ts';
export { type ImageFiles, type OpenedImage, type OpenedLayer, type PullOptions, type PullResult } from './puller.ts';
export { canonicalReference, formatReference, parseImageReference, requireTagOrDigest, type ImageReference } from './reference.ts';
export { RegistryError, type RegistryErrorEntry } from './registry-error.ts';
export { RegistryBlockedError } from './pull-sources.ts';
export { loadRegistriesConf, type RegistriesConfLocation, type RegistriesConfPaths } from './registries-conf-load.ts';
export type { RegistriesConf } from './registries-conf.ts';
export type { PullFromMirror, RegistryMirror, RegistryTable } from './registries-conf-file.ts';
export { tarHeaderBlock, type TarWriteEntry } from './tar-writer.ts';
export { RegistryTimeoutError, type RegistryTimeoutPhase } from './timeout.ts';
