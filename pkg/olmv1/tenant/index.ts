/** What serves a tenant's namespace, for `olmv1 available` and `olmv1 extensions` (decision 0138). */
export { readAvailable, type AvailablePackage } from './available.ts';
export { readRequests, type RequestSummary } from './requests.ts';
