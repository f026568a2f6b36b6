/** pkg/olmv1/install: `olmv1 install`'s service and the objects it writes, for the command, the console, uninstall and update. */
export {
  INSTALLED_BY_LABEL,
  INSTALLED_FOR_LABEL,
  catalogSource,
  describeObject,
  installObjects,
  installState,
  installedForSelector,
  statusConditions,
  type ExtensionRequest,
} from './objects.ts';
export {
  CATALOG_DISPLAY_NAME_ANNOTATION,
  CATALOG_SOURCE_TYPE_ANNOTATION,
  catalogBadge,
  communityRefusal,
  type CatalogBadge,
} from './catalog-badge.ts';
export { SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION } from './namespace-template.ts';
export type { InstallEvent, InstallPorts, InstallResult } from './ports.ts';
export { installerRbac, installRenderOptions, type InstallerRbac } from './rbac.ts';
export { refusalMessage } from './render-refusal.ts';
export { installExtension, type InstallRequest } from './service.ts';
