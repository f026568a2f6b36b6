/**
 * pkg/operator-controller/upgradepolicy: update policies (decision 0096), pure. Which policy
 * an extension's annotations ask for, and whether a move to the resolved bundle happens now or
 * waits for an approval naming that bundle.
 */
export { decideUpgrade, policySetting, type PolicySetting } from './policy.ts';
