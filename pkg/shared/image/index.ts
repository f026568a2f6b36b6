/**
 * OCI image client: pull (with digest-keyed unpack cache), read into memory, build, push.
 * Public surface of `pkg/shared/image`.
 */
export { createImageClient, type ImageClient, type ImageCopy } from './client.ts';
export { buildCatalogImage, buildImage, buildIndex, buildLayer, filesToEntries, rawLayer, type BuiltImage, type BuiltLayer } from './build.ts';
export { createDiskImageCache, type ImageCache } from './cache.ts';
export { dockerConfigFromSecret, mergeDockerConfigs, parseDockerConfigJson, type DockerConfig } from './docker-config.ts';
export type { ResolvedReference } from './image-source.ts';
export { CATALOG_CONFIGS_LABEL } from './path-filter.ts';
export { BUNDLE_IMAGE_LIMITS, CATALOG_IMAGE_LIMITS, ImageLimitError, type ImageLimits } from './limits.ts';
export { type OpenedImage, type PullOptions, type PullResult } from './puller.ts';
export { canonicalReference, parseImageReference, type ImageReference } from './reference.ts';
export { type RegistriesConfPaths } from './registries-conf-load.ts';
export { SignaturePolicyRejectedError, signaturePolicyDetail } from './signature-check.ts';
export { type SignaturePolicyPaths } from './signature-load.ts';
export { tarHeaderBlock } from './tar-writer.ts';
