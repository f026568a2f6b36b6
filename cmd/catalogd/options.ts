/**
 * catalogd's command-line flags and environment, parsed once into a checked options object.
 * Flag names follow upstream catalogd where the concept is the same.
 */
import { type ComponentOptions, componentFlagsHelp, parseComponentFlags } from '../shared/component-options.ts';
import { REGISTRIES_CONF_HELP } from '../shared/registries-conf.ts';
import { logFlagsHelp } from '../shared/logging.ts';
import type { DecodeLimits } from '../../pkg/shared/fbc/index.ts';
// Files, not the modules' indexes (the reconcilers, the registry client): catalogd parses its
// flags and serves stored content before it loads those (decision 0097).
import { DEFAULT_INGEST_TIMEOUT_MS } from '../../pkg/catalogd/clustercatalog/ingest-bounds.ts';
import { goDuration } from '../../pkg/gocompat/gotext/index.ts';
import { type ListenAddress, parseDuration, parseListenAddress, parsePositiveDuration, parsePositiveInt } from '../shared/flags.ts';
import { CATALOG_IMAGE_LIMITS, type ImageLimits } from '../../pkg/shared/image/limits.ts';
import { type GateSpec, featureGatesHelp, parseFeatureGates } from '../shared/feature-gates.ts';
import { commonInertFlagsHelp } from '../shared/upstream-flags.ts';
import { SERVING_FLAGS, type ServingOptions, servingHelp, servingOptions } from '../shared/serving.ts';
import { DECODE_LIMIT_FLAGS, IMAGE_LIMIT_FLAGS, decodeLimitHelp, decodeLimitOptions, imageLimitHelp, imageLimitOptions } from '../shared/limits.ts';

/** `tls` (`--tls-cert`/`--tls-key`) serves the catalog API over HTTPS as well as the metrics. */
export interface CatalogdOptions extends ComponentOptions, ServingOptions {
  cacheDir: string;
  catalogServer: ListenAddress;
  externalAddress: string;
  gcIntervalMs: number;
  /** Size limits of decoding a catalog's content. */
  decodeLimits: DecodeLimits;
  /** ClusterCatalogs reconciled (and synced) in parallel. */
  maxConcurrentReconciles: number;
  /**
   * Bound of one catalog ingest (resolve, pull, decode, store), and the least time before a
   * catalog that failed for a resource limit (this timeout, its ingest process's memory) is tried again.
   */
  ingestTimeoutMs: number;
  /** Caps of a catalog image pull. */
  imageLimits: ImageLimits;
  /**
   * Where the ClusterCatalog name-label webhook listens (HTTPS, with the serving certificate);
   * undefined: no webhook server (`--webhook-server-port=0`, or no certificate).
   */
  webhook: ListenAddress | undefined;
  /** Serve `POST /catalogs/<name>/api/v1/graphql` (the GraphQLCatalogQueries gate); absent means off. */
  graphqlQueries?: boolean;
  /** Length of a `pollIntervalMinutes` minute. Not a flag: tests shorten it to poll in seconds. */
  pollMinuteMs?: number;
}

/** Upstream's leader election Lease name. */
const CATALOGD_LEASE = 'catalogd-operator-lock';

/** Upstream catalogd's metrics address when a certificate is given. */
const METRICS_ADDRESS = ':7443';

/** Upstream catalogd's webhook server port. */
const WEBHOOK_PORT = 9443;

/** Default of `--max-concurrent-reconciles`: a catalog that takes long leaves a worker to the others. */
const DEFAULT_WORKERS = 2;

/**
 * Upstream catalogd's gates (api-and-controllers.md section 9) and what each does here.
 * `/api/v1/metas` is always served, from the index every catalog gets at ingest (a deliberate
 * difference from upstream, where it is Alpha and off): `APIV1MetasHandler=false` changes nothing.
 * `GraphQLCatalogQueries=true` serves `POST /api/v1/graphql` (decision 0102), off by default as upstream.
 */
const FEATURE_GATES = {
  APIV1MetasHandler: {
    stage: 'Alpha',
    default: true,
    noEffect: { value: false, why: '/api/v1/metas is always served here, from the index every catalog gets at ingest' },
  },
  GraphQLCatalogQueries: { stage: 'Alpha', default: false },
} as const satisfies Record<string, GateSpec>;

