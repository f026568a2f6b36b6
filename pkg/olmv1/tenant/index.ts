/** What serves a tenant's namespace, for `olmv1 available`, `olmv1 extensions` and the console (decision 0138). */
export { readAvailable, type AvailablePackage } from './available.ts';
export { readRequests, type RequestSummary } from './requests.ts';
export { extensionInstallRequest, extensionRequest } from './request.ts';
export { installsAsTenant, requestTenantInstall, tenantCommunityRefusal, tenantRequest, tenantState, type TenantInstallEvent } from './install.ts';
export { catalogsServing } from './served-by.ts';
