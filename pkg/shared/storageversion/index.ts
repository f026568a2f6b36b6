/** Storage-version migration of a component's own CRDs (kube-storage-version-migrator's way). */
export { migrateStoredVersions } from './migrate.ts';
