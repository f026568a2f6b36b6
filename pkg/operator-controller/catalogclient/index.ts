/** Client of catalogd's content HTTP API (client.ts) and the content cache operator-controller resolves from (cache.ts). */
export { type CatalogClient, type CatalogClientOptions, createCatalogClient } from './client.ts';
export { type CatalogContentCache, type CatalogRef, createCatalogContentCache } from './cache.ts';
