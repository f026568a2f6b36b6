/**
 * pkg/olmv1/in-cluster: the product as it ships, on a local control plane with a real node
 * (issue #43), with its add-ons, or the reason a Pod cannot start.
 */
export { deployCertManager, deployServiceCaStandIn, SELF_SIGNED_CLUSTER_ISSUER } from './addons.ts';
export { deployInCluster, startNodeRegistry, type InCluster } from './deploy.ts';
export { CONSOLE_SERVICE, DEPLOYMENTS, renderOverlay, SYSTEM_NAMESPACE } from './overlay.ts';
export { CERT_MANAGER_NAMESPACE, SERVICE_CA_NAMESPACE, SERVICE_CA_SECRET, serviceCaManifests } from './addon-manifests.ts';
export { waitForDeployments, type Kubectl } from './wait-available.ts';
