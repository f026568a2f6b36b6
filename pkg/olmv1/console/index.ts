/** `olmv1 console`: a local web console acting with the user's kubeconfig identity (docs/console.md). */
export { buildBundle, ensureBundle } from './bundle.ts';
export { startConsole } from './server.ts';
export { startClusterConsole } from './cluster-server.ts';
export { bearerSignIn, type ReviewAnswer } from './bearer-sign-in.ts';
export { beginSignIn, discover, oidcSignIn, type FetchJson } from './oidc-sign-in.ts';
export type { ConsoleSources } from './sources.ts';
export type { StartWatches } from './live.ts';
export { newSessionSecrets, sessionCookieName } from './security.ts';
export { streamedCatalog } from './catalog-source.ts';
export { consoleWatches, objectWatches } from './watches.ts';
export { tenantSources } from './tenant-sources.ts';
export { podSources } from './pod-sources.ts';
export type { CatalogForm } from './admin.ts';
export { CATALOG_DISPLAY_NAME_ANNOTATION, CATALOG_SOURCE_TYPE_ANNOTATION } from './catalog-badge.ts';
