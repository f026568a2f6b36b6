/**
 * What catalogd and operator-controller share in their flags and composition: the cluster
 * connection, system namespace, health address, leader election, registry access and logging,
 * and running the leader-only part of a component.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { PullSecretCredentials } from '../../pkg/shared/pullsecret/index.ts';
import { createImageClient, type ImageClient, type ImageLimits, type RegistriesConfPaths } from '../../pkg/shared/image/index.ts';
import {
  LeaderElector,
  checkLeaderElectionDurations,
  connect,
  type KubeClient,
  type KubeContext,
  type LeaderElectionDurations,
} from '../../pkg/shared/kube/index.ts';
import { type ProxyEnvironment, type ProxySelector, checkRegistryCertDir, registryCertDir } from '../../pkg/shared/nodehttp/index.ts';
import { proxySelector, readProxyEnvironment } from './proxy.ts';
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
import { LOG_FLAGS, type LogOptions, logOptions } from './logging.ts';

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
  /**
   * HTTPS_PROXY/HTTP_PROXY/NO_PROXY of the environment, for registry and catalogd traffic (not
   * the Kubernetes API); unset: every request goes direct (tests that start components in-process).
   */
  proxy?: ProxyEnvironment | undefined;
  /**
   * Where registries.conf is read from before each pull (from the environment, see
   * registries-conf.ts); unset: none is read (tests that start components in-process).
   */
  registriesConf?: RegistriesConfPaths | undefined;
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
  ...LOG_FLAGS,
} as const satisfies ParseArgsConfig['options'];

/** Go-style boolean flags: `--leader-elect` (or `--insecure-metrics`) alone means true. */
function normalizeBoolFlags(argv: readonly string[]): string[] {
  return argv.map((a) => (a === '--leader-elect' || a === '--insecure-metrics' ? `${a}=true` : a));
}

/**
 * Parses a component's argv: the common flags plus `flags` (string-valued, the component's own).
 * Returns 'help' for -h/--help; otherwise the common options and the component's flag values.
 * `defaultDurations` are the leader election durations when no flag sets them (undefined:
 * client-go's). Throws parseArgs' error on an unknown flag or a missing value, and on
 * inconsistent leader election durations.
 */
export function parseComponentFlags<F extends Record<string, { type: 'string' }>>(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  flags: F,
  defaultLeaseName: string,
  defaultDurations?: LeaderElectionDurations,
): { common: ComponentOptions; values: { [K in keyof F]?: string } } | 'help' {
  // Typed loosely here: the common flags' values go to componentOptions, the rest are strings.
  const options: ParseArgsConfig['options'] = { ...COMPONENT_FLAGS, ...flags };
  const { values } = parseArgs({ args: normalizeBoolFlags(argv), strict: true, options });
  if (values['help'] === true) return 'help';
  const common = componentOptions(values as Parameters<typeof componentOptions>[0], env, defaultLeaseName);
  const durations = leaderElectionDurations(values as Record<string, unknown>, defaultDurations);
  return {
    common: durations === undefined ? common : { ...common, leaderElection: durations },
    values: values as { [K in keyof F]?: string },
  };
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
    throw new Error(`invalid --leader-elect-* durations: ${(err as Error).message}`, { cause: err });
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
  const ns = str('system-namespace') ?? env.POD_NAMESPACE ?? 'olmv1-system';
  return {
    ...clusterLocation(str('kubeconfig'), env),
    systemNamespace: ns,
    healthProbe: parseListenAddress(str('health-probe-bind-address') ?? ':8081'),
    leaderElect: parseBool('--leader-elect', str('leader-elect') ?? 'true'),
    leaderElectionId: str('leader-election-id') ?? defaultLeaseName,
    identity: env.POD_NAME ?? `${hostname()}_${process.pid}`,
    pullSecret: parseSecretRef('--global-pull-secret', str('global-pull-secret'), ns),
    insecureRegistries: Array.isArray(values['insecure-registry']) ? values['insecure-registry'] : [],
    pullCaFile: str('pull-ca-file'),
    pullCasDir: str('pull-cas-dir'),
    proxy: readProxyEnvironment(env),
    ...logOptions({
      'log-level': str('log-level'),
      'log-format': str('log-format'),
      'zap-log-level': str('zap-log-level'),
      'zap-encoder': str('zap-encoder'),
      'zap-time-encoding': str('zap-time-encoding'),
    }),
    registriesConf: registriesConfPaths(env),
  };
}

