/**
 * The serving flags both components share, with upstream's names and defaults (serving
 * certificate, metrics address, TLS profile) and our `--insecure-metrics`. As upstream, metrics
 * are served only over HTTPS with a certificate to authorized callers; `--insecure-metrics` adds
 * plain `/metrics` on the health address for the local stack and tests (decision 0068).
 * metrics-serving.ts starts the server, so parsing loads no server (decision 0097).
 */
import { getCiphers, createSecureContext } from 'node:tls';
import type { CertificatePaths } from '../../pkg/shared/controller/index.ts';
import {
  type ProfileContextOptions,
  type TlsCapabilities,
  type TlsProfile,
  PROFILE_NAMES,
  TLS_VERSIONS,
  parseTlsProfile,
  secureContextOptions,
} from '../../pkg/shared/tlsprofile/index.ts';
import { type ListenAddress, parseBool, parseListenAddress } from './flags.ts';

/** The `parseArgs` options of the serving flags (string-valued; `--insecure-metrics` alone means true). */
export const SERVING_FLAGS = {
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'metrics-bind-address': { type: 'string' },
  'tls-profile': { type: 'string' },
  'tls-custom-ciphers': { type: 'string' },
  'tls-custom-curves': { type: 'string' },
  'tls-custom-version': { type: 'string' },
  'insecure-metrics': { type: 'string' },
} as const;

/** What the serving flags decide. */
export interface ServingOptions {
  /** The serving certificate and key; undefined without `--tls-cert`/`--tls-key`. */
  tls: CertificatePaths | undefined;
  /** Where the HTTPS metrics server listens; undefined: no metrics server. */
  metrics: ListenAddress | undefined;
  /** The TLS profile, and its Node options for this Node's OpenSSL (every TLS server uses them). */
  tlsProfile: TlsProfile;
  tlsOptions: ProfileContextOptions;
  /** `--insecure-metrics`: `/metrics` on the health probe address, plain HTTP, no authentication. */
  insecureMetrics: boolean;
}

/** What this Node's OpenSSL supports. */
export function nodeTlsCapabilities(): TlsCapabilities {
  const ciphers = new Set(getCiphers());
  return {
    cipher: (name) => ciphers.has(name.toLowerCase()),
    curve: (name) => {
      try {
        createSecureContext({ ecdhCurve: name });
        return true;
      } catch {
        return false;
      }
    },
  };
}

/**
 * The serving options from parsed flag values; `defaultMetricsAddress` is the component's
 * (upstream: `:8443` operator-controller, `:7443` catalogd). Throws Error with the usage problem.
 */
export function servingOptions(values: { [K in keyof typeof SERVING_FLAGS]?: string }, defaultMetricsAddress: string): ServingOptions {
  const cert = values['tls-cert'];
  const key = values['tls-key'];
  if ((cert === undefined) !== (key === undefined)) throw new Error('--tls-cert and --tls-key must be given together');
  const tls = cert !== undefined && key !== undefined ? { certPath: cert, keyPath: key } : undefined;
  const address = values['metrics-bind-address'];
  // Upstream's text; `0` disables the server, as in controller-runtime.
  if (address !== undefined && address !== '0' && tls === undefined)
    throw new Error('metrics-bind-address requires tls-cert and tls-key flags to be set');
  const metrics = tls === undefined || address === '0' ? undefined : parseListenAddress(address ?? defaultMetricsAddress);
  const profile = parseTlsProfile({
    profile: values['tls-profile'],
    customCiphers: values['tls-custom-ciphers'],
    customCurves: values['tls-custom-curves'],
    customVersion: values['tls-custom-version'],
  });
  if (!profile.ok) throw new Error(profile.error);
  const context = secureContextOptions(profile.value, nodeTlsCapabilities());
  if (!context.ok) throw new Error(`--tls-profile=${profile.value.name}: ${context.error}`);
  return {
    tls,
    metrics,
    tlsProfile: profile.value,
    tlsOptions: context.value.options,
    insecureMetrics: parseBool('--insecure-metrics', values['insecure-metrics'] ?? 'false'),
  };
}

/** The help lines of the serving flags; `certUse` says what the certificate serves besides metrics. */
export function servingHelp(defaultMetricsAddress: string, certUse: string): string {
  return `  --tls-cert FILE --tls-key FILE    serving certificate and key (PEM, reloaded on change): ${certUse}
  --metrics-bind-address ADDR       HTTPS /metrics for callers the API server authenticates (TokenReview) and
                                    allows get on /metrics (SubjectAccessReview); needs --tls-cert/--tls-key
                                    (default ${defaultMetricsAddress} with them; without them no metrics are served; 0: none)
  --tls-profile NAME                TLS profile of every TLS server: ${PROFILE_NAMES.join(', ')} (default intermediate)
  --tls-custom-ciphers LIST         custom profile: cipher suites, Go (IANA) names, comma-separated (default Go's)
  --tls-custom-curves LIST          custom profile: curves, e.g. X25519MLKEM768,X25519,prime256v1,secp384r1
  --tls-custom-version VERSION      custom profile: minimum TLS version, ${TLS_VERSIONS.join(', ')} (default TLSv1.2)
  --insecure-metrics[=true]         also serve /metrics on the health probe address over plain HTTP without
                                    authentication: local stacks and tests only (default false)
`;
}
