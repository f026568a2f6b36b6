/**
 * pkg/operator-controller/upgradegate: the cluster-upgrade gate inside operator-controller
 * (controller.ts, steps.ts), composed in cmd/operator-controller/upgradegate.ts.
 */
export { GATE_KEY, GateReconciler, UPGRADE_GATE_NAME, gateKeys, gateRateLimiter } from './controller.ts';
export { clusterVersionStep, conditionsStep, deployedStep, verdictStep } from './steps.ts';
export { gateMetrics } from './metrics.ts';
export { CLUSTER_VERSION } from './openshift.ts';
export { CRD_TYPE, OPENSHIFT_CRDS, crdApiWatch, crdEventMatters, summarizeCrd } from './apis.ts';
