/**
 * `olmv1 upgrade plan NAME` and `upgrade approve NAME [VERSION]`: the flags parsed, the services
 * of pkg/olmv1/upgrade called over the ports upgrade-deps.ts makes, and their values printed (the
 * plan as text by upgrade-format.ts or as JSON; the approval's lines, approvalLines).
 */
import type { ClusterMinor } from '../../pkg/operator-controller/gating/index.ts';
import { parseClusterVersion } from '../../pkg/operator-controller/gating/index.ts';
import type { CertProviderName } from '../../pkg/operator-controller/render/index.ts';
import { approvalLines, approveUpgrade, planUpgrade } from '../../pkg/olmv1/upgrade/index.ts';
import { APPROVED_BUNDLE_ANNOTATION } from '../../pkg/shared/api/index.ts';
import { parseSemver } from '../../pkg/shared/semver/index.ts';
import { BUNDLE_IMAGE_LIMITS, type ImageLimits } from '../../pkg/shared/image/index.ts';
import type { KubeContext } from '../../pkg/shared/kube/index.ts';
import { IMAGE_LIMIT_FLAGS, imageLimitHelp } from '../shared/limits.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags, withCluster, type ClusterFlags } from './cluster-access.ts';
import { type CommandIO, EXIT } from './io.ts';
import { REGISTRY_FLAGS, registryFlagsHelp } from './registry-access.ts';
import { CERT_PROVIDERS, CommandError, flagChoice, imageFlags, parseCommandLine, runCommand } from './render.ts';
import { CATALOGD_URL_HELP, catalogdUrlFlag } from './install-args.ts';
import { formatPlan } from './upgrade-format.ts';
import { upgradeServiceDeps, type UpgradeDeps } from './upgrade-deps.ts';
import { checkGatesFlag } from './upgrade-gates.ts';

const COMMON_FLAGS_HELP = `${CLUSTER_FLAGS_HELP}
  --system-namespace NS      where release records are kept (default olmv1-system)
${CATALOGD_URL_HELP}`;

const PLAN_USAGE = `Usage: olmv1 upgrade plan NAME [-o text|json] [--feature-gates GATES] [--cert-provider P]
         [--cluster-version X.Y] [--kubeconfig FILE] [--context NAME] [--system-namespace NS]
         [--catalogd-url URL] [--authfile FILE] [--ca-file FILE]

Shows what the next upgrade of the installed ClusterExtension NAME will do, decided as
operator-controller decides: the successors its catalogs offer from the installed bundle (with
the edge that allows each: replaces, skips, skipRange), which one the resolver picks and why,
and for that bundle (pulled and rendered as the controller renders it, with its feature gates):
the objects added, removed and changed (field by field, Secret values redacted), the
permissions its roles gain and lose (flagged when they escalate), the CRD upgrade-safety
verdict against the live CRDs, deprecations, what olm.maxOpenShiftVersion means for the
cluster's next minor upgrade, and whether the update policy (annotation
olm.operatorframework.io/update-policy) installs it or holds it for "olmv1 upgrade approve".
Everything is read with your credentials.

Flags:
  -o, --output FORMAT        text (default) or json
  --feature-gates GATES      operator-controller's gates to render with, Name=true|false,
                             comma-separated or repeated (default: those of its Deployment
                             operator-controller-controller-manager in --system-namespace, else
                             its defaults); the plan says which
  --cert-provider P          cert-manager or openshift-service-ca: sets the two webhook provider
                             gates (default: the gates'; with the defaults, the provider the
                             deployed release's objects show)
  --cluster-version X.Y      the cluster's version for olm.maxOpenShiftVersion (default: the
                             ClusterVersion "version", on OpenShift)
${COMMON_FLAGS_HELP}
${registryFlagsHelp(29)}${imageLimitHelp(29, BUNDLE_IMAGE_LIMITS)}  -h, --help                 show this help

Output:
  stdout: the plan. stderr: progress (the bundle pull), errors.

Exit codes:
  0  the plan is printed (also when the extension is up to date)
  1  no plan: the extension is missing or has nothing installed, the resolution fails (the
     reason is printed), or the bundle cannot be pulled or rendered
  2  usage error`;

