/**
 * operator-controller's command-line flags and environment, parsed once into a checked
 * options object. Flag names follow upstream operator-controller where the concept is the same.
 */
import { type ComponentOptions, componentFlagsHelp, parseComponentFlags } from '../shared/component-options.ts';
import { REGISTRIES_CONF_HELP } from '../shared/registries-conf.ts';
import { logFlagsHelp } from '../shared/logging.ts';
import { parsePositiveDuration, parsePositiveInt } from '../shared/flags.ts';
import { type GateSpec, featureGatesHelp, parseFeatureGates } from '../shared/feature-gates.ts';
import { commonInertFlagsHelp } from '../shared/upstream-flags.ts';
import { IMAGE_LIMIT_FLAGS, imageLimitHelp, imageLimitOptions } from '../shared/limits.ts';
import { SERVING_FLAGS, type ServingOptions, servingHelp, servingOptions } from '../shared/serving.ts';
// Files, not the modules' indexes (the registry client, the reconciler): flag parsing stays
// light, and operator-controller starts its informers before it loads those (decision 0097).
import { BUNDLE_IMAGE_LIMITS, type ImageLimits } from '../../pkg/shared/image/limits.ts';
// The file, not pkg/operator-controller/gating's index, which loads the YAML emulation (decision 0097).
import { parseClusterVersion, type ClusterMinor } from '../../pkg/operator-controller/gating/version.ts';
import { parseServiceAccountRef, type ServiceAccountRef } from '../../pkg/operator-controller/clusterextension/installer.ts';
// A light module (no Kubernetes client, no YAML): parsing the flag here costs nothing at start-up.
import { parseMaintenanceWindow, type MaintenanceWindow } from '../../pkg/operator-controller/maintenance/index.ts';
import { parsePauseAt, type PauseAt } from './test-pause.ts';

/**
 * Upstream's gates (api-and-controllers.md section 9), each honoured, with their defaults
 * (decision 0040 for the two install-mode/config gates); BoxcutterRuntime (alpha, off) installs
 * ClusterObjectSet revisions instead of Helm releases (decision 0125); TenantExtensions (ours,
 * alpha, off) runs the tenant controller: namespaced Extension requests under ExtensionPolicies
 * (decision 0138).
 */
const FEATURE_GATES = {
  SingleOwnNamespaceInstallSupport: { stage: 'Alpha', default: true },
  DeploymentConfig: { stage: 'Alpha', default: true },
  WebhookProviderCertManager: { stage: 'GA', default: true },
  WebhookProviderOpenshiftServiceCA: { stage: 'GA', default: true },
  BundleReleaseSupport: { stage: 'Alpha', default: false },
  BoxcutterRuntime: { stage: 'Alpha', default: false },
  TenantExtensions: { stage: 'Alpha', default: false },
} as const satisfies Record<string, GateSpec>;

/** The gates by name. */
type FeatureGates = Record<keyof typeof FEATURE_GATES, boolean>;

/** Feature gates and their defaults. */
export const FEATURE_GATE_DEFAULTS = Object.fromEntries(Object.entries(FEATURE_GATES).map(([name, gate]) => [name, gate.default])) as FeatureGates;

/** `tls` (`--tls-cert`/`--tls-key`) serves the metrics only. */
export interface OperatorControllerOptions extends ComponentOptions, ServingOptions {
  cacheDir: string;
  /** Replaces scheme, host and port of catalogs' `status.urls.base` (e.g. a port-forward). */
  catalogdUrl: URL | undefined;
  catalogdCaFile: string | undefined;
  /** `--catalogd-cas-dir`: every certificate in the directory is trusted for catalogd's HTTPS (re-read on change). */
  catalogdCasDir?: string | undefined;
  maxConcurrentReconciles: number;
  featureGates: FeatureGates;
  /** `--cluster-version X.Y[.Z]`: the cluster version the upgrade gate uses where ClusterVersion is not served. */
  clusterVersion?: ClusterMinor | undefined;
  /** Test hook only (`OLMV1_TEST_PAUSE_AT`, test-pause.ts): where to stop forever. */
  testPauseAt?: PauseAt[] | undefined;
  /** Caps of a bundle image pull. */
  imageLimits: ImageLimits;
  /** `--pull-connect-timeout`: bound of connecting to a registry (TCP and TLS). */
  pullConnectTimeoutMs: number;
  /** `--pull-read-timeout`: a registry request fails after this long without data. */
  pullReadTimeoutMs: number;
  /** `--default-install-service-account NS/NAME`: installs extensions whose spec names no ServiceAccount. */
  defaultInstallServiceAccount?: ServiceAccountRef | undefined;
  /** `--user-revision-service-account NS/NAME` (BoxcutterRuntime): writes the ClusterObjectSets no extension made (decision 0126). */
  userRevisionServiceAccount?: ServiceAccountRef | undefined;
  /** `--maintenance-window "<schedule> <duration> [<zone>]"`: the default window of automatic upgrades (decision 0122). */
  maintenanceWindow?: MaintenanceWindow | undefined;
}

