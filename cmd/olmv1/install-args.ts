/**
 * The arguments of `olmv1 install` (install.ts): its usage text, and the flag parsing `install`
 * and `update` share (channels, the catalog selector, enumerations).
 */
import { CrdUpgradeSafetyEnforcement, UpdatePolicy, UpgradeConstraintPolicy } from '../../pkg/shared/api/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { BUNDLE_IMAGE_LIMITS } from '../../pkg/shared/image/index.ts';
import { IMAGE_LIMIT_FLAGS, imageLimitHelp } from '../shared/limits.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags, type ClusterFlags } from './cluster-access.ts';
import { EXIT } from './io.ts';
import { CATALOG_NAME_LABEL, parseSelectorText, type ExtensionRequest } from './install-objects.ts';
import { REGISTRY_FLAGS, registryFlagsHelp } from './registry-access.ts';
import { CERT_PROVIDERS, CommandError, flagChoice, imageFlags, parseCommandLine, timeoutFlag } from './render.ts';

/** Help lines of `--catalogd-url`, aligned with CLUSTER_FLAGS_HELP. */
export const CATALOGD_URL_HELP = `  --catalogd-url URL         reach catalogd at this origin instead of the ClusterCatalogs'
                             status.urls.base (e.g. through kubectl port-forward)`;

const USAGE = `Usage: olmv1 install PACKAGE [--name NAME] [-n NAMESPACE] [--version RANGE] [-c CHANNEL,...]
         [--catalog NAME | -l SELECTOR] [--upgrade-constraint-policy CatalogProvided|SelfCertified]
         [--crd-upgrade-safety-enforcement Strict|None] [--watch-namespace NS] [--update-policy P]
         [--cert-provider cert-manager|openshift-service-ca] [--service-account NAME] [--with-dependencies]
         [--accept-community] [--accept-namespace-labels] [--tenant] [--dry-run] [-o yaml|json]
         [--no-wait] [--timeout DURATION] [--kubeconfig FILE] [--context NAME] [--catalogd-url URL]

Installs PACKAGE with least privilege. Resolves the bundle the cluster's ClusterCatalogs offer
(as "olmv1 resolve --cluster" does), pulls it, and creates: the namespace when it does not exist,
the ServiceAccount NAME-installer in it, exactly the RBAC "olmv1 rbac" prints for that bundle (its
warnings printed as there), and the ClusterExtension NAME naming that ServiceAccount. Every
object is labelled ${'olm.operatorframework.io/installed-by=olmv1'} and
olm.operatorframework.io/installed-for=NAME, for "olmv1 uninstall". Each is first created
with a server-side dry run: a permission you lack or a name already taken is reported before
anything is written. Then waits until operator-controller reports it Installed.
With --service-account, an existing ServiceAccount installs instead: no ServiceAccount or RBAC
is created, and the rights it needs are its owner's concern.
A re-run finishes an interrupted install: objects labelled for NAME are reused or updated.
With --tenant, as a namespace's admin (no cluster rights): creates only the request, the
Extension NAME in NAMESPACE, which operator-controller (TenantExtensions) installs when an
ExtensionPolicy allows it, and waits until it is Installed or refused (docs/tenants.md).

Flags:
  --name NAME                the ClusterExtension's name (default: PACKAGE)
  -n, --namespace NS         namespace to install into, created if missing (default: PACKAGE)
  -v, --version RANGE        version or range of versions allowed (e.g. 1.2.3, ">=1.0.0, <2")
  -c, --channels C[,C...]    channels to take versions from (default: all)
  --catalog NAME             only the ClusterCatalog NAME
  -l, --selector SELECTOR    only the ClusterCatalogs whose labels match (kubectl's syntax)
  --upgrade-constraint-policy P
                             CatalogProvided (default: follow the catalog's upgrade edges) or
                             SelfCertified (any version in range)
  --crd-upgrade-safety-enforcement E
                             Strict (default) or None
  --watch-namespace NS       namespace the operator watches (bundles without AllNamespaces)
  --update-policy P          Automatic (default), AutomaticPatch or Manual: which upgrades wait
                             for "olmv1 upgrade approve" (annotation
                             olm.operatorframework.io/update-policy)
  --cert-provider P          cert-manager or openshift-service-ca, as operator-controller runs
                             (bundles with webhooks)
  --service-account NAME     install as this existing ServiceAccount of the install namespace
                             instead of creating NAME-installer with least privilege: no
                             ServiceAccount or RBAC is created (the ClusterExtension names it);
                             refused when it does not exist
  --with-dependencies        first install what the bundle's dependencies need and the cluster
                             lacks: for each unmet requirement, the provider the selected
                             catalogs prefer, as its own ClusterExtension (named, and in a
                             namespace named, after its package, pinned to the provider's
                             version) with its own ServiceAccount and RBAC, waited for; a
                             requirement no selected catalog provides is refused
  --accept-community         acknowledge that the package comes from a ClusterCatalog the
                             administrators mark as community content (annotation
                             olm.operatorframework.io/source-type: Community; decision 0148):
                             not vetted or verified, supported by its community. Without it
                             such an install is refused (a dry run only warns); with --tenant,
                             when such a catalog the request selects serves the package
  --accept-namespace-labels  apply the labels and annotations of the CSV's suggested-namespace
                             template that weaken the created namespace's Pod security
                             (pod-security.kubernetes.io/* other than restricted and latest,
                             OpenShift's security.openshift.io/*, openshift.io/run-level,
                             openshift.io/sa.scc.*; decision 0157). Without it they are dropped
                             with a warning naming each
  --tenant                   request the install as a tenant: an Extension in NAMESPACE (which must
                             exist), judged by the cluster's ExtensionPolicies; not with
                             --update-policy, --crd-upgrade-safety-enforcement, --cert-provider
                             or --with-dependencies (the policy and operator-controller decide)
  --dry-run                  print every object that would be created; write nothing
  -o, --output FORMAT        yaml (multi-document) or json (one v1 List): the objects created
                             (default with --dry-run: yaml)
  --no-wait                  return once the objects are created
  --timeout DURATION         how long to wait for Installed (default 5m)
${CLUSTER_FLAGS_HELP}
${CATALOGD_URL_HELP}
${registryFlagsHelp(29)}${imageLimitHelp(29, BUNDLE_IMAGE_LIMITS)}  -h, --help                 show this help

Output:
  stdout: what was installed (the bundle and version), or the objects with -o / --dry-run.
  stderr: progress (resolution, pull, each object created, the extension's Progressing
  condition while waiting), RBAC warnings, errors.

Exit codes:
  0  installed (or, with --dry-run, printed; with --no-wait, created)
  1  not installed: no such catalog or package (with close names), no version in range (with
     the versions there are), a catalog marked Community without --accept-community, a permission you lack (named), a name already taken, the bundle
     refused, or the extension not Installed within --timeout (its Progressing message)
  2  usage error`;

