/**
 * catalogd's command-line flags and environment, parsed once into a checked options object.
 * Flag names follow upstream catalogd where the concept is the same.
 */
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { type ListenAddress, clusterLocation, parseBool, parseDuration, parseListenAddress, parseSecretRef } from '../shared/flags.ts';

export interface CatalogdOptions {
  /** Kubeconfig file; undefined means in-cluster configuration. */
  kubeconfig: string | undefined;
  inCluster: { host: string; port: string } | undefined;
  systemNamespace: string;
  cacheDir: string;
  catalogServer: ListenAddress;
  externalAddress: string;
  tls: { certPath: string; keyPath: string } | undefined;
  healthProbe: ListenAddress;
  leaderElect: boolean;
  leaderElectionId: string;
  identity: string;
  pullSecret: { namespace: string; name: string } | undefined;
  insecureRegistries: string[];
  pullCaFile: string | undefined;
  gcIntervalMs: number;
  logLevel: string;
  /** Length of a `pollIntervalMinutes` minute. Not a flag: tests shorten it to poll in seconds. */
  pollMinuteMs?: number;
}

export const HELP = `Usage: catalogd [flags]

Reconciles ClusterCatalogs: pulls catalog images, stores their file-based catalogs by digest and
serves them at /catalogs/<name>/api/v1/{all,metas}.

Flags:
  --kubeconfig PATH                 kubeconfig (default $KUBECONFIG, else in-cluster)
  --system-namespace NS             namespace of catalogd (default $POD_NAMESPACE or olmv1-system)
  --cache-dir DIR                   content store and unpack cache (default /var/cache/catalogd)
  --catalogs-server-addr ADDR       catalog HTTP server address (default :8443)
  --external-address HOST           host clients use, published in status.urls (default catalogd-service.<ns>.svc)
  --tls-cert FILE --tls-key FILE    serve the catalog API over HTTPS (reloaded on change)
  --health-probe-bind-address ADDR  /healthz, /readyz and /metrics (default :8081)
  --leader-elect[=false]            elect one leader to write status (default true)
  --leader-election-id NAME         Lease name (default catalogd-operator-lock)
  --global-pull-secret [NS/]NAME    registry credentials Secret (default namespace: the system namespace)
  --insecure-registry HOST[:PORT]   reach this registry over plain HTTP (repeatable)
  --pull-ca-file FILE               extra PEM CA bundle for registries
  --gc-interval DURATION            garbage-collection period (default 12h)
  --log-level LEVEL                 trace, debug, info, warn, error (default info)
`;

/** Parses argv and env; throws Error with a usage message on bad input. */
export function parseCatalogdOptions(argv: string[], env: NodeJS.ProcessEnv): CatalogdOptions | 'help' {
  const { values } = parseArgs({
    // `--leader-elect` alone means true, as Go's boolean flags do.
    args: argv.map((a) => (a === '--leader-elect' ? '--leader-elect=true' : a)),
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      kubeconfig: { type: 'string' },
      'system-namespace': { type: 'string' },
      'cache-dir': { type: 'string' },
      'catalogs-server-addr': { type: 'string' },
      'external-address': { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'health-probe-bind-address': { type: 'string' },
      'leader-elect': { type: 'string' },
      'leader-election-id': { type: 'string' },
      'global-pull-secret': { type: 'string' },
      'insecure-registry': { type: 'string', multiple: true },
      'pull-ca-file': { type: 'string' },
      'gc-interval': { type: 'string' },
      'log-level': { type: 'string' },
    },
  });
  if (values.help === true) return 'help';
  const ns = values['system-namespace'] ?? env.POD_NAMESPACE ?? 'olmv1-system';
  const { kubeconfig, inCluster } = clusterLocation(values.kubeconfig, env);
  const cert = values['tls-cert'];
  const key = values['tls-key'];
  if ((cert === undefined) !== (key === undefined)) throw new Error('--tls-cert and --tls-key must be given together');
  return {
    kubeconfig,
    inCluster,
    systemNamespace: ns,
    cacheDir: values['cache-dir'] ?? '/var/cache/catalogd',
    catalogServer: parseListenAddress(values['catalogs-server-addr'] ?? ':8443'),
    externalAddress: values['external-address'] ?? `catalogd-service.${ns}.svc`,
    tls: cert !== undefined && key !== undefined ? { certPath: cert, keyPath: key } : undefined,
    healthProbe: parseListenAddress(values['health-probe-bind-address'] ?? ':8081'),
    leaderElect: parseBool('--leader-elect', values['leader-elect'] ?? 'true'),
    leaderElectionId: values['leader-election-id'] ?? 'catalogd-operator-lock',
    identity: env.POD_NAME ?? `${hostname()}_${process.pid}`,
    pullSecret: parseSecretRef('--global-pull-secret', values['global-pull-secret'], ns),
    insecureRegistries: values['insecure-registry'] ?? [],
    pullCaFile: values['pull-ca-file'],
    gcIntervalMs: parseDuration(values['gc-interval'] ?? '12h'),
    logLevel: values['log-level'] ?? 'info',
  };
}
