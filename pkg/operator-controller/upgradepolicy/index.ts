/** pkg/operator-controller/upgradepolicy: update policies (decision 0096), pure. */
export { decideUpgrade, policySetting, type PolicySetting } from './policy.ts';
