/** What serves a tenant's namespace, for `olmv1 available`, `olmv1 extensions` and the console (decision 0138). */
export { readAvailable, type AvailablePackage } from './available.ts';
export { readRequests, type RequestSummary } from './requests.ts';
export { extensionRequest } from './request.ts';
export { installsAsTenant, requestTenantInstall, tenantRequest, tenantState, type TenantInstallEvent } from './install.ts';
