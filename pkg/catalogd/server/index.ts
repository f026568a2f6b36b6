export { buildCatalogServer } from './server.ts';
