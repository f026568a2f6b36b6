/**
 * `olmv1 install PACKAGE`: installs an operator with least privilege in one command. It
 * resolves the bundle the cluster's catalogs offer for the request (as `olmv1 resolve
 * --cluster` does, with operator-controller's rules and messages), pulls it, computes the RBAC
 * `olmv1 rbac` prints for it, and writes, in order and labelled for `uninstall`
 * (install-objects.ts): the namespace when missing, a ServiceAccount, that RBAC and the
 * ClusterExtension naming the ServiceAccount; then waits until operator-controller reports
 * it Installed. Every object is first created with a server-side dry run, so a missing
 * permission or a name already taken is reported before anything is written.
 *
 * Exit codes: see USAGE.
 */
import { CLUSTER_CATALOG, CLUSTER_EXTENSION, CrdUpgradeSafetyEnforcement, UpgradeConstraintPolicy } from '../../pkg/shared/api/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { BUNDLE_IMAGE_LIMITS } from '../../pkg/shared/image/index.ts';
import { isAlreadyExists, isForbidden, isNotFound, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { metadataFor, resolve } from '../../pkg/operator-controller/resolve/index.ts';
import { IMAGE_LIMIT_FLAGS, imageLimitHelp, imageLimitOptions } from '../shared/limits.ts';
import { parsePositiveDuration } from '../shared/flags.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags, type ClusterFlags } from './cluster-access.ts';
import { EXIT } from './io.ts';
import { CATALOG_NAME_LABEL, installObjects, installState, parseSelectorText, type ExtensionRequest } from './install-objects.ts';
import { installRbac } from './rbac.ts';
import { REGISTRY_FLAGS, registryFlagsHelp } from './registry-access.ts';
import {
  CommandError,
  buildRenderOptions,
  formatObjects,
  loadBundle,
  parseCommandLine,
  runCommand,
  type BundleSourceDeps,
  type CommandIo,
} from './render.ts';
import { clusterResolutionHints, clusterResolveInput, type ResolveClusterDeps } from './resolve-cluster.ts';

const USAGE = `Usage: olmv1 install PACKAGE [--name NAME] [-n NAMESPACE] [--version RANGE] [-c CHANNEL,...]
         [--catalog NAME | -l SELECTOR] [--upgrade-constraint-policy CatalogProvided|SelfCertified]
         [--crd-upgrade-safety-enforcement Strict|None] [--watch-namespace NS]
         [--cert-provider cert-manager|openshift-service-ca] [--dry-run] [-o yaml|json]
         [--no-wait] [--timeout DURATION] [--kubeconfig FILE] [--context NAME] [--catalogd-url URL]

Installs PACKAGE with least privilege. Resolves the bundle the cluster's ClusterCatalogs offer
(as "olmv1 resolve --cluster" does), pulls it, and creates: the namespace when it does not exist,
the ServiceAccount NAME-installer in it, exactly the RBAC "olmv1 rbac" prints for that bundle (its
warnings printed as there), and the ClusterExtension NAME naming that ServiceAccount. Every
object is labelled ${'olm.operatorframework.io/installed-by=olmv1'} and
olm.operatorframework.io/installed-for=NAME, for "olmv1 uninstall". Each is first created
with a server-side dry run: a permission you lack or a name already taken is reported before
anything is written. Then waits until operator-controller reports it Installed.

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
  --cert-provider P          cert-manager or openshift-service-ca, as operator-controller runs
                             (bundles with webhooks)
  --dry-run                  print every object that would be created; write nothing
  -o, --output FORMAT        yaml (multi-document) or json (one v1 List): the objects created
                             (default with --dry-run: yaml)
  --no-wait                  return once the objects are created
  --timeout DURATION         how long to wait for Installed (default 5m)
${CLUSTER_FLAGS_HELP}
  --catalogd-url URL         reach catalogd at this origin instead of the ClusterCatalogs'
                             status.urls.base (e.g. through kubectl port-forward)
${registryFlagsHelp(29)}${imageLimitHelp(29, BUNDLE_IMAGE_LIMITS)}  -h, --help                 show this help

Output:
  stdout: what was installed (the bundle and version), or the objects with -o / --dry-run.
  stderr: progress (resolution, pull, each object created, the extension's Progressing
  condition while waiting), RBAC warnings, errors.

Exit codes:
  0  installed (or, with --dry-run, printed; with --no-wait, created)
  1  not installed: no such catalog or package (with close names), no version in range (with
     the versions there are), a permission you lack (named), a name already taken, the bundle
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
  'cert-provider': { type: 'string' },
  'dry-run': { type: 'boolean' },
  output: { type: 'string', short: 'o' },
  wait: { type: 'boolean' },
  'no-wait': { type: 'boolean' },
  timeout: { type: 'string' },
  'catalogd-url': { type: 'string' },
} as const;

/** The arguments of `install`, checked. */
interface InstallArgs {
  request: ExtensionRequest;
  /** `--catalog NAME`: the ClusterCatalog that must exist (the selector then names it). */
  catalog: string | undefined;
  certProvider: 'cert-manager' | 'openshift-service-ca' | undefined;
  dryRun: boolean;
  output: 'yaml' | 'json' | undefined;
  wait: boolean;
  timeoutMs: number;
  cluster: ClusterFlags;
  catalogdUrl: URL | undefined;
  /** The registry and image-cap flags, as `render bundle` takes them. */
  values: Record<string, string | undefined>;
}

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
function catalogdUrlFlag(url: string | undefined, usageText: string): URL | undefined {
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
  ] as const) {
    if (v === '') throw usage(`${flag} must not be empty`);
  }
  const output = values.output;
  if (output !== undefined && output !== 'yaml' && output !== 'json') throw usage(`-o must be yaml or json, got ${JSON.stringify(output)}`);
  if (values.wait === true && values['no-wait'] === true) throw usage('--wait and --no-wait cannot be combined');
  const certProvider = values['cert-provider'];
  if (certProvider !== undefined && certProvider !== 'cert-manager' && certProvider !== 'openshift-service-ca') {
    throw usage(`--cert-provider must be cert-manager or openshift-service-ca, got ${JSON.stringify(certProvider)}`);
  }
  let timeoutMs = 5 * 60_000;
  if (values.timeout !== undefined) {
    try {
      timeoutMs = parsePositiveDuration('--timeout', values.timeout);
    } catch (e) {
      throw usage(errorMessage(e));
    }
  }
  const strings: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(values)) if (typeof v === 'string') strings[k] = v;
  try {
    imageLimitOptions(strings, BUNDLE_IMAGE_LIMITS);
  } catch (e) {
    throw usage(errorMessage(e));
  }
  return {
    request: {
      name,
      packageName,
      namespace,
      serviceAccount: `${name}-installer`,
      channels: channelList(values.channels),
      version: values.version,
      selector: catalogSelector(values.catalog, values.selector, USAGE),
      upgradeConstraintPolicy: oneOf('--upgrade-constraint-policy', values['upgrade-constraint-policy'], UpgradeConstraintPolicy, USAGE),
      crdUpgradeSafety: oneOf('--crd-upgrade-safety-enforcement', values['crd-upgrade-safety-enforcement'], CrdUpgradeSafetyEnforcement, USAGE),
      watchNamespace: values['watch-namespace'],
    },
    catalog: values.catalog,
    certProvider,
    dryRun: values['dry-run'] === true,
    output,
    wait: values['no-wait'] !== true,
    timeoutMs,
    cluster: clusterFlags(values, USAGE),
    catalogdUrl: catalogdUrlFlag(values['catalogd-url'], USAGE),
    values: strings,
  };
}

/** What `install` needs (composed in commands.ts). */
export interface InstallDeps extends ResolveClusterDeps, BundleSourceDeps {
  /** Waits `ms` between looks at the extension (a timer; tests may shorten it). */
  sleep(ms: number): Promise<void>;
  /** Milliseconds since the epoch. */
  now(): number;
}

/** How often the extension is read while waiting. */
const POLL_MS = 1000;

/** Runs `olmv1 install`; `args` are the arguments after `install`. */
export async function runInstall(args: readonly string[], io: CommandIo, deps: InstallDeps): Promise<number> {
  return runCommand(io, async () => {
    const a = parseInstallArgs(args);
    const kube = await deps.connectCluster(a.cluster);
    try {
      await install(a, kube, io, deps);
    } finally {
      kube.close();
    }
  });
}

function describe(o: KubeObject): string {
  return `${o.kind} ${o.metadata.namespace === undefined ? '' : `${o.metadata.namespace}/`}${o.metadata.name ?? ''}`;
}

async function install(a: InstallArgs, kube: KubeContext, io: CommandIo, deps: InstallDeps): Promise<void> {
  const req = a.request;
  const catalogs = (await kube.client.listAll(CLUSTER_CATALOG)).items.map((c) => c.metadata.name ?? '');
  if (catalogs.length === 0) throw new CommandError('the cluster has no ClusterCatalogs: add one with "olmv1 catalog add NAME IMAGE"', EXIT.failed);
  if (a.catalog !== undefined && !catalogs.includes(a.catalog)) {
    throw new CommandError(
      `ClusterCatalog ${JSON.stringify(a.catalog)} not found; the cluster's catalogs: ${catalogs.sort().join(', ')}`,
      EXIT.failed,
    );
  }

  // Resolve as operator-controller will for a new extension: nothing installed yet.
  const src = {
    packageName: req.packageName,
    ...(req.channels.length === 0 ? {} : { channels: [...req.channels] }),
    ...(req.version === undefined ? {} : { version: req.version }),
    ...(req.selector === undefined ? {} : { selector: req.selector }),
    ...(req.upgradeConstraintPolicy === undefined ? {} : { upgradeConstraintPolicy: req.upgradeConstraintPolicy }),
  } as Parameters<typeof clusterResolveInput>[3];
  io.stderr.write(`resolving package ${req.packageName} against the cluster's catalogs\n`);
  const input = await clusterResolveInput(kube, deps, a.catalogdUrl, src, null);
  const resolved = input.ok ? resolve(input.value) : input;
  if (!resolved.ok) {
    const hints = input.ok ? await clusterResolutionHints(kube, deps, a.catalogdUrl, input.value, src.selector, resolved.error) : [];
    throw new CommandError([resolved.error, ...hints].join('\n'), EXIT.failed);
  }
  const { bundle: picked, versionRelease, catalog } = resolved.value;
  const version = metadataFor(picked.name, versionRelease).version;
  io.stderr.write(`resolved ${picked.name} (${version}) from catalog ${catalog}; pulling bundle image ${picked.image}\n`);

  const imageLimits = imageLimitOptions(a.values, BUNDLE_IMAGE_LIMITS);
  const bundle = await loadBundle({ source: picked.image, values: a.values, imageLimits }, deps);
  const renderArgs = {
    source: picked.image,
    installNamespace: req.namespace,
    ...(req.watchNamespace === undefined ? {} : { watchNamespace: req.watchNamespace }),
    ...(a.certProvider === undefined ? {} : { certProvider: a.certProvider }),
    output: 'yaml' as const,
    imageLimits,
    values: {},
  };
  const rbac = installRbac(bundle, await buildRenderOptions(renderArgs), req.serviceAccount, renderArgs, io);

  const namespaceExists = await exists(kube, { apiVersion: 'v1', kind: 'Namespace', name: req.namespace });
  const objects = installObjects(req, rbac, !namespaceExists);
  if (a.dryRun) {
    io.stdout.write(formatObjects(objects, a.output ?? 'yaml'));
    io.stderr.write(`dry run: nothing written (${objects.length} objects)\n`);
    return;
  }

  const created: KubeObject[] = [];
  try {
    const [maybeNamespace] = objects;
    if (!namespaceExists && maybeNamespace !== undefined) {
      await createOrExplain(kube, maybeNamespace, false);
      created.push(maybeNamespace);
      io.stderr.write(`created ${describe(maybeNamespace)}\n`);
    }
    const rest = namespaceExists ? objects : objects.slice(1);
    // Everything is tried first: all refusals are reported together, before anything else is written.
    const refusals: string[] = [];
    for (const o of rest) {
      try {
        await createOrExplain(kube, o, true);
      } catch (e) {
        refusals.push(errorMessage(e));
      }
    }
    if (refusals.length > 0) {
      const forbidden = refusals.some((r) => r.includes(' is forbidden'));
      throw new CommandError(
        [
          `nothing installed: ${refusals.length} of the ${rest.length} objects would be refused:`,
          ...refusals.map((r) => `  ${r}`),
          ...(forbidden
            ? ['(you need the rights to create these objects, and to hold every permission the RBAC grants: ask a cluster admin, or run as one)']
            : []),
        ].join('\n'),
        EXIT.failed,
      );
    }
    for (const o of rest) {
      await createOrExplain(kube, o, false);
      created.push(o);
      io.stderr.write(`created ${describe(o)}\n`);
    }
  } catch (e) {
    await undo(kube, created, io);
    throw e;
  }
  if (a.output !== undefined) io.stdout.write(formatObjects(objects, a.output));
  const what = `${req.name}: ${picked.name} (${version}) of package ${req.packageName} from catalog ${catalog}, in namespace ${req.namespace} as ServiceAccount ${req.serviceAccount}`;
  if (!a.wait) {
    if (a.output === undefined) io.stdout.write(`created ClusterExtension ${what}\n`);
    return;
  }
  const state = await waitInstalled(kube, req.name, a.timeoutMs, io, deps);
  if (state.state !== 'installed') {
    throw new CommandError(
      `ClusterExtension ${req.name} is not installed${state.state === 'failed' ? '' : ` after ${Math.round(a.timeoutMs / 1000)} s`}: ${state.progress}\n` +
        `(see "kubectl describe clusterextension ${req.name}"; remove it and what install created with "olmv1 uninstall ${req.name}")`,
      EXIT.failed,
    );
  }
  if (a.output === undefined) io.stdout.write(`installed ${what}\n`);
}

