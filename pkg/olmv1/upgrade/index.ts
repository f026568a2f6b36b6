/** pkg/olmv1/upgrade: `olmv1 upgrade plan|approve`'s services, for the commands and the console. */
export { approveUpgrade, type ApproveResult } from './approve.ts';
export { formatGates, planGates } from './gates.ts';
export { pickReason, planUpgrade, type UpgradePlan, type UpgradePlanResult } from './plan.ts';
export type { UpgradeDeps } from './ports.ts';
export { grantUpgradeRbac } from './rbac.ts';
export { approvalLines } from './text.ts';
