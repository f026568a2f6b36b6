/** The install service's ExtensionRequest for `name` (package, namespace and `NAME-installer` alike, nothing else set), with `more`. */
import type { ExtensionRequest } from '../../pkg/olmv1/install/index.ts';

export function extensionRequest(name: string, more: Partial<ExtensionRequest> = {}): ExtensionRequest {
  return {
    name,
    packageName: name,
    namespace: name,
    serviceAccount: `${name}-installer`,
    channels: [],
    version: undefined,
    selector: undefined,
    upgradeConstraintPolicy: undefined,
    crdUpgradeSafety: undefined,
    watchNamespace: undefined,
    ...more,
  };
}
