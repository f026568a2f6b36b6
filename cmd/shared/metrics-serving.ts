/**
 * The HTTPS metrics server the serving flags (serving.ts) ask for: `/metrics` to callers the API
 * server authenticates (TokenReview) and authorizes (SubjectAccessReview), its certificate
 * watched and reloaded.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { MetricsAuth, MetricsServer, type CertificatePaths, loadCertificate, watchCertificate } from '../../pkg/shared/controller/index.ts';
import { canI, reviewToken, type KubeClient } from '../../pkg/shared/kube/index.ts';
import type { ServingOptions } from './serving.ts';

/**
 * Starts what the options ask for: the HTTPS metrics server (its certificate watched and
 * reloaded), or nothing with a warning when no certificate was given. Resolves a stop function.
 * Throws when the certificate does not load or the address cannot be bound.
 */
export async function startMetricsServing(
  o: ServingOptions,
  deps: { client: KubeClient; registry: Registry; log: Logger },
): Promise<{ port: number | undefined; stop: () => Promise<void> }> {
  const log = deps.log.child({ server: 'metrics' });
  if (o.metrics === undefined) {
    if (!o.insecureMetrics)
      log.warn({}, 'WARNING: Metrics Server is disabled. Metrics will not be served since the TLS certificate and key file are not provided.');
    return { port: undefined, stop: async () => undefined };
  }
  const paths = o.tls as CertificatePaths;
  const server = new MetricsServer({
    port: o.metrics.port,
    host: o.metrics.host,
    registry: deps.registry,
    log,
    tls: { ...loadCertificate(paths), ...o.tlsOptions },
    auth: new MetricsAuth({
      authenticate: (token, signal) => reviewToken(deps.client, token, { signal }),
      authorize: async (subject, access, signal) => (await canI(deps.client, subject, [access], { signal }))[0] ?? { allowed: false, reason: '' },
      log,
    }),
  });
  await server.start();
  const stopWatch = watchCertificate(server, paths, log);
  log.info({ address: o.metrics, tlsProfile: o.tlsProfile.name }, 'secure metrics server listening');
  return {
    port: server.port,
    stop: async () => {
      stopWatch();
      await server.stop();
    },
  };
}
