/**
 * A ClusterCatalog's badge as the console shows it (decision 0148). The rule lives with the
 * install service (pkg/olmv1/install/catalog-badge.ts), which refuses an unacknowledged install
 * from a Community catalog for the console and `olmv1 install` alike.
 */
export { CATALOG_DISPLAY_NAME_ANNOTATION, CATALOG_SOURCE_TYPE_ANNOTATION, catalogBadge, type CatalogBadge } from '../install/index.ts';