/**
 * Upstream operator-controller's leader election durations (OpenShift's conventions) rather
 * than client-go's: renewing every 26 s instead of 2 s is most of what the leader does at rest
 * (bench/results/idle.md).
 */
const LEADER_ELECTION_DURATIONS = { leaseDurationMs: 137_000, renewDeadlineMs: 107_000, retryPeriodMs: 26_000 };

/** Upstream's leader election Lease name. */
const OPERATOR_CONTROLLER_LEASE = '9c4404e7.operatorframework.io';

/** Upstream operator-controller's metrics address when a certificate is given. */
const METRICS_ADDRESS = ':8443';

/** Default of `--pull-connect-timeout`. */
export const DEFAULT_PULL_CONNECT_TIMEOUT_MS = 10_000;
/** Default of `--pull-read-timeout`: bundles are small; a registry silent this long is stalled. */
export const DEFAULT_PULL_READ_TIMEOUT_MS = 30_000;

export const HELP = `Usage: operator-controller [flags]

Reconciles ClusterExtensions: resolves a bundle from the ClusterCatalogs catalogd serves, pulls
and renders it, and applies it as the extension's ServiceAccount, recording Helm-like releases.

Flags:
  --kubeconfig PATH                 kubeconfig (default $KUBECONFIG, else in-cluster)
  --system-namespace NS             where release records live (default $POD_NAMESPACE or olmv1-system)
  --cache-dir DIR                   bundle image cache (default /var/cache/operator-controller); upstream's
                                    name --cache-path is accepted too
  --catalogd-url URL                reach catalogd here instead of the host in catalogs' status.urls.base
  --catalogd-ca-file FILE           extra PEM CA bundle for catalogd's HTTPS
  --catalogd-cas-dir DIR            directory of PEM CA files for catalogd's HTTPS (re-read on change)
  --max-concurrent-reconciles N     ClusterExtensions reconciled in parallel (default 8)
  --default-install-service-account NS/NAME
                                    installs extensions whose spec names no serviceAccount (upstream's
                                    current YAML); without it they wait with a message (default: none)
  --user-revision-service-account NS/NAME
                                    BoxcutterRuntime: writes ClusterObjectSets that no ClusterExtension made
                                    as this ServiceAccount; without it they are refused (default: none)
  --maintenance-window "SCHEDULE DURATION [ZONE]"
                                    automatic upgrades of extensions without the annotation
                                    olm.operatorframework.io/maintenance-window start only inside this
                                    window, e.g. "0 2 * * SAT 4h Europe/Berlin" (cron schedule, Go
                                    duration, IANA zone, default UTC; default: none, any time)
${servingHelp(METRICS_ADDRESS, 'the metrics server')}${componentFlagsHelp('elect one active replica', OPERATOR_CONTROLLER_LEASE, LEADER_ELECTION_DURATIONS)}  --pull-connect-timeout DURATION   bound of connecting to a registry, TLS included (default 10s)
  --pull-read-timeout DURATION      a registry request fails after this long without data (default 30s)
${imageLimitHelp(36, BUNDLE_IMAGE_LIMITS)}${featureGatesHelp(FEATURE_GATES, 36)}  --cluster-version X.Y[.Z]         cluster version for the upgrade gate (olm.maxOpenShiftVersion) where the
                                    config.openshift.io ClusterVersion API is not served
${logFlagsHelp(36)}${commonInertFlagsHelp(36)}
Commands:
  version                           print the version, as upstream's operator-controller version does
${REGISTRIES_CONF_HELP}`;