const FLAGS = {
  ...CLUSTER_FLAGS,
  ...REGISTRY_FLAGS,
  ...IMAGE_LIMIT_FLAGS,
  name: { type: 'string' },
  namespace: { type: 'string', short: 'n' },
  version: { type: 'string', short: 'v' },
  channels: { type: 'string', short: 'c', multiple: true },
  catalog: { type: 'string' },
  selector: { type: 'string', short: 'l' },
  'upgrade-constraint-policy': { type: 'string' },
  'crd-upgrade-safety-enforcement': { type: 'string' },
  'watch-namespace': { type: 'string' },
  'update-policy': { type: 'string' },
  'cert-provider': { type: 'string' },
  'service-account': { type: 'string' },
  'dry-run': { type: 'boolean' },
  'with-dependencies': { type: 'boolean' },
  'accept-community': { type: 'boolean' },
  'accept-namespace-labels': { type: 'boolean' },
  tenant: { type: 'boolean' },
  output: { type: 'string', short: 'o' },
  wait: { type: 'boolean' },
  'no-wait': { type: 'boolean' },
  timeout: { type: 'string' },
  'catalogd-url': { type: 'string' },
} as const;

/** The arguments of `install`, checked. */
export interface InstallArgs {
  request: ExtensionRequest;
  /** `--catalog NAME`: the ClusterCatalog that must exist (the selector then names it). */
  catalog: string | undefined;
  certProvider: 'cert-manager' | 'openshift-service-ca' | undefined;
  /** `--service-account NAME`: install as this existing ServiceAccount (request.serviceAccount); nothing of the installer RBAC is created. */
  existingServiceAccount: boolean;
  dryRun: boolean;
  /** --with-dependencies: install the dependency closure the cluster lacks first (install-dependencies.ts). */
  withDependencies: boolean;
  /** --accept-community: the package may come from a catalog marked Community (the install service refuses it otherwise). */
  acceptCommunity: boolean;
  /** --accept-namespace-labels: apply the suggested-namespace template's entries that weaken Pod security (dropped otherwise). */
  acceptNamespaceLabels: boolean;
  /** --tenant: create an Extension request in the namespace instead (install-tenant.ts). */
  tenant: boolean;
  output: 'yaml' | 'json' | undefined;
  wait: boolean;
  timeoutMs: number;
  cluster: ClusterFlags;
  catalogdUrl: URL | undefined;
  /** The registry and image-cap flags, as `render bundle` takes them. */
  values: Record<string, string | undefined>;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function usage(message: string): CommandError {
  return new CommandError(`${message}\n${USAGE}`, EXIT.usage);
}

/** One of `allowed`, or a usage error naming `flag`. */
export function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: Readonly<Record<string, T>>,
  usageText: string,
): T | undefined {
  if (value === undefined) return undefined;
  const values = Object.values(allowed);
  const found = values.find((v) => v === value);
  if (found === undefined)
    throw new CommandError(`${flag} must be one of ${values.join(', ')}, got ${JSON.stringify(value)}\n${usageText}`, EXIT.usage);
  return found;
}

