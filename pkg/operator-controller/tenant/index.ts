/**
 * pkg/operator-controller/tenant: tenants install what the administrator allows (issue 73,
 * decision 0138). Namespaced Extension requests, judged by cluster ExtensionPolicies (policy.ts,
 * pure), each turned into a ClusterExtension and a least-privilege installer the controller owns
 * by labels (naming.ts, desired.ts), with status mirrored back (status.ts).
 */
export { TENANT_CONTROLLER_NAME, createTenantController } from './controller.ts';
export { clusterExtensionName, installerServiceAccountName } from './naming.ts';
export { installerOf, resolveRequest } from './sources.ts';
