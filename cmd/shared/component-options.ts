/**
 * The flags and environment every component has, parsed into ComponentOptions; apart from
 * component.ts so that parsing needs few imports (decision 0097).
 */
import { hostname } from 'node:os';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { RegistriesConfPaths, SignaturePolicyPaths } from '../../pkg/shared/image/index.ts';
// The kubeconfig reader alone, not pkg/shared/kube's index (the client and informers): a
// component reads its credentials first, before it serves or loads the rest (decision 0097).
import { loadKubeConfig, type ResolvedKubeConfig } from '../../pkg/shared/kube/kubeconfig.ts';
import { checkLeaderElectionDurations, type LeaderElectionDurations } from '../../pkg/shared/kube/leader-election.ts';
import type { ProxyEnvironment } from '../../pkg/shared/nodehttp/index.ts';
import { readProxyEnvironment } from './proxy.ts';
import {
  type ClusterLocation,
  type ListenAddress,
  clusterLocation,
  parseBool,
  parseListenAddress,
  parsePositiveDuration,
  parseSecretRef,
} from './flags.ts';
import { registriesConfPaths } from './registries-conf.ts';
import { signaturePolicyPaths } from './signature-policy.ts';
import { LOG_FLAGS, type LogOptions, logOptions } from './logging.ts';
import { COMMON_INERT_FLAGS, type FlagNotice, type InertFlag, inertBoolFlags, inertFlagNotices, inertFlagOptions } from './upstream-flags.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';

/** Options every component has. */
export interface ComponentOptions extends ClusterLocation, LogOptions {
  systemNamespace: string;
  healthProbe: ListenAddress;
  leaderElect: boolean;
  leaderElectionId: string;
  /** `--leader-elect-{lease-duration,renew-deadline,retry-period}`; undefined: client-go's defaults (15 s, 10 s, 2 s). */
  leaderElection?: LeaderElectionDurations | undefined;
  identity: string;
  pullSecret: { namespace: string; name: string } | undefined;
  insecureRegistries: string[];
  pullCaFile: string | undefined;
  /** `--pull-cas-dir`: a registry certificate directory (CAs, client certificates), re-read while in use. */
  pullCasDir?: string | undefined;
  /** The environment's proxy for registry and catalogd traffic; unset: direct (in-process tests). */
  proxy?: ProxyEnvironment | undefined;
  /** Where registries.conf is read from before each pull (registries-conf.ts); unset: none (in-process tests). */
  registriesConf?: RegistriesConfPaths | undefined;
  /** Where the signature policy and registries.d are read from before each uncached pull (signature-policy.ts); unset: no policy (in-process tests). */
  signaturePolicy?: SignaturePolicyPaths | undefined;
  /** `--pprof-bind-address`: where the CPU and heap profiles are served (componentMain); undefined (0 or empty, the default): off. */
  pprof?: ListenAddress | undefined;
  /** Upstream flags given values that have no effect here: one warning each at start (componentMain). */
  flagNotices?: FlagNotice[] | undefined;
  /** Every feature gate's value, logged at start as upstream does (`feature gate status`, one field a gate). */
  featureGateStatus?: Record<string, boolean> | undefined;
}

/** The `parseArgs` options of the common flags. */
const COMPONENT_FLAGS = {
  help: { type: 'boolean', short: 'h' },
  kubeconfig: { type: 'string' },
  'system-namespace': { type: 'string' },
  'health-probe-bind-address': { type: 'string' },
  'leader-elect': { type: 'string' },
  'leader-election-id': { type: 'string' },
  'leader-elect-lease-duration': { type: 'string' },
  'leader-elect-renew-deadline': { type: 'string' },
  'leader-elect-retry-period': { type: 'string' },
  'global-pull-secret': { type: 'string' },
  'insecure-registry': { type: 'string', multiple: true },
  'pull-ca-file': { type: 'string' },
  'pull-cas-dir': { type: 'string' },
  'pprof-bind-address': { type: 'string' },
  ...LOG_FLAGS,
} as const satisfies ParseArgsConfig['options'];

