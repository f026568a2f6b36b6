/**
 * The Install form's request (pure): the fields `olmv1 install` offers, checked, and the request
 * of the install service (pkg/olmv1/install) they make, as `olmv1 install` makes it from its flags.
 */
import { CATALOG_NAME_LABEL } from '../../shared/api/index.ts';
import type { InstallRequest } from '../install/index.ts';

/** The update policies `olmv1 install --update-policy` takes. */
export const UPDATE_POLICIES = ['Automatic', 'AutomaticPatch', 'Manual'] as const;
/** The upgrade constraint policies `olmv1 install --upgrade-constraint-policy` takes. */
export const UPGRADE_CONSTRAINT_POLICIES = ['CatalogProvided', 'SelfCertified'] as const;
/**
 * The install modes the form offers (a CSV's `installModes`): AllNamespaces writes no
 * configuration, OwnNamespace the install namespace as `watchNamespace`, SingleNamespace the
 * namespace named (upstream's `spec.config.inline.watchNamespace`). MultiNamespace is not one: a
 * ClusterExtension names one watch namespace.
 */
export const INSTALL_MODES = ['AllNamespaces', 'OwnNamespace', 'SingleNamespace'] as const;

/** What the form sends. */
export interface InstallForm {
  catalog: string;
  package: string;
  /** The ClusterExtension's name. */
  name: string;
  namespace: string;
  /** '' for every channel. */
  channel: string;
  /** '' for any version. */
  version: string;
  upgradeConstraintPolicy: (typeof UPGRADE_CONSTRAINT_POLICIES)[number];
  updatePolicy: (typeof UPDATE_POLICIES)[number];
  /** The installer: '' for a new least-privilege ServiceAccount NAME-installer, else an existing ServiceAccount of the namespace (`--service-account`). */
  serviceAccount: string;
  installMode: (typeof INSTALL_MODES)[number];
  /** SingleNamespace's watch namespace (`--watch-namespace`); upstream's configuration schema checks it. */
  watchNamespace: string;
  /** Install what the bundle's dependencies need first (`--with-dependencies`). */
  withDependencies: boolean;
  /** The user checked the community warning's box (`--accept-community`; the install service refuses a Community catalog's install without it). */
  acceptCommunity: boolean;
  /** The user checked the box naming the suggested-namespace template's entries that weaken Pod security (`--accept-namespace-labels`; dropped without it). */
  acceptNamespaceLabels: boolean;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The form of a request body, or what is wrong with it. */
export function parseInstallForm(body: unknown): { ok: true; form: InstallForm } | { ok: false; error: string } {
  const b = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const str = (k: string): string => (typeof b[k] === 'string' ? (b[k] as string).trim() : '');
  const form = {
    catalog: str('catalog'),
    package: str('package'),
    name: str('name'),
    namespace: str('namespace'),
    channel: str('channel'),
    version: str('version'),
    upgradeConstraintPolicy: str('upgradeConstraintPolicy') || 'CatalogProvided',
    updatePolicy: str('updatePolicy') || 'Automatic',
    serviceAccount: str('serviceAccount'),
    installMode: str('installMode') || 'AllNamespaces',
    watchNamespace: str('watchNamespace'),
    withDependencies: b['withDependencies'] === true,
    acceptCommunity: b['acceptCommunity'] === true,
    acceptNamespaceLabels: b['acceptNamespaceLabels'] === true,
  };
  if (form.catalog === '' || form.package === '') return { ok: false, error: 'a catalog and a package are required' };
  if (form.name.length > 253 || !DNS_SUBDOMAIN.test(form.name))
    return { ok: false, error: `name ${JSON.stringify(form.name)}: lower-case letters, digits, "-" and "." (a DNS subdomain)` };
  if (form.namespace.length > 63 || !DNS_LABEL.test(form.namespace))
    return { ok: false, error: `namespace ${JSON.stringify(form.namespace)}: lower-case letters, digits and "-", at most 63 (a DNS label)` };
  if (form.channel.includes(',')) return { ok: false, error: 'one channel, or none for every channel' };
  if (form.version.length > 256) return { ok: false, error: 'the version range is too long' };
  if (form.serviceAccount !== '' && (form.serviceAccount.length > 253 || !DNS_SUBDOMAIN.test(form.serviceAccount)))
    return {
      ok: false,
      error: `ServiceAccount ${JSON.stringify(form.serviceAccount)}: lower-case letters, digits, "-" and "." (a DNS subdomain)`,
    };
  const upgradeConstraintPolicy = UPGRADE_CONSTRAINT_POLICIES.find((p) => p === form.upgradeConstraintPolicy);
  if (upgradeConstraintPolicy === undefined)
    return { ok: false, error: `upgrade constraint policy: one of ${UPGRADE_CONSTRAINT_POLICIES.join(', ')}` };
  const updatePolicy = UPDATE_POLICIES.find((p) => p === form.updatePolicy);
  if (updatePolicy === undefined) return { ok: false, error: `update policy: one of ${UPDATE_POLICIES.join(', ')}` };
  const installMode = INSTALL_MODES.find((m) => m === form.installMode);
  if (installMode === undefined) return { ok: false, error: `install mode: one of ${INSTALL_MODES.join(', ')}` };
  if (form.watchNamespace.length > 253) return { ok: false, error: 'the watch namespace is too long' };
  return { ok: true, form: { ...form, upgradeConstraintPolicy, updatePolicy, installMode } };
}

/**
 * The install service's request for `form`, as `olmv1 install --catalog C ...` makes it: a dry
 * run computes the objects (and, with dependencies, lists those it would install first), a real
 * one returns once they are created (no wait; dependencies are waited for, as the command waits).
 */
export function installRequest(form: InstallForm, dryRun: boolean): InstallRequest {
  return {
    extension: {
      name: form.name,
      packageName: form.package,
      namespace: form.namespace,
      serviceAccount: form.serviceAccount === '' ? `${form.name}-installer` : form.serviceAccount,
      channels: form.channel === '' ? [] : [form.channel],
      version: form.version === '' ? undefined : form.version,
      selector: { matchLabels: { [CATALOG_NAME_LABEL]: form.catalog } },
      upgradeConstraintPolicy: form.upgradeConstraintPolicy,
      crdUpgradeSafety: undefined,
      watchNamespace: watchNamespace(form),
      updatePolicy: form.updatePolicy,
    },
    catalog: form.catalog,
    existingServiceAccount: form.serviceAccount !== '',
    dryRun,
    withDependencies: form.withDependencies,
    acceptCommunity: form.acceptCommunity,
    acceptNamespaceLabels: form.acceptNamespaceLabels,
    wait: false,
  };
}

/** The `watchNamespace` the install mode writes (`--watch-namespace`), none for AllNamespaces. */
function watchNamespace(form: InstallForm): string | undefined {
  if (form.installMode === 'OwnNamespace') return form.namespace;
  if (form.installMode === 'SingleNamespace') return form.watchNamespace;
  return undefined;
}
