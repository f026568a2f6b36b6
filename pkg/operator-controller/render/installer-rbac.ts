/**
 * A bundle's installer: the ServiceAccount and least-privilege RBAC that let it install,
 * upgrade and uninstall exactly this bundle rendered with these options (decision 0003). What
 * `olmv1 rbac` prints, `olmv1 install` creates and the tenant controller makes for a request
 * (decision 0138): one computation, so they cannot drift apart.
 */
import type { KubeObject, RegistryV1Bundle } from '../bundle/index.ts';
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { computeInstallRbac } from './rbac-for-install.ts';
import { render } from './render.ts';
import { staticKindScopes } from './resource-mapping.ts';
import type { RenderFailure, RenderOptions } from './types.ts';

/** A bundle's installer objects, with the rendered bundle they were computed from. */
export interface BundleInstaller {
  /** The ServiceAccount, then the (Cluster)Roles and bindings, named `olmv1-installer:<ns>:<sa>:<bundle>`. */
  objects: KubeObject[];
  /** Notes about grants that cannot be derived offline (roles bound but not shipped). */
  warnings: string[];
  /** The bundle's objects as rendered for `options`. */
  rendered: KubeObject[];
  /** The name distinguishing this bundle in the objects' names (its CSV's name). */
  bundleName: string;
}

/** Why no installer was computed: the bundle does not render with these options, or an object cannot be authorized. */
type InstallerFailure = { render: RenderFailure } | { rbac: string };

/** Renders `bundle` with `options` and computes the installer `serviceAccount` (in `options.installNamespace`) needs. */
export function bundleInstaller(bundle: RegistryV1Bundle, options: RenderOptions, serviceAccount: string): Result<BundleInstaller, InstallerFailure> {
  const rendered = render(bundle, options);
  if (!rendered.ok) return err({ render: rendered.error });
  const bundleName = bundle.csv.metadata?.name ?? bundle.packageName;
  const rbac = computeInstallRbac(rendered.value, {
    installNamespace: options.installNamespace,
    serviceAccountName: serviceAccount,
    bundleName,
    mapper: staticKindScopes(bundle.crds),
  });
  if (!rbac.ok) return err({ rbac: rbac.error });
  return ok({ objects: rbac.value.objects, warnings: rbac.value.warnings, rendered: rendered.value, bundleName });
}
