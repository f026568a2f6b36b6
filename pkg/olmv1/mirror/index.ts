/** pkg/olmv1/mirror: `olmv1 catalog mirror`, a catalog and everything it references copied to a mirror registry, and the configuration that uses it. */
export { clusterCatalog, imageDigestMirrorSet, mappingText, registriesConf } from './config.ts';
export { mirrorCatalog, type MirrorReport } from './mirror.ts';
export { parseMirrorPrefix } from './plan.ts';
