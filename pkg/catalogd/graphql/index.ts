export { CatalogQueries, type GraphqlRequest } from './catalog-queries.ts';