async function exists(kube: KubeContext, ref: { apiVersion: string; kind: string; name: string; namespace?: string }): Promise<boolean> {
  try {
    await kube.client.get(ref);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw new CommandError(`error reading ${ref.kind} ${ref.name}: ${errorMessage(e)}`, EXIT.failed);
  }
}

/** Creates `o` (a server-side dry run when `dryRun`); a refusal becomes a CommandError saying what was refused and why. */
async function createOrExplain(kube: KubeContext, o: KubeObject, dryRun: boolean): Promise<void> {
  try {
    await kube.client.create(o, { dryRun });
  } catch (e) {
    if (isAlreadyExists(e)) {
      const hint =
        o.kind === 'ClusterExtension'
          ? `: choose another --name, or "olmv1 uninstall ${o.metadata.name ?? ''}" first`
          : ': remove it, or choose another --name';
      throw new CommandError(`${describe(o)} already exists${hint}`, EXIT.failed);
    }
    if (isForbidden(e)) throw new CommandError(`you cannot create ${describe(o)}: ${errorMessage(e)}`, EXIT.failed);
    throw new CommandError(`error creating ${describe(o)}: ${errorMessage(e)}`, EXIT.failed);
  }
}

/** Deletes what this run created, newest first, after a failure; what cannot be deleted is named. */
async function undo(kube: KubeContext, created: readonly KubeObject[], io: CommandIo): Promise<void> {
  for (const o of [...created].reverse()) {
    const ref = {
      apiVersion: o.apiVersion,
      kind: o.kind,
      name: o.metadata.name ?? '',
      ...(o.metadata.namespace === undefined ? {} : { namespace: o.metadata.namespace }),
    };
    try {
      await kube.client.delete(ref);
      io.stderr.write(`removed ${describe(o)} again\n`);
    } catch (e) {
      if (!isNotFound(e)) io.stderr.write(`could not remove ${describe(o)}: ${errorMessage(e)}\n`);
    }
  }
}

/**
 * Reads the ClusterExtension `name` until it is installed, blocked, or `timeoutMs` passed;
 * each new Progressing text goes to stderr.
 */
async function waitInstalled(
  kube: KubeContext,
  name: string,
  timeoutMs: number,
  io: CommandIo,
  deps: Pick<InstallDeps, 'sleep' | 'now'>,
): Promise<ReturnType<typeof installState>> {
  const deadline = deps.now() + timeoutMs;
  let last = '';
  for (;;) {
    const state = installState(await kube.client.get({ ...CLUSTER_EXTENSION, name }));
    if (state.state !== 'waiting') return state;
    if (state.progress !== last) io.stderr.write(`waiting for ClusterExtension ${name}: ${state.progress}\n`);
    last = state.progress;
    if (deps.now() >= deadline) return state;
    await deps.sleep(Math.min(POLL_MS, Math.max(0, deadline - deps.now())));
  }
}
