/**
 * registry+v1 bundles: parsing a bundle's files into its CSV, CRDs and other objects.
 * Pure except `readBundleDir`, the filesystem edge.
 */
export {
  ClusterServiceVersion,
  Container,
  DeploymentSpec,
  InstallMode,
  PodSpec,
  PolicyRule,
  StrategyDeployment,
  StrategyPermission,
  WebhookDescription,
} from './csv-schema.ts';
export { BUNDLE_LAYOUT_LABELS, bundleImageContent, type BundleImageContent } from './image-content.ts';
export { GoJsonUnsupportedValueError, goJsonMarshal, goJsonString } from './go-json.ts';
export { PACKAGE_ANNOTATION, parseBundle } from './parse-bundle.ts';
export { OLM_PROPERTIES_ANNOTATION, mergeOlmProperties } from './properties.ts';
export { MAX_BUNDLE_FILE_BYTES, readBundleDir } from './read-bundle-dir.ts';
export type { BundleFiles, CustomResourceDefinition, JsonObject, KubeObject, ObjectMeta, RegistryV1Bundle } from './types.ts';
export { decodeDocuments, decodeSingleDocument, decodeUtf8 } from '../../gocompat/goyaml/index.ts';
