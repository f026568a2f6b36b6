/**
 * The installer RBAC of a bundle (decision 0003): the ServiceAccount and the minimal roles and
 * bindings that let it install, upgrade and uninstall exactly this bundle, with the notes about
 * grants that cannot be derived offline and the grants that amount to privilege escalation.
 * What `olmv1 rbac` prints and `olmv1 install` creates; pure.
 */
import type { KubeObject, RegistryV1Bundle } from '../../operator-controller/bundle/index.ts';
import {
  bundleInstaller,
  rbacEscalationWarnings,
  type CertProviderName,
  type EscalationWarning,
  type RenderOptions,
} from '../../operator-controller/render/index.ts';
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { refusalMessage } from './render-refusal.ts';

/** A bundle's installer RBAC. */
export interface InstallerRbac {
  /** The ServiceAccount, then the roles and bindings, in `olmv1 rbac`'s order. */
  objects: KubeObject[];
  /** Grants that cannot be derived offline. */
  warnings: string[];
  /** Grants that amount to privilege escalation. */
  escalations: EscalationWarning[];
}

/** The render options of an install into `installNamespace` (both feature gates on, as the CLI renders). */
export function installRenderOptions(
  installNamespace: string,
  watchNamespace?: string | undefined,
  certProvider?: CertProviderName | undefined,
): RenderOptions {
  return {
    installNamespace,
    ...(watchNamespace === undefined ? {} : { config: { watchNamespace } }),
    ...(certProvider === undefined ? {} : { certProvider }),
    singleOwnNamespaceSupport: true,
    deploymentConfigSupport: true,
  };
}

/**
 * The installer RBAC of `bundle` rendered with `options` for `serviceAccount`, or why the bundle
 * or its configuration is refused (upstream's message with how to get past it).
 */
export function installerRbac(
  bundle: RegistryV1Bundle,
  options: RenderOptions,
  serviceAccount: string,
  args: { installNamespace: string; certProvider?: CertProviderName | undefined },
): Result<InstallerRbac, string> {
  const installer = bundleInstaller(bundle, options, serviceAccount);
  if (!installer.ok) {
    const failure = installer.error;
    return err('render' in failure ? refusalMessage(failure.render, bundle, args) : failure.rbac);
  }
  const { objects, rendered, warnings } = installer.value;
  // The watch namespace: the configuration's watchNamespace (--watch-namespace merged into it).
  const config = options.config;
  const watch = typeof config === 'object' && config !== null ? (config as Record<string, unknown>)['watchNamespace'] : undefined;
  const escalations = rbacEscalationWarnings(objects, rendered, {
    installNamespace: args.installNamespace,
    ...(typeof watch === 'string' ? { watchNamespace: watch } : {}),
  });
  return ok({ objects, warnings: [...warnings], escalations });
}
