/**
 * operator-controller's command-line flags and environment, parsed once into a checked
 * options object. Flag names follow upstream operator-controller where the concept is the same.
 */
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { type ListenAddress, clusterLocation, parseBool, parseFeatureGates, parseListenAddress, parseSecretRef } from '../shared/flags.ts';

/** Feature gates and their defaults (decision 0040 for the two install-mode/config gates). */
export const FEATURE_GATE_DEFAULTS = {
  SingleOwnNamespaceInstallSupport: true,
  DeploymentConfig: true,
  WebhookProviderCertManager: true,
  WebhookProviderOpenshiftServiceCA: true,
  BundleReleaseSupport: false,
} as const;

/** The gates by name. */
export type FeatureGates = Record<keyof typeof FEATURE_GATE_DEFAULTS, boolean>;

export interface OperatorControllerOptions {
  /** Kubeconfig file; undefined means in-cluster configuration. */
  kubeconfig: string | undefined;
  inCluster: { host: string; port: string } | undefined;
  systemNamespace: string;
  cacheDir: string;
  /** Replaces scheme, host and port of catalogs' `status.urls.base` (e.g. a port-forward). */
  catalogdUrl: URL | undefined;
  catalogdCaFile: string | undefined;
  maxConcurrentReconciles: number;
  healthProbe: ListenAddress;
  leaderElect: boolean;
  leaderElectionId: string;
  identity: string;
  pullSecret: { namespace: string; name: string } | undefined;
  insecureRegistries: string[];
  pullCaFile: string | undefined;
  featureGates: FeatureGates;
  logLevel: string;
}

export const HELP = `Usage: operator-controller [flags]

Reconciles ClusterExtensions: resolves a bundle from the ClusterCatalogs catalogd serves, pulls
and renders it, and applies it as the extension's ServiceAccount, recording Helm-like releases.

Flags:
  --kubeconfig PATH                 kubeconfig (default $KUBECONFIG, else in-cluster)
  --system-namespace NS             where release records live (default $POD_NAMESPACE or olmv1-system)
  --cache-dir DIR                   bundle image cache (default /var/cache/operator-controller)
  --catalogd-url URL                reach catalogd here instead of the host in catalogs' status.urls.base
  --catalogd-ca-file FILE           extra PEM CA bundle for catalogd's HTTPS
  --max-concurrent-reconciles N     ClusterExtensions reconciled in parallel (default 4)
  --health-probe-bind-address ADDR  /healthz, /readyz and /metrics (default :8081)
  --leader-elect[=false]            elect one active replica (default true)
  --leader-election-id NAME         Lease name (default 9c4404e7.operatorframework.io)
  --global-pull-secret [NS/]NAME    registry credentials Secret (default namespace: the system namespace)
  --insecure-registry HOST[:PORT]   reach this registry over plain HTTP (repeatable)
  --pull-ca-file FILE               extra PEM CA bundle for registries
  --feature-gates GATES             e.g. BundleReleaseSupport=true,WebhookProviderCertManager=false
                                    (${Object.entries(FEATURE_GATE_DEFAULTS).map(([k, v]) => `${k}=${v}`).join(', ')})
  --log-level LEVEL                 trace, debug, info, warn, error (default info)
`;

/** Parses argv and env; throws Error with a usage message on bad input. */
export function parseOperatorControllerOptions(argv: string[], env: NodeJS.ProcessEnv): OperatorControllerOptions | 'help' {
  const { values } = parseArgs({
    args: argv.map((a) => (a === '--leader-elect' ? '--leader-elect=true' : a)),
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      kubeconfig: { type: 'string' },
      'system-namespace': { type: 'string' },
      'cache-dir': { type: 'string' },
      'catalogd-url': { type: 'string' },
      'catalogd-ca-file': { type: 'string' },
      'max-concurrent-reconciles': { type: 'string' },
      'health-probe-bind-address': { type: 'string' },
      'leader-elect': { type: 'string' },
      'leader-election-id': { type: 'string' },
      'global-pull-secret': { type: 'string' },
      'insecure-registry': { type: 'string', multiple: true },
      'pull-ca-file': { type: 'string' },
      'feature-gates': { type: 'string' },
      'log-level': { type: 'string' },
    },
  });
  if (values.help === true) return 'help';
  const ns = values['system-namespace'] ?? env.POD_NAMESPACE ?? 'olmv1-system';
  const workers = Number(values['max-concurrent-reconciles'] ?? '4');
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`invalid --max-concurrent-reconciles ${JSON.stringify(values['max-concurrent-reconciles'])} (want a positive integer)`);
  const url = values['catalogd-url'];
  let catalogdUrl: URL | undefined;
  if (url !== undefined) {
    catalogdUrl = URL.canParse(url) ? new URL(url) : undefined;
    if (catalogdUrl === undefined || (catalogdUrl.protocol !== 'http:' && catalogdUrl.protocol !== 'https:')) {
      throw new Error(`invalid --catalogd-url ${JSON.stringify(url)} (want http(s)://HOST[:PORT])`);
    }
  }
  return {
    ...clusterLocation(values.kubeconfig, env),
    systemNamespace: ns,
    cacheDir: values['cache-dir'] ?? '/var/cache/operator-controller',
    catalogdUrl,
    catalogdCaFile: values['catalogd-ca-file'],
    maxConcurrentReconciles: workers,
    healthProbe: parseListenAddress(values['health-probe-bind-address'] ?? ':8081'),
    leaderElect: parseBool('--leader-elect', values['leader-elect'] ?? 'true'),
    leaderElectionId: values['leader-election-id'] ?? '9c4404e7.operatorframework.io',
    identity: env.POD_NAME ?? `${hostname()}_${process.pid}`,
    pullSecret: parseSecretRef('--global-pull-secret', values['global-pull-secret'], ns),
    insecureRegistries: values['insecure-registry'] ?? [],
    pullCaFile: values['pull-ca-file'],
    featureGates: parseFeatureGates(values['feature-gates'], FEATURE_GATE_DEFAULTS),
    logLevel: values['log-level'] ?? 'info',
  };
}