export const HELP = `Usage: catalogd [flags]

Reconciles ClusterCatalogs: pulls catalog images, stores their file-based catalogs by digest and
serves them at /catalogs/<name>/api/v1/{all,metas} (and POST .../graphql with GraphQLCatalogQueries=true).

Flags:
  --kubeconfig PATH                 kubeconfig (default $KUBECONFIG, else in-cluster)
  --system-namespace NS             namespace of catalogd (default $POD_NAMESPACE or olmv1-system)
  --cache-dir DIR                   content store and unpack cache (default /var/cache/catalogd)
  --catalogs-server-addr ADDR       catalog HTTP server address (default :8443)
  --external-address HOST           host clients use, published in status.urls (default catalogd-service.<ns>.svc)
${servingHelp(METRICS_ADDRESS, 'the catalog API over HTTPS, and the metrics server')}${componentFlagsHelp('elect one leader to write status', CATALOGD_LEASE)}  --gc-interval DURATION            garbage-collection period (default 12h)
  --max-concurrent-reconciles N     ClusterCatalogs pulled and stored in parallel (default ${DEFAULT_WORKERS})
  --ingest-timeout DURATION         limit of one catalog's pull and store; a catalog that exceeded it or the
                                    memory of its ingest process is retried after as long at the earliest
                                    (default ${goDuration(DEFAULT_INGEST_TIMEOUT_MS)})
  --webhook-server-port PORT        HTTPS port of the ClusterCatalog metadata.name label webhook, served with
                                    --tls-cert/--tls-key on every address (default ${WEBHOOK_PORT}; 0: none)
${decodeLimitHelp(36)}${imageLimitHelp(36, CATALOG_IMAGE_LIMITS)}${featureGatesHelp(FEATURE_GATES, 36)}${logFlagsHelp(36)}${commonInertFlagsHelp(36)}
Commands:
  version                           print the version, as upstream's catalogd version does
${REGISTRIES_CONF_HELP}`;

/** `--webhook-server-port`: 0-65535, as controller-runtime's webhook server takes it (0: none here). */
function parseWebhookPort(value: string): number {
  const port = Number(value);
  if (!/^\d{1,5}$/.test(value) || port > 65535) throw new Error(`invalid --webhook-server-port ${JSON.stringify(value)} (want a port number)`);
  return port;
}

/** Parses argv and env; throws Error with a usage message on bad input. */
export function parseCatalogdOptions(argv: string[], env: NodeJS.ProcessEnv): CatalogdOptions | 'help' {
  const parsed = parseComponentFlags(
    argv,
    env,
    {
      'cache-dir': { type: 'string' },
      'catalogs-server-addr': { type: 'string' },
      'external-address': { type: 'string' },
      ...SERVING_FLAGS,
      'gc-interval': { type: 'string' },
      ...DECODE_LIMIT_FLAGS,
      'max-concurrent-reconciles': { type: 'string' },
      'ingest-timeout': { type: 'string' },
      ...IMAGE_LIMIT_FLAGS,
      'feature-gates': { type: 'string', multiple: true },
      'webhook-server-port': { type: 'string' },
    },
    CATALOGD_LEASE,
  );
  if (parsed === 'help') return 'help';
  const { common, values } = parsed;
  const ns = common.systemNamespace;
  const gates = parseFeatureGates(values['feature-gates'], FEATURE_GATES, 'catalogd');
  const serving = servingOptions(values, METRICS_ADDRESS);
  const webhookPort = parseWebhookPort(values['webhook-server-port'] ?? String(WEBHOOK_PORT));
  return {
    ...common,
    flagNotices: [...(common.flagNotices ?? []), ...gates.notices],
    featureGateStatus: gates.status,
    ...serving,
    webhook: serving.tls === undefined || webhookPort === 0 ? undefined : { host: '0.0.0.0', port: webhookPort },
    cacheDir: values['cache-dir'] ?? '/var/cache/catalogd',
    catalogServer: parseListenAddress(values['catalogs-server-addr'] ?? ':8443'),
    externalAddress: values['external-address'] ?? `catalogd-service.${ns}.svc`,
    gcIntervalMs: parseDuration(values['gc-interval'] ?? '12h'),
    decodeLimits: decodeLimitOptions(values),
    maxConcurrentReconciles: parsePositiveInt('--max-concurrent-reconciles', values['max-concurrent-reconciles'] ?? String(DEFAULT_WORKERS)),
    ingestTimeoutMs:
      values['ingest-timeout'] === undefined ? DEFAULT_INGEST_TIMEOUT_MS : parsePositiveDuration('--ingest-timeout', values['ingest-timeout']),
    imageLimits: imageLimitOptions(values, CATALOG_IMAGE_LIMITS),
    graphqlQueries: gates.status.GraphQLCatalogQueries === true,
  };
}
