/**
 * pkg/operator-controller/upgradegate: the cluster-upgrade gate inside operator-controller. Reads deployed
 * releases and the cluster version, publishes the pkg/operator-controller/gating verdict as metrics and, where the
 * OpenShift APIs exist, as the OLM `cluster` and `olm` ClusterOperator conditions. Composed in
 * cmd/operator-controller.
 */
export { GATING_FIELD_MANAGER, GatingController, affectsGate, type GatingControllerOptions } from './controller.ts';
export { gateMetrics, type GateMetrics } from './metrics.ts';
export {
  CLUSTER_VERSION,
  OLM_CLUSTER_OPERATOR,
  OLM_OPERATOR,
  conditionsOf,
  desiredVersion,
  served,
  setCondition,
  type SetOutcome,
} from './openshift.ts';
