/** `olmv1 update`'s service: what a ClusterExtension asks its catalogs for, changed by one tested JSON patch. */
export { catalogChanges, jsonPatch, updateExtension, type CatalogFields, type UpdateResult } from './update.ts';
