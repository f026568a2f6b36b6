/** pkg/olmv1/uninstall: `olmv1 uninstall`'s service (with --delete-crds), for the command and the console. */
export { previewUninstall, uninstallExtension } from './service.ts';
export { customResourceCount } from './crds.ts';
export type { UninstallEvent } from './types.ts';