/** Parses argv and env; throws Error with a usage message on bad input. */
export function parseOperatorControllerOptions(argv: string[], env: NodeJS.ProcessEnv): OperatorControllerOptions | 'help' {
  const parsed = parseComponentFlags(
    argv,
    env,
    {
      'cache-dir': { type: 'string' },
      'cache-path': { type: 'string' },
      'catalogd-url': { type: 'string' },
      'catalogd-ca-file': { type: 'string' },
      'catalogd-cas-dir': { type: 'string' },
      'max-concurrent-reconciles': { type: 'string' },
      'feature-gates': { type: 'string', multiple: true },
      'cluster-version': { type: 'string' },
      'pull-connect-timeout': { type: 'string' },
      'pull-read-timeout': { type: 'string' },
      ...SERVING_FLAGS,
      'default-install-service-account': { type: 'string' },
      'user-revision-service-account': { type: 'string' },
      'maintenance-window': { type: 'string' },
      ...IMAGE_LIMIT_FLAGS,
    },
    OPERATOR_CONTROLLER_LEASE,
    LEADER_ELECTION_DURATIONS,
  );
  if (parsed === 'help') return 'help';
  const { common, values } = parsed;
  const workers = parsePositiveInt('--max-concurrent-reconciles', values['max-concurrent-reconciles'] ?? '8');
  const url = values['catalogd-url'];
  let catalogdUrl: URL | undefined;
  if (url !== undefined) {
    catalogdUrl = URL.canParse(url) ? new URL(url) : undefined;
    if (catalogdUrl === undefined || (catalogdUrl.protocol !== 'http:' && catalogdUrl.protocol !== 'https:')) {
      throw new Error(`invalid --catalogd-url ${JSON.stringify(url)} (want http(s)://HOST[:PORT])`);
    }
  }
  const installerFlag = values['default-install-service-account'];
  const installer = installerFlag === undefined || installerFlag === '' ? undefined : parseServiceAccountRef(installerFlag);
  if (installer !== undefined && !installer.ok) throw new Error(`invalid --default-install-service-account: ${installer.error}`);
  const userRevisionsFlag = values['user-revision-service-account'];
  const userRevisions = userRevisionsFlag === undefined || userRevisionsFlag === '' ? undefined : parseServiceAccountRef(userRevisionsFlag);
  if (userRevisions !== undefined && !userRevisions.ok) throw new Error(`invalid --user-revision-service-account: ${userRevisions.error}`);
  const windowFlag = values['maintenance-window'];
  const maintenanceWindow = windowFlag === undefined || windowFlag.trim() === '' ? undefined : parseMaintenanceWindow(windowFlag);
  if (maintenanceWindow !== undefined && !maintenanceWindow.ok) throw new Error(`invalid --maintenance-window: ${maintenanceWindow.error}`);
  const clusterVersionFlag = values['cluster-version'];
  const clusterVersion = clusterVersionFlag === undefined ? undefined : parseClusterVersion(clusterVersionFlag);
  if (clusterVersion !== undefined && !clusterVersion.ok) throw new Error(`invalid --cluster-version: ${clusterVersion.error}`);
  const gates = parseFeatureGates(values['feature-gates'], FEATURE_GATES, 'operator-controller');
  const featureGates = gates.gates;
  return {
    ...common,
    flagNotices: [...(common.flagNotices ?? []), ...gates.notices],
    featureGateStatus: gates.status,
    ...servingOptions(values, METRICS_ADDRESS),
    cacheDir: aliased('--cache-dir', values['cache-dir'], '--cache-path', values['cache-path']) ?? '/var/cache/operator-controller',
    catalogdUrl,
    catalogdCaFile: values['catalogd-ca-file'],
    catalogdCasDir: values['catalogd-cas-dir'],
    maxConcurrentReconciles: workers,
    featureGates,
    clusterVersion: clusterVersion?.value,
    ...(env.OLMV1_TEST_PAUSE_AT === undefined || env.OLMV1_TEST_PAUSE_AT === '' ? {} : { testPauseAt: parsePauseAt(env.OLMV1_TEST_PAUSE_AT) }),
    imageLimits: imageLimitOptions(values, BUNDLE_IMAGE_LIMITS),
    pullConnectTimeoutMs: duration('--pull-connect-timeout', values['pull-connect-timeout'], DEFAULT_PULL_CONNECT_TIMEOUT_MS),
    pullReadTimeoutMs: duration('--pull-read-timeout', values['pull-read-timeout'], DEFAULT_PULL_READ_TIMEOUT_MS),
    defaultInstallServiceAccount: installer?.value,
    userRevisionServiceAccount: userRevisions?.value,
    maintenanceWindow: maintenanceWindow?.value,
  };
}

/** The value of a flag given under our name or upstream's (`alias`); both with different values is an error. */
function aliased(flag: string, value: string | undefined, alias: string, aliasValue: string | undefined): string | undefined {
  if (value !== undefined && aliasValue !== undefined && value !== aliasValue)
    throw new Error(`${flag} and ${alias} (upstream's name) give different values`);
  return value ?? aliasValue;
}

function duration(flag: string, value: string | undefined, fallback: number): number {
  return value === undefined ? fallback : parsePositiveDuration(flag, value);
}
