/** `olmv1 status`'s service and report (docs/olmv1-status.md): the command prints it, the console's Cluster page shows it. */
export { collectStatus, currentVersion, type StatusReader } from './collect.ts';
export { STATUS_EXIT, STATUS_SCHEMA_VERSION, StatusReport, buildStatusReport, statusExitCode, type StatusInput } from './report.ts';
