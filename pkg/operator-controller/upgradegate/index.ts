/**
 * pkg/operator-controller/upgradegate: the cluster-upgrade gate inside operator-controller
 * (controller.ts, steps.ts), composed in cmd/operator-controller/upgradegate.ts.
 */
export { GATE_KEY, GATE_PACE_MS, GateReconciler, UPGRADE_GATE_NAME, gateKeys, gateRateLimiter } from './controller.ts';
export { clusterVersionStep, conditionsStep, deployedStep, gateMetrics, verdictStep } from './steps.ts';
export { CLUSTER_VERSION, CRD_TYPE, OPENSHIFT_CRDS, crdApiWatch, crdEventMatters, summarizeCrd } from './openshift.ts';
export { holdsStep } from './holds.ts';
