/**
 * pkg/operator-controller/gating: cluster-upgrade gating from `olm.maxOpenShiftVersion`
 * (decision 0046), pure; the controller is pkg/operator-controller/upgradegate.
 */
export {
  clusterOperatorUpgradeable,
  evaluateGate,
  memoizedBundleCheck,
  olmUpgradeableCondition,
  type DeployedExtension,
  type GateCondition,
  type GateVerdict,
} from './verdict.ts';
export { formatMinor, nextMinorVersion, parseClusterVersion, type ClusterMinor } from './version.ts';
