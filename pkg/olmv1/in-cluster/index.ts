/**
 * pkg/olmv1/in-cluster: the product running as it ships on a local control plane with a real
 * node (issue #43): the project's image, config/ applied through a kustomize overlay that
 * changes only the image (and names the plain-HTTP registry), serving certificates in the
 * Secrets config/ expects, and both Deployments Available, or the reason a Pod cannot start.
 */
export { deployCertManager, deployServiceCaStandIn, SELF_SIGNED_CLUSTER_ISSUER } from './addons.ts';
export { deployInCluster, startNodeRegistry, type InCluster } from './deploy.ts';
export { DEPLOYMENTS, SYSTEM_NAMESPACE } from './overlay.ts';
export { CERT_MANAGER_NAMESPACE, SERVICE_CA_NAMESPACE, SERVICE_CA_SECRET, serviceCaManifests } from './addon-manifests.ts';
export { waitForDeployments, type Kubectl } from './wait-available.ts';
