/**
 * pkg/operator-controller/dependencyview: the cluster as resolution sees it, between the
 * ClusterExtension steps and pkg/operator-controller/dependencies: the catalogs an extension
 * selects and their package content, the index of installed extensions (what each provides and
 * requires), the dependency check over them, the dependents an upgrade must not break, and the
 * catalog events that wake the extensions using a catalog.
 */
export { watchCatalogEvents } from './catalog-events.ts';
export { type CatalogSource, contentRef, selectedCatalogs, selectedPackageNames } from './catalogs.ts';
export { upgradeHold } from './dependents.ts';
export { DependencyGauge } from './gauge.ts';
export { InstalledIndex } from './installed-index.ts';
export { type DependencyPorts, dependencyCheck, dependentsToWake, isDependencyText, providersText, unmetProviders } from './view.ts';