/** A component's own flag: a string, or (`multiple`) every occurrence, as `--feature-gates`. */
type OwnFlag = { type: 'string'; multiple?: true };

/**
 * Go-style boolean flags: `--leader-elect` (or `--insecure-metrics`, or a bool flag of klog's)
 * alone means true. pflag's `-v=N` (klog's `v`, one letter, so also a shorthand) is `--v=N`.
 */
function normalizeArgs(argv: readonly string[], bools: ReadonlySet<string>): string[] {
  return argv.map((a) => (bools.has(a) ? `${a}=true` : a.startsWith('-v=') ? `-${a}` : a));
}

/**
 * Parses a component's argv: the common flags, its own `flags`, and upstream's inert flags
 * (common and `inert`; `flagNotices` lists those given a value that asks for something).
 * `defaultDurations`: leader election's when no flag sets them (undefined: client-go's).
 * Throws on an unknown flag, a missing or refused value, or inconsistent durations.
 */
export function parseComponentFlags<F extends Record<string, OwnFlag>>(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  flags: F,
  defaultLeaseName: string,
  defaultDurations?: LeaderElectionDurations,
  inert: Readonly<Record<string, InertFlag>> = {},
): { common: ComponentOptions; values: { [K in keyof F]?: F[K] extends { multiple: true } ? string[] : string } } | 'help' {
  const inertFlags = { ...COMMON_INERT_FLAGS, ...inert };
  // Typed loosely here: the common flags' values go to componentOptions, the rest are strings.
  const options: ParseArgsConfig['options'] = { ...inertFlagOptions(inertFlags), ...COMPONENT_FLAGS, ...flags };
  const bools = new Set(['--leader-elect', '--insecure-metrics', ...inertBoolFlags(inertFlags)]);
  const { values } = parseArgs({ args: normalizeArgs(argv, bools), strict: true, options });
  if (values['help'] === true) return 'help';
  const common = componentOptions(values as Parameters<typeof componentOptions>[0], env, defaultLeaseName);
  const durations = leaderElectionDurations(values as Record<string, unknown>, defaultDurations);
  const notices = inertFlagNotices(values, inertFlags);
  return {
    common: { ...common, ...(durations === undefined ? {} : { leaderElection: durations }), flagNotices: notices },
    values: values as { [K in keyof F]?: F[K] extends { multiple: true } ? string[] : string },
  };
}

/**
 * The help lines of the common flags (COMPONENT_FLAGS) from the health probes to the registries,
 * in 36 columns: `leaderElect` says what the election is for; the Lease name and the durations are
 * the component's defaults (default durations: client-go's).
 */
export function componentFlagsHelp(leaderElect: string, leaseName: string, durations: LeaderElectionDurations = CLIENT_GO_DURATIONS): string {
  const s = (ms: number): string => `${ms / 1000}s`;
  return `  --health-probe-bind-address ADDR  /healthz and /readyz (default :8081)
  --leader-elect[=false]            ${leaderElect} (default true)
  --leader-election-id NAME         Lease name (default ${leaseName})
  --leader-elect-lease-duration D   a candidate takes over a Lease unrenewed this long (default ${s(durations.leaseDurationMs)})
  --leader-elect-renew-deadline D   the leader steps down when it could not renew for this long (default ${s(durations.renewDeadlineMs)})
  --leader-elect-retry-period D     renewal and candidate retry period (default ${s(durations.retryPeriodMs)})
  --global-pull-secret [NS/]NAME    registry credentials Secret (default namespace: the system namespace)
  --insecure-registry HOST[:PORT]   reach this registry over plain HTTP (repeatable)
  --pull-ca-file FILE               extra PEM CA bundle for registries
  --pull-cas-dir DIR                registry certificates: *.crt CAs, NAME.cert+NAME.key client certificate,
                                    per registry in DIR/HOST[:PORT]/ too (re-read on change)
`;
}