const APPROVE_USAGE = `Usage: olmv1 upgrade approve NAME [VERSION] [--dry-run]
         [--kubeconfig FILE] [--context NAME] [--system-namespace NS] [--catalogd-url URL]

Approves the upgrade "olmv1 upgrade plan NAME" shows: writes the annotation
${APPROVED_BUNDLE_ANNOTATION}=<bundle> on the ClusterExtension NAME, naming the bundle
the resolver picks now, so an update policy that holds upgrades lets exactly that bundle be
installed (an approval never installs anything else). With VERSION, approves only if the picked
bundle has that version: to go to another version directly, change spec.source.catalog.version.
For an extension "olmv1 install" created, also grants its ServiceAccount exactly the permissions
the picked bundle needs beyond those it holds (a Role or ClusterRole named after the bundle,
labelled for "olmv1 uninstall"); each is printed.

Flags:
  --dry-run                  print what would be approved, change nothing
${COMMON_FLAGS_HELP}
  -h, --help                 show this help

Output:
  stdout: the roles granted (or that would be), the bundle approved (or that would be).
  stderr: progress (the bundle pull), errors.

Exit codes:
  0  approved (or, with --dry-run, would be)
  1  nothing to approve (up to date, the resolution fails, VERSION is not the picked version),
     or the extension could not be read or changed (e.g. it changed meanwhile: run it again)
  2  usage error (also a VERSION that is not a semantic version)`;

const COMMON_FLAGS = { ...CLUSTER_FLAGS, 'system-namespace': { type: 'string' }, 'catalogd-url': { type: 'string' } } as const;

/** Parsed flags both commands share. */
interface CommonArgs {
  cluster: ClusterFlags;
  systemNamespace: string;
  catalogdUrl: URL | undefined;
}

function commonArgs(
  values: { kubeconfig?: string; context?: string; 'system-namespace'?: string; 'catalogd-url'?: string },
  usage: string,
): CommonArgs {
  const catalogdUrl = catalogdUrlFlag(values['catalogd-url'], usage);
  const ns = values['system-namespace'] ?? 'olmv1-system';
  if (ns === '') throw new CommandError(`--system-namespace must not be empty\n${usage}`, EXIT.usage);
  return { cluster: clusterFlags(values, usage), systemNamespace: ns, catalogdUrl };
}

function extensionName(positionals: readonly string[], max: number, usage: string): string {
  const name = positionals[0];
  if (name === undefined || name === '') throw new CommandError(`expected the ClusterExtension NAME\n${usage}`, EXIT.usage);
  if (positionals.length > max) throw new CommandError(`unexpected argument ${JSON.stringify(positionals[max])}\n${usage}`, EXIT.usage);
  return name;
}

/** What `upgrade plan` was asked. */
interface PlanArgs {
  extension: string;
  clusterVersion: ClusterMinor | undefined;
  certProvider: CertProviderName | undefined;
  /** The occurrences of --feature-gates; undefined: operator-controller's are read. */
  featureGates?: string[];
  registryValues: { authfile?: string; 'ca-file'?: string };
  imageLimits: ImageLimits;
}

/** The arguments of `upgrade plan`, checked. */
export function parsePlanArgs(args: readonly string[]): { common: CommonArgs; plan: PlanArgs; output: 'text' | 'json' } {
  const { values, positionals } = parseCommandLine(args, PLAN_USAGE, {
    ...COMMON_FLAGS,
    ...REGISTRY_FLAGS,
    ...IMAGE_LIMIT_FLAGS,
    output: { type: 'string', short: 'o' },
    'cert-provider': { type: 'string' },
    'cluster-version': { type: 'string' },
    'feature-gates': { type: 'string', multiple: true },
  });
  const extension = extensionName(positionals, 1, PLAN_USAGE);
  const output = flagChoice('-o', values.output ?? 'text', ['text', 'json'], PLAN_USAGE) ?? 'text';
  const cp = flagChoice('--cert-provider', values['cert-provider'], CERT_PROVIDERS, PLAN_USAGE);
  const { imageLimits } = imageFlags(values, PLAN_USAGE);
  const featureGates = values['feature-gates'];
  if (featureGates !== undefined) checkGatesFlag(featureGates, PLAN_USAGE);
  let clusterVersion;
  if (values['cluster-version'] !== undefined) {
    const cv = parseClusterVersion(values['cluster-version']);
    if (!cv.ok) throw new CommandError(`--cluster-version: ${cv.error}\n${PLAN_USAGE}`, EXIT.usage);
    clusterVersion = cv.value;
  }
  return {
    common: commonArgs(values, PLAN_USAGE),
    plan: {
      extension,
      clusterVersion,
      certProvider: cp,
      ...(featureGates === undefined ? {} : { featureGates }),
      registryValues: {
        ...(values.authfile === undefined ? {} : { authfile: values.authfile }),
        ...(values['ca-file'] === undefined ? {} : { 'ca-file': values['ca-file'] }),
      },
      imageLimits,
    },
    output,
  };
}

