export { CatalogQueries } from './catalog-queries.ts';
