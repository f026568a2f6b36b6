/** pkg/operator-controller/maintenance: maintenance windows for automatic upgrades (decision 0122), pure. */
export { MAINTENANCE_WINDOW_ANNOTATION, windowSetting } from './setting.ts';
export { formatOpening, parseMaintenanceWindow, windowAt, type MaintenanceWindow } from './window.ts';
