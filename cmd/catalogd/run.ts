/**
 * catalogd's composition: every replica serves catalog content from its own store, the elected
 * leader also reconciles ClusterCatalogs, and losing leadership ends the process. A restarted
 * replica serves its store first; the control part (control.ts) loads once the catalog server
 * has answered (decision 0097). The name-label webhook starts with the catalog server, needing
 * neither the cluster nor the store (decision 0103).
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { buildCatalogServer } from '../../pkg/catalogd/server/index.ts';
import { buildWebhookServer } from '../../pkg/catalogd/webhook/index.ts';
import { LocalDirStore, createProcessIngest } from '../../pkg/catalogd/storage/index.ts';
import { Registry } from '../../pkg/shared/metrics/index.ts';
// The file, not pkg/shared/controller's index, which control.ts loads after the server listens.
import { keepingOptions, loadCertificate, watchCertificate } from '../../pkg/shared/controller/certificates.ts';
import { checkRegistryCertDir } from '../../pkg/shared/nodehttp/index.ts';
import { saveCompileCache } from '../shared/compile-cache.ts';
import { componentKubeConfig } from '../shared/component-options.ts';
import { FIRST_REQUEST_WAIT_MS, firstResponseEnd, waitAtMost } from '../shared/first-answer.ts';
import type { CatalogdOptions } from './options.ts';

/**
 * Runs catalogd; resolves when `signal` aborts (after a graceful stop) or leadership is lost.
 * `leadershipLost` is called as soon as the elected leader lost its Lease (the process's exit, cmd/shared/lost-leadership.ts).
 */
export async function runCatalogd(
  o: CatalogdOptions,
  log: Logger,
  signal: AbortSignal,
  leadershipLost: () => void = () => undefined,
): Promise<'stopped' | 'lost-leadership'> {
  // Credentials and registry certificates are read first: when they are unusable the start
  // fails, with the same message, before anything listens.
  const credentials = componentKubeConfig(o);
  if (o.pullCasDir !== undefined) checkRegistryCertDir(o.pullCasDir);
  // The default process metrics are added by control.ts, before its metrics servers start.
  const registry = new Registry();
  const store = new LocalDirStore({ root: join(o.cacheDir, 'catalogs'), ingest: createProcessIngest({ limits: o.decodeLimits }), logger: log });
  await store.open();
  log.info({ catalogs: store.catalogs() }, 'serving stored catalog content');
  try {
    const tls = o.tls === undefined ? undefined : loadCertificate(o.tls);
    // The TLS profile applies to every TLS server, and stays across certificate reloads.
    // The GraphQL library is loaded only when the gate is on (decision 0102).
    const graphql = o.graphqlQueries === true ? new (await import('../../pkg/catalogd/graphql/index.ts')).CatalogQueries() : undefined;
    const server = buildCatalogServer({
      content: store,
      logger: log,
      registry,
      ...(graphql === undefined ? {} : { graphql }),
      ...(tls === undefined ? {} : { https: { ...tls, ...o.tlsOptions } }),
    });
    const webhook = tls === undefined || o.webhook === undefined ? undefined : buildWebhookServer({ tls: { ...tls, ...o.tlsOptions }, log });
    const stopCertWatch = o.tls === undefined ? () => undefined : watchCertificate(keepingOptions(server, o.tlsOptions), o.tls, log);
    const stopWebhookCertWatch =
      o.tls === undefined || webhook === undefined ? () => undefined : watchCertificate(keepingOptions(webhook, o.tlsOptions), o.tls, log);
    try {
      if (webhook !== undefined && o.webhook !== undefined) {
        await webhook.listen(o.webhook);
        log.info({ address: o.webhook }, 'webhook server listening');
      }
      await server.listen({ host: o.catalogServer.host, port: o.catalogServer.port });
      log.info({ address: o.catalogServer, tls: o.tls !== undefined, tlsProfile: o.tlsProfile.name }, 'catalog server listening');
      // Requests that arrive while the control part loads (its modules evaluate on this thread,
      // zod's the most) are answered once it has loaded: a store with content answers first.
      if (store.catalogs().length > 0) {
        const first = firstResponseEnd(server.server);
        await waitAtMost(first.ended, FIRST_REQUEST_WAIT_MS, signal);
        first.cancel();
      }
      const { runCatalogdControl } = await import('./control.ts');
      saveCompileCache();
      return await runCatalogdControl(o, { log, registry, store, credentials, leadershipLost }, signal);
    } finally {
      stopCertWatch();
      stopWebhookCertWatch();
      await Promise.all([server.close(), webhook?.close()]);
    }
  } finally {
    await store.close();
  }
}