/** Channels from repeated and comma-separated `-c` values. */
export function channelList(values: readonly string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => v.split(','))
    .map((c) => c.trim())
    .filter((c) => c !== '');
}

/** The catalog selector of `--catalog NAME` or `--selector TEXT` (at most one). */
export function catalogSelector(catalog: string | undefined, selector: string | undefined, usageText: string): ExtensionRequest['selector'] {
  if (catalog !== undefined && selector !== undefined)
    throw new CommandError(`--catalog and --selector cannot be combined\n${usageText}`, EXIT.usage);
  if (catalog === '') throw new CommandError(`--catalog must not be empty\n${usageText}`, EXIT.usage);
  if (catalog !== undefined) return { matchLabels: { [CATALOG_NAME_LABEL]: catalog } };
  if (selector === undefined) return undefined;
  try {
    return parseSelectorText(selector);
  } catch (e) {
    throw new CommandError(`--selector: ${errorMessage(e)}\n${usageText}`, EXIT.usage);
  }
}

/** A `--catalogd-url` value, checked. */
export function catalogdUrlFlag(url: string | undefined, usageText: string): URL | undefined {
  if (url === undefined) return undefined;
  if (!(URL.canParse(url) && /^https?:$/.test(new URL(url).protocol))) {
    throw new CommandError(`invalid --catalogd-url ${JSON.stringify(url)} (want http(s)://HOST[:PORT])\n${usageText}`, EXIT.usage);
  }
  return new URL(url);
}

/** Parses the arguments of `install`; usage problems throw a CommandError with exit code 2. */
export function parseInstallArgs(args: readonly string[]): InstallArgs {
  const { values, positionals } = parseCommandLine(args, USAGE, FLAGS);
  if (positionals.length !== 1 || positionals[0] === '') throw usage('expected exactly one PACKAGE');
  const packageName = positionals[0] ?? '';
  const name = values.name ?? packageName;
  const namespace = values.namespace ?? packageName;
  for (const [flag, v] of [
    ['--name', name],
    ['--namespace', namespace],
    ['--version', values.version],
    ['--timeout', values.timeout],
    ['--service-account', values['service-account']],
  ] as const) {
    if (v === '') throw usage(`${flag} must not be empty`);
  }
  const output = flagChoice('-o', values.output, ['yaml', 'json'], USAGE);
  if (values.wait === true && values['no-wait'] === true) throw usage('--wait and --no-wait cannot be combined');
  if (values['with-dependencies'] === true && values['dry-run'] === true) throw usage('--with-dependencies cannot be combined with --dry-run');
  if (values.tenant === true) {
    for (const flag of ['update-policy', 'crd-upgrade-safety-enforcement', 'cert-provider', 'with-dependencies'] as const) {
      if (values[flag] !== undefined) throw usage(`--${flag} cannot be combined with --tenant`);
    }
  }
  const serviceAccount = values['service-account'];
  if (serviceAccount !== undefined && (serviceAccount.length > 253 || !DNS_SUBDOMAIN.test(serviceAccount)))
    throw usage(`--service-account ${JSON.stringify(serviceAccount)}: not a ServiceAccount name (lower-case letters, digits, "-" and ".")`);
  const certProvider = flagChoice('--cert-provider', values['cert-provider'], CERT_PROVIDERS, USAGE);
  const timeoutMs = timeoutFlag(values.timeout, 5 * 60_000, USAGE);
  const { strings } = imageFlags(values, USAGE);
  return {
    request: {
      name,
      packageName,
      namespace,
      serviceAccount: serviceAccount ?? `${name}-installer`,
      channels: channelList(values.channels),
      version: values.version,
      selector: catalogSelector(values.catalog, values.selector, USAGE),
      upgradeConstraintPolicy: oneOf('--upgrade-constraint-policy', values['upgrade-constraint-policy'], UpgradeConstraintPolicy, USAGE),
      crdUpgradeSafety: oneOf('--crd-upgrade-safety-enforcement', values['crd-upgrade-safety-enforcement'], CrdUpgradeSafetyEnforcement, USAGE),
      watchNamespace: values['watch-namespace'],
      updatePolicy: oneOf('--update-policy', values['update-policy'], UpdatePolicy, USAGE),
    },
    catalog: values.catalog,
    certProvider,
    existingServiceAccount: serviceAccount !== undefined,
    dryRun: values['dry-run'] === true,
    withDependencies: values['with-dependencies'] === true,
    acceptCommunity: values['accept-community'] === true,
    acceptNamespaceLabels: values['accept-namespace-labels'] === true,
    tenant: values.tenant === true,
    output,
    wait: values['no-wait'] !== true,
    timeoutMs,
    cluster: clusterFlags(values, USAGE),
    catalogdUrl: catalogdUrlFlag(values['catalogd-url'], USAGE),
    values: strings,
  };
}
