/**
 * pkg/operator-controller/gating: cluster-upgrade gating from `olm.maxOpenShiftVersion`
 * (decision 0046): cluster versions, the property parser, the compatibility rule, the verdict over
 * all deployed extensions and the OpenShift conditions it becomes. Pure: data in, data out; the
 * controller that reads releases and writes conditions is pkg/operator-controller/upgradegate.
 */
export {
  clusterOperatorUpgradeable,
  evaluateGate,
  olmUpgradeableCondition,
  type DeployedExtension,
  type GateCondition,
  type GateVerdict,
} from './verdict.ts';
export { formatMinor, nextMinorVersion, parseClusterVersion, type ClusterMinor } from './version.ts';
