/**
 * pkg/operator-controller/gating: cluster-upgrade gating from `olm.maxOpenShiftVersion`
 * (decision 0046), from API versions the next Kubernetes minor removes and from an operator's
 * `Upgradeable=False` (decision 0118), pure; the controller is pkg/operator-controller/upgradegate.
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
export { formatMinor, nextMinorVersion, parseClusterVersion, parseKubernetesVersion, type ClusterMinor } from './version.ts';
export { removedApiUses, type ObjectIdentity } from './removed-apis.ts';
export { UPGRADEABLE_ANNOTATION, UPGRADEABLE_MESSAGE_ANNOTATION, formatUpgradeHold, upgradeHoldOf, type UpgradeHold } from './upgradeable.ts';
