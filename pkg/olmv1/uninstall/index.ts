/** pkg/olmv1/uninstall: `olmv1 uninstall`'s service (with --delete-crds), for the command and the console. */
export { previewUninstall, uninstallExtension } from './service.ts';
export { catalogBundleProperties } from './catalog-properties.ts';
export { customResourceCount } from './crds.ts';
export { describeInstallerObject, listInstallerObjects } from './installer.ts';
export type { UninstallEvent, UninstallOutcome } from './types.ts';
