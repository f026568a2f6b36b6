/**
 * Whose identity installs an extension (decision 0073): the ServiceAccount `spec.serviceAccount`
 * names in `spec.namespace` (the scoped model, our default), or, when the spec names none
 * (upstream's current YAML), the default install ServiceAccount the administrator deployed
 * operator-controller with (`--default-install-service-account NAMESPACE/NAME`). With neither,
 * there is no installer and the extension waits with a message that names both ways out.
 */
import type { ClusterExtensionSpec } from '../../shared/api/index.ts';

/** A ServiceAccount by namespace and name. */
export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

/** The identity that reads and writes an extension's objects. */
export interface Installer extends ServiceAccountRef {
  /** True when it is operator-controller's default, not the extension's own ServiceAccount. */
  isDefault: boolean;
}

/** The installer of an extension with `spec`; undefined when there is none. */
export function installerOf(spec: Pick<ClusterExtensionSpec, 'namespace' | 'serviceAccount'>, fallback?: ServiceAccountRef): Installer | undefined {
  if (spec.serviceAccount !== undefined) return { namespace: spec.namespace, name: spec.serviceAccount.name, isDefault: false };
  return fallback === undefined ? undefined : { ...fallback, isDefault: true };
}

/**
 * Parses `NAMESPACE/NAME` (the flag's value); returns an error message for anything else.
 * Both parts must be DNS-1123 names, as a namespace and a ServiceAccount name are.
 */
export function parseServiceAccountRef(value: string): { ok: true; value: ServiceAccountRef } | { ok: false; error: string } {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(value);
  if (m === null || (m[1] ?? '').length > 63 || (m[3] ?? '').length > 253) {
    return { ok: false, error: `invalid ServiceAccount ${JSON.stringify(value)}: expected NAMESPACE/NAME` };
  }
  return { ok: true, value: { namespace: m[1] ?? '', name: m[3] ?? '' } };
}

/** Why an extension without `spec.serviceAccount` cannot be installed, and the two ways out. */
export function noInstallerMessage(installNamespace: string): string {
  return (
    `spec.serviceAccount is not set and operator-controller has no default install service account: ` +
    `set spec.serviceAccount.name to a ServiceAccount in namespace ${JSON.stringify(installNamespace)} with the RBAC that "olmv1 rbac" prints, ` +
    `or deploy operator-controller with --default-install-service-account NAMESPACE/NAME (the config/default-installer component)`
  );
}

/**
 * Whose identity writes a ClusterObjectSet's objects (BoxcutterRuntime, decision 0125): the
 * installer of the ClusterExtension its owner-name label names (its spec.serviceAccount, else
 * the default), or, for a revision no extension made, the default installer. Throws, saying
 * why and what to do, when there is none.
 */
export function revisionInstaller(
  revision: { name: string; owner: string | undefined },
  extensionSpec: (name: string) => Pick<ClusterExtensionSpec, 'namespace' | 'serviceAccount'> | undefined,
  fallback: ServiceAccountRef | undefined,
): ServiceAccountRef {
  if (revision.owner !== undefined) {
    const spec = extensionSpec(revision.owner);
    if (spec === undefined)
      throw new Error(`ClusterExtension ${JSON.stringify(revision.owner)} of ClusterObjectSet ${JSON.stringify(revision.name)} not found`);
    const installer = installerOf(spec, fallback);
    if (installer === undefined) throw new Error(noInstallerMessage(spec.namespace));
    return installer;
  }
  if (fallback !== undefined) return fallback;
  throw new Error(
    `ClusterObjectSet ${JSON.stringify(revision.name)} belongs to no ClusterExtension and operator-controller has no default install service account: ` +
      'start operator-controller with --default-install-service-account=NAMESPACE/NAME to let it write such revisions as that ServiceAccount',
  );
}
