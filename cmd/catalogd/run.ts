/**
 * catalogd's composition: builds every component from the options and runs them until the
 * signal aborts. Every replica serves catalog content from its own store and keeps it in sync
 * with the published status; the elected leader also reconciles ClusterCatalogs (pulls,
 * stores, writes status). Losing leadership ends the process, as controller-runtime does.
 *
 * A restarted replica serves what its store holds first: this file loads only the store, the
 * catalog server and their libraries; the control part (control.ts: cluster client, informers,
 * reconcilers, leader election, health and metrics servers) is loaded once the catalog server
 * listens (decision 0097).
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { buildCatalogServer } from '../../pkg/catalogd/server/index.ts';
import { LocalDirStore, createProcessIngest } from '../../pkg/catalogd/storage/index.ts';
// The file, not pkg/shared/controller's index, which control.ts loads after the server listens.
import { keepingOptions, loadCertificate, watchCertificate } from '../../pkg/shared/controller/certificates.ts';
import { checkRegistryCertDir } from '../../pkg/shared/nodehttp/index.ts';
import { saveCompileCache } from '../shared/compile-cache.ts';
import { componentKubeConfig } from '../shared/component-options.ts';
import type { CatalogdOptions } from './options.ts';

/** Runs catalogd; resolves when `signal` aborts (after a graceful stop) or leadership is lost. */
export async function runCatalogd(o: CatalogdOptions, log: Logger, signal: AbortSignal): Promise<'stopped' | 'lost-leadership'> {
  // Credentials and registry certificates are read first: when they are unusable the start
  // fails, with the same message, before anything listens.
  const credentials = componentKubeConfig(o);
  if (o.pullCasDir !== undefined) checkRegistryCertDir(o.pullCasDir);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const store = new LocalDirStore({ root: join(o.cacheDir, 'catalogs'), ingest: createProcessIngest({ limits: o.decodeLimits }), logger: log });
  await store.open();
  log.info({ catalogs: store.catalogs() }, 'serving stored catalog content');
  try {
    const tls = o.tls === undefined ? undefined : loadCertificate(o.tls);
    // The TLS profile applies to every TLS server, and stays across certificate reloads.
    const server = buildCatalogServer({
      content: store,
      logger: log,
      registry,
      ...(tls === undefined ? {} : { https: { ...tls, ...o.tlsOptions } }),
    });
    const stopCertWatch = o.tls === undefined ? () => undefined : watchCertificate(keepingOptions(server, o.tlsOptions), o.tls, log);
    try {
      await server.listen({ host: o.catalogServer.host, port: o.catalogServer.port });
      log.info({ address: o.catalogServer, tls: o.tls !== undefined, tlsProfile: o.tlsProfile.name }, 'catalog server listening');
      // Requests that arrive while the control part loads (its modules evaluate on this thread,
      // zod's the most) are answered once it has loaded.
      const { runCatalogdControl } = await import('./control.ts');
      saveCompileCache();
      return await runCatalogdControl(o, { log, registry, store, credentials }, signal);
    } finally {
      stopCertWatch();
      await server.close();
    }
  } finally {
    await store.close();
  }
}
