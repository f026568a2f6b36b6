/**
 * Null-safe accessors for the CSV fields rendering reads (absent and `null` both mean
 * "empty", as with Go's zero values).
 */
import type { ClusterServiceVersion, StrategyDeployment, StrategyPermission, WebhookDescription } from '../bundle/index.ts';

/** `metadata.name`, or "". */
export function csvName(csv: ClusterServiceVersion): string {
  return csv.metadata?.name ?? '';
}

/** `metadata.annotations` (after the olm.properties merge), or {}. */
export function csvAnnotations(csv: ClusterServiceVersion): Readonly<Record<string, string>> {
  return csv.metadata?.annotations ?? {};
}

/** `spec.install.spec.deployments`. */
export function strategyDeployments(csv: ClusterServiceVersion): readonly StrategyDeployment[] {
  return csv.spec?.install?.spec?.deployments ?? [];
}

/** `spec.install.spec.permissions`. */
export function permissions(csv: ClusterServiceVersion): readonly StrategyPermission[] {
  return csv.spec?.install?.spec?.permissions ?? [];
}

/** `spec.install.spec.clusterPermissions`. */
export function clusterPermissions(csv: ClusterServiceVersion): readonly StrategyPermission[] {
  return csv.spec?.install?.spec?.clusterPermissions ?? [];
}

/** `spec.webhookdefinitions`. */
export function webhookDefinitions(csv: ClusterServiceVersion): readonly WebhookDescription[] {
  return csv.spec?.webhookdefinitions ?? [];
}

/** Names of `spec.customresourcedefinitions.owned`. */
export function ownedCrdNames(csv: ClusterServiceVersion): string[] {
  return (csv.spec?.customresourcedefinitions?.owned ?? []).map((o) => o.name);
}

/** Number of `spec.apiservicedefinitions.owned` entries. */
export function ownedApiServiceCount(csv: ClusterServiceVersion): number {
  return csv.spec?.apiservicedefinitions?.owned?.length ?? 0;
}

/** Install mode types marked `supported: true`. */
export function supportedInstallModes(csv: ClusterServiceVersion): Set<string> {
  const out = new Set<string>();
  for (const mode of csv.spec?.installModes ?? []) if (mode.supported) out.add(mode.type);
  return out;
}

/** A permission's service account name, `default` when empty (upstream `saNameOrDefault`). */
export function saNameOrDefault(permission: StrategyPermission): string {
  const name = permission.serviceAccountName ?? '';
  return name === '' ? 'default' : name;
}
