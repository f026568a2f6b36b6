/**
 * pkg/operator-controller/gating: cluster-upgrade gating from `olm.maxOpenShiftVersion`
 * (decision 0046): cluster versions, the property parser, the compatibility rule, the verdict over
 * all deployed extensions and the OpenShift conditions it becomes. Pure: data in, data out; the
 * controller that reads releases and writes conditions is pkg/operator-controller/upgradegate.
 */
export { MAX_OPENSHIFT_VERSION_PROPERTY, checkBundleProperties, formatMaxVersion, parseMaxOpenShiftVersion, type BundleGate } from './max-version.ts';
export {
  GateReason,
  UPGRADEABLE_CONDITION_TYPE,
  clusterOperatorUpgradeable,
  evaluateGate,
  olmUpgradeableCondition,
  type Blocker,
  type DeployedExtension,
  type GateCondition,
  type GateVerdict,
} from './verdict.ts';
export { effectiveCurrentVersion, formatMinor, nextMinorVersion, parseClusterVersion, type ClusterMinor } from './version.ts';