/** client-go's defaults, which a flag left unset falls back to when the component has none of its own. */
const CLIENT_GO_DURATIONS: LeaderElectionDurations = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** The leader election durations from the flags over `defaults`; undefined when neither sets any. */
function leaderElectionDurations(
  values: Record<string, unknown>,
  defaults: LeaderElectionDurations | undefined,
): LeaderElectionDurations | undefined {
  const flag = (name: string): number | undefined =>
    typeof values[name] === 'string' ? parsePositiveDuration(`--${name}`, values[name]) : undefined;
  const lease = flag('leader-elect-lease-duration');
  const renew = flag('leader-elect-renew-deadline');
  const retry = flag('leader-elect-retry-period');
  if (defaults === undefined && lease === undefined && renew === undefined && retry === undefined) return undefined;
  const base = defaults ?? CLIENT_GO_DURATIONS;
  const d = {
    leaseDurationMs: lease ?? base.leaseDurationMs,
    renewDeadlineMs: renew ?? base.renewDeadlineMs,
    retryPeriodMs: retry ?? base.retryPeriodMs,
  };
  try {
    checkLeaderElectionDurations(d);
  } catch (err) {
    throw new Error(`invalid --leader-elect-* durations: ${errorMessage(err)}`, { cause: err });
  }
  return d;
}

/** The common options from parsed flag values and the environment; `leaderElectionId` is the component's default Lease name. */
function componentOptions(
  values: { [K in keyof typeof COMPONENT_FLAGS]?: (typeof COMPONENT_FLAGS)[K] extends { multiple: true } ? string[] : string | boolean },
  env: NodeJS.ProcessEnv,
  defaultLeaseName: string,
): ComponentOptions {
  const str = (k: keyof typeof COMPONENT_FLAGS): string | undefined => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  // An empty downward-API variable (a Deployment whose env was rewritten with values only) counts as unset.
  const ns = str('system-namespace') ?? (env.POD_NAMESPACE || 'olmv1-system');
  return {
    ...clusterLocation(str('kubeconfig'), env),
    systemNamespace: ns,
    healthProbe: parseListenAddress(str('health-probe-bind-address') ?? ':8081'),
    leaderElect: parseBool('--leader-elect', str('leader-elect') ?? 'true'),
    leaderElectionId: str('leader-election-id') ?? defaultLeaseName,
    identity: env.POD_NAME || `${hostname()}_${process.pid}`,
    pullSecret: parseSecretRef('--global-pull-secret', str('global-pull-secret'), ns),
    insecureRegistries: Array.isArray(values['insecure-registry']) ? values['insecure-registry'] : [],
    pullCaFile: str('pull-ca-file'),
    pullCasDir: str('pull-cas-dir'),
    pprof: pprofAddress(str('pprof-bind-address')),
    proxy: readProxyEnvironment(env),
    ...logOptions({
      'log-level': str('log-level'),
      'log-format': str('log-format'),
      'zap-log-level': str('zap-log-level'),
      'zap-encoder': str('zap-encoder'),
      'zap-time-encoding': str('zap-time-encoding'),
      v: str('v'),
    }),
    registriesConf: registriesConfPaths(env),
    signaturePolicy: signaturePolicyPaths(env),
  };
}

/** `--pprof-bind-address`: as upstream's, "0" (the default) or empty disables the endpoint. */
function pprofAddress(value: string | undefined): ListenAddress | undefined {
  if (value === undefined || value === '0' || value === '') return undefined;
  try {
    return parseListenAddress(value);
  } catch (err) {
    throw new Error(`invalid --pprof-bind-address: ${errorMessage(err)}`, { cause: err });
  }
}

/** Reads the cluster credentials the options name; called first, so bad ones end the start before anything listens. */
export function componentKubeConfig(o: ClusterLocation): ResolvedKubeConfig {
  return loadKubeConfig(
    o.kubeconfig !== undefined
      ? { kind: 'file', path: o.kubeconfig }
      : { kind: 'inCluster', host: o.inCluster?.host ?? '', port: o.inCluster?.port ?? '443' },
  );
}
