/**
 * The Extension a tenant's install asks for from the console's install form (issue 73, decision
 * 0138): the package and, optionally, a version range and one channel; the namespace is the
 * request's own, and no ServiceAccount is named, so the tenant controller makes the
 * least-privilege installer for it. The same request `olmv1 install` makes as a tenant.
 */
import type { KubeObject } from '../../shared/kube/index.ts';
import type { ExtensionRequest } from '../install/index.ts';
import { tenantRequest } from './install.ts';

/** What the form says; `version` and `channel` empty or undefined: any. */
interface RequestForm {
  namespace: string;
  name: string;
  packageName: string;
  version?: string | undefined;
  channel?: string | undefined;
}

/** The install `f` asks for, as `olmv1 install --tenant` would ask it (no selector: every catalog). */
export function extensionInstallRequest(f: RequestForm): ExtensionRequest {
  const version = f.version?.trim() ?? '';
  const channel = f.channel?.trim() ?? '';
  return {
    name: f.name,
    namespace: f.namespace,
    packageName: f.packageName,
    serviceAccount: '',
    channels: channel === '' ? [] : [channel],
    version: version === '' ? undefined : version,
    selector: undefined,
    upgradeConstraintPolicy: undefined,
    crdUpgradeSafety: undefined,
    watchNamespace: undefined,
  };
}

/** The Extension object `f` asks for. */
export function extensionRequest(f: RequestForm): KubeObject {
  return tenantRequest({ existingServiceAccount: false, request: extensionInstallRequest(f) });
}
