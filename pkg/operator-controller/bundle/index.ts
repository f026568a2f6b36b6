/**
 * registry+v1 bundles: parsing a bundle's files into its CSV, CRDs and other objects.
 * Pure except `readBundleDir`, the filesystem edge.
 */
export { ClusterServiceVersion, PolicyRule, StrategyDeployment, StrategyPermission, WebhookDescription } from './csv-schema.ts';
export { bundleImageContent } from './image-content.ts';
export { goJsonMarshal, goJsonString } from './go-json.ts';
export { parseBundle } from './parse-bundle.ts';
export { otherLineFinder, takeOtherObject } from './other-lines.ts';
export { OLM_PROPERTIES_ANNOTATION } from './properties.ts';
export { bundleDirBytes, readBundleDir } from './read-bundle-dir.ts';
export type { BundleFiles, CustomResourceDefinition, JsonObject, KubeObject, RegistryV1Bundle } from './types.ts';
export { decodeDocuments, decodeSingleDocument, decodeUtf8 } from '../../gocompat/goyaml/index.ts';
