/**
 * Client of catalogd's content HTTP API: one package's partition of a served catalog, read
 * through `/api/v1/metas` (see client.ts for the requests made and the error texts), and the
 * content cache operator-controller resolves from (cache.ts).
 */
export { type CatalogClient, type CatalogClientOptions, createCatalogClient } from './client.ts';
export { type CatalogContentCache, type CatalogRef, createCatalogContentCache } from './cache.ts';