/** The arguments of `upgrade approve`, checked. */
export function parseApproveArgs(args: readonly string[]): { common: CommonArgs; extension: string; version: string | undefined; dryRun: boolean } {
  const { values, positionals } = parseCommandLine(args, APPROVE_USAGE, { ...COMMON_FLAGS, 'dry-run': { type: 'boolean' } });
  const extension = extensionName(positionals, 2, APPROVE_USAGE);
  const version = positionals[1];
  if (version === '') throw new CommandError(`VERSION must not be empty\n${APPROVE_USAGE}`, EXIT.usage);
  if (version !== undefined) {
    // The version the plan shows (a bundle's semantic version); anything else could never be the pick.
    const parsed = parseSemver(version);
    if (!parsed.ok)
      throw new CommandError(`VERSION ${JSON.stringify(version)} is not a semantic version: ${parsed.error}\n${APPROVE_USAGE}`, EXIT.usage);
  }
  return { common: commonArgs(values, APPROVE_USAGE), extension, version, dryRun: values['dry-run'] === true };
}

/** What the commands get from commands.ts: the upgrade deps plus the cluster connection. */
export interface UpgradeCommandDeps extends UpgradeDeps {
  connectCluster(flags: ClusterFlags): Promise<KubeContext>;
}

/** Runs `olmv1 upgrade plan`; `args` are the arguments after `upgrade plan`. */
export async function runUpgradePlan(args: readonly string[], io: CommandIO, deps: UpgradeCommandDeps): Promise<number> {
  return runCommand(io, async () => {
    const a = parsePlanArgs(args);
    return withCluster(deps.connectCluster(a.common.cluster), async (kube) => {
      const { catalogdUrl, systemNamespace } = a.common;
      const services = upgradeServiceDeps(kube, deps, { catalogdUrl, registryValues: a.plan.registryValues, imageLimits: a.plan.imageLimits }, io);
      const result = await planUpgrade(services, { ...a.plan, systemNamespace });
      if (!result.ok) throw new CommandError(result.error, result.registrySettings === true ? EXIT.usage : EXIT.failed);
      const plan = result.plan;
      io.stdout.write(a.output === 'json' ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan));
      return plan.error === undefined ? EXIT.ok : EXIT.failed;
    });
  });
}

/** Runs `olmv1 upgrade approve`; `args` are the arguments after `upgrade approve`. */
export async function runUpgradeApprove(args: readonly string[], io: CommandIO, deps: UpgradeCommandDeps): Promise<number> {
  return runCommand(io, async () => {
    const a = parseApproveArgs(args);
    await withCluster(deps.connectCluster(a.common.cluster), async (kube) => {
      const { catalogdUrl, systemNamespace } = a.common;
      const services = upgradeServiceDeps(kube, deps, { catalogdUrl, registryValues: {}, imageLimits: BUNDLE_IMAGE_LIMITS }, io);
      const r = await approveUpgrade(services, { extension: a.extension, systemNamespace, version: a.version, dryRun: a.dryRun });
      for (const line of approvalLines(r)) io.stdout.write(`${line}\n`);
      if (!r.ok) throw new CommandError(r.error, EXIT.failed);
    });
  });
}