/** Connects to the cluster the options name, as `userAgent`. */
export function connectComponent(o: ClusterLocation, userAgent: string): Promise<KubeContext> {
  return connect(
    o.kubeconfig !== undefined
      ? { kind: 'file', path: o.kubeconfig }
      : { kind: 'inCluster', host: o.inCluster?.host ?? '', port: o.inCluster?.port ?? '443' },
    { userAgent },
  );
}

/**
 * Runs `lead` while this replica leads (with leader election) or until `signal` aborts
 * (without). Resolves 'lost-leadership' when an elected leader lost its Lease.
 */
export async function runLeading(
  o: Pick<ComponentOptions, 'leaderElect' | 'systemNamespace' | 'leaderElectionId' | 'identity' | 'leaderElection'>,
  deps: { client: KubeClient; log: Logger; registry: Registry },
  lead: (leading: AbortSignal) => Promise<void>,
  signal: AbortSignal,
): Promise<'stopped' | 'lost-leadership'> {
  if (!o.leaderElect) {
    await lead(signal);
    return 'stopped';
  }
  const elector = new LeaderElector({
    client: deps.client,
    namespace: o.systemNamespace,
    name: o.leaderElectionId,
    identity: o.identity,
    ...(o.leaderElection ?? {}),
    log: deps.log,
    registry: deps.registry,
    onStartedLeading: lead,
  });
  return (await elector.run(signal)) === 'lost' ? 'lost-leadership' : 'stopped';
}

/**
 * The image client of a component: plain HTTP for the insecure registries, credentials from the
 * `--global-pull-secret` Secret and the imagePullSecrets of the component's ServiceAccount (kept
 * current by `pullSecret.run`, which the caller runs), extra CAs
 * from `--pull-ca-file` (re-read at each connection pool rebuild) and the certificate directory
 * `--pull-cas-dir` (checked now, re-read while in use), mirrors and blocked or insecure registries
 * from registries.conf (re-read at each pull), the proxy of the environment.
 * @throws Error when `--pull-cas-dir` cannot be read or holds no certificate (upstream's check).
 */
export function componentImages(
  o: Pick<ComponentOptions, 'pullSecret' | 'pullCaFile' | 'pullCasDir' | 'proxy' | 'insecureRegistries' | 'registriesConf'> & {
    imageLimits: ImageLimits;
    /** Connect and read timeouts of registry requests (pkg/shared/image defaults when absent). */
    pullConnectTimeoutMs?: number;
    pullReadTimeoutMs?: number;
  },
  client: KubeClient,
  log: Logger,
  userAgent: string,
): { images: ImageClient; pullSecret: PullSecretCredentials } {
  // Upstream's sources: the global pull secret, then the imagePullSecrets of our ServiceAccount.
  const pullSecret = new PullSecretCredentials(client, { global: o.pullSecret, serviceAccount: 'self' }, log);
  const caFile = o.pullCaFile;
  if (o.pullCasDir !== undefined) checkRegistryCertDir(o.pullCasDir);
  const certs = o.pullCasDir === undefined ? undefined : registryCertDir(o.pullCasDir);
  const proxy = componentProxy(o, log);
  const images = createImageClient({
    insecureRegistries: o.insecureRegistries,
    credentials: () => pullSecret?.get(),
    ...(caFile === undefined ? {} : { caPem: () => readFileSync(caFile, 'utf8') }),
    ...(certs === undefined ? {} : { tlsFor: (url: URL) => certs.tlsFor(url) }),
    ...(proxy === undefined ? {} : { proxy }),
    logger: log,
    userAgent,
    limits: o.imageLimits,
    registriesConf: o.registriesConf,
    ...(o.pullConnectTimeoutMs === undefined ? {} : { connectTimeoutMs: o.pullConnectTimeoutMs }),
    ...(o.pullReadTimeoutMs === undefined ? {} : { timeoutMs: o.pullReadTimeoutMs }),
  });
  return { images, pullSecret };
}

/** The proxy selector of the options (undefined: direct), logged once per component. */
function componentProxy(o: Pick<ComponentOptions, 'proxy'>, log: Logger): ProxySelector | undefined {
  return o.proxy === undefined ? undefined : proxySelector(o.proxy, log);
}
