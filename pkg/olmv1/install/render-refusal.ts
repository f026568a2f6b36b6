/**
 * A render refusal as olmv1 reports it (`render bundle`, `rbac`, `install`): upstream's message,
 * then on its own line how to get past it.
 */
import type { RegistryV1Bundle } from '../../operator-controller/bundle/index.ts';
import { watchNamespaceHint, type CertProviderName, type RenderFailure } from '../../operator-controller/render/index.ts';

const WEBHOOK_REFUSAL = 'unsupported bundle: webhookDefinitions are not supported';

/**
 * Upstream's message, then for a bundle with webhooks rendered without a certificate provider,
 * the flag that provides one; for one that cannot watch all namespaces rendered without a watch
 * namespace, the --watch-namespace to pass (pkg/operator-controller/render watchNamespaceHint).
 */
export function refusalMessage(
  failure: RenderFailure,
  bundle: RegistryV1Bundle,
  args: { certProvider?: CertProviderName | undefined; installNamespace: string },
): string {
  const message = failure.message;
  if (args.certProvider === undefined && message.startsWith(WEBHOOK_REFUSAL)) {
    return `${message}\n(the bundle has webhooks: render it with --cert-provider cert-manager or --cert-provider openshift-service-ca)`;
  }
  const hint = watchNamespaceHint(failure, bundle, args.installNamespace, 'cli');
  return hint === undefined ? message : `${message}\n${hint}`;
}
