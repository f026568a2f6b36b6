/**
 * Pre-render gates: bundle features this product refuses before rendering, checked in
 * upstream's order with upstream's messages. None of them is terminal.
 */
import type { ClusterServiceVersion } from '../bundle/index.ts';
import { ownedApiServiceCount, supportedInstallModes, webhookDefinitions } from './csv-access.ts';

/** Which optional features are on. */
interface GateOptions {
  webhookSupport: boolean;
  hasCertProvider: boolean;
  singleOwnNamespaceSupport: boolean;
}

/** The first gate the CSV fails, as upstream's message, or undefined. */
export function checkPreRenderGates(csv: ClusterServiceVersion, opts: GateOptions): string | undefined {
  if (ownedApiServiceCount(csv) > 0) {
    // "Defintions" is upstream's spelling.
    return 'unsupported bundle: apiServiceDefintions are not supported';
  }
  if (webhookDefinitions(csv).length > 0) {
    if (!opts.webhookSupport) return 'unsupported bundle: webhookDefinitions are not supported';
    if (!opts.hasCertProvider) return 'unsupported bundle: webhookDefinitions are not supported: certificate provider is nil';
  }
  const modes = supportedInstallModes(csv);
  if (!opts.singleOwnNamespaceSupport && !modes.has('AllNamespaces')) {
    return 'unsupported bundle: bundle does not support AllNamespaces install mode';
  }
  if (!modes.has('AllNamespaces') && !modes.has('SingleNamespace') && !modes.has('OwnNamespace')) {
    return 'unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes';
  }
  return undefined;
}
