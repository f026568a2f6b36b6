/**
 * The cluster-wide proxy operator-controller sets in installed operators' Deployments
 * (decision 0132): the OpenShift Proxy object where served, else its own proxy environment.
 */
export { OPENSHIFT_PROXY } from './proxy-object.ts';
export { WatchedClusterProxy, fixedClusterProxy, type ClusterProxySource } from './source.ts';
