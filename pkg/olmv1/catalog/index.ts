/** ClusterCatalog administration as `olmv1 catalog add|remove` and the console's Catalogs page do it. */
export { catalogManifest, createCatalog, deleteCatalog, type CatalogWrite } from './admin.ts';
