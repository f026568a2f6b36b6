/**
 * pkg/operator-controller/upgradegate: the cluster-upgrade gate inside operator-controller. Reads deployed
 * releases and the cluster version, publishes the pkg/operator-controller/gating verdict as metrics and, where the
 * OpenShift APIs exist, as the OLM `cluster` and `olm` ClusterOperator conditions. A reconciler
 * over one key (controller.ts) running the steps of steps.ts; its step list and controller are
 * composed in cmd/operator-controller/upgradegate.ts.
 */
export { GATE_KEY, GateReconciler, UPGRADE_GATE_NAME, gateKeys, gateRateLimiter } from './controller.ts';
export { clusterVersionStep, conditionsStep, deployedStep, verdictStep } from './steps.ts';
export { gateMetrics } from './metrics.ts';
export { CLUSTER_VERSION } from './openshift.ts';
export { CRD_TYPE, OPENSHIFT_CRDS, crdApiWatch, crdEventMatters, summarizeCrd } from './apis.ts';
