/**
 * catalogd's control part, loaded by run.ts once its catalog server listens (decision 0097):
 * cluster connection, informer, health and metrics, content sync on every replica and, while
 * this replica leads, the ClusterCatalog reconciler.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { CLUSTER_CATALOG } from '../../pkg/shared/api/index.ts';
import {
  CATALOG_CONTROLLER_NAME,
  CONTENT_SYNC_CONTROLLER_NAME,
  CATALOGD_REPORTER,
  ContentSyncReconciler,
  PollSchedule,
  catalogReconcileCancels,
  contentSyncCancels,
  runGarbageCollector,
  createCatalogContentMetrics,
} from '../../pkg/catalogd/clustercatalog/index.ts';
import type { LocalDirStore } from '../../pkg/catalogd/storage/index.ts';
import { Controller, HealthServer, informersSynced } from '../../pkg/shared/controller/index.ts';
import { createDiskImageCache } from '../../pkg/shared/image/index.ts';
import { type Registry, collectDefaultMetrics } from '../../pkg/shared/metrics/index.ts';
import {
  Informer,
  KubeEventRecorder,
  type KubeContext,
  type ResolvedKubeConfig,
  clientListWatch,
  connect,
  settlesWithin,
  stripManagedFields,
} from '../../pkg/shared/kube/index.ts';
import { migrateStoredVersions } from '../../pkg/shared/storageversion/index.ts';
import { componentImages, runLeading } from '../shared/component.ts';
import { startMetricsServing } from '../shared/metrics-serving.ts';
import type { CatalogdOptions } from './options.ts';
import { catalogReconciler } from './reconcilers.ts';

/** What run.ts built before: the logger, the metrics registry, the opened store (which it closes) and the cluster credentials. */
interface Serving {
  log: Logger;
  registry: Registry;
  store: LocalDirStore;
  credentials: ResolvedKubeConfig;
  /** Called as soon as the elected leader lost its Lease (the process's exit). */
  leadershipLost: () => void;
}

/** Runs the control part; resolves when `signal` aborts (after a graceful stop) or leadership is lost. */
export async function runCatalogdControl(
  o: CatalogdOptions,
  { log, registry, store, credentials, leadershipLost }: Serving,
  signal: AbortSignal,
): Promise<'stopped' | 'lost-leadership'> {
  collectDefaultMetrics(registry);
  const kube: KubeContext = await connect(credentials, { userAgent: 'catalogd' });
  const unpackCache = createDiskImageCache(join(o.cacheDir, 'unpack'));
  await unpackCache.cleanupTemporary();

  const { images, pullSecret } = componentImages(o, kube.client, log, 'catalogd');
  const catalogs = new Informer({
    name: CLUSTER_CATALOG.plural,
    source: clientListWatch(kube.client, { apiVersion: CLUSTER_CATALOG.apiVersion, kind: CLUSTER_CATALOG.kind }),
    log,
    registry,
    transform: stripManagedFields,
  });

  // /metrics: over HTTPS to authorized callers (with a certificate), plain on the probe port only with --insecure-metrics.
  const health = new HealthServer({ port: o.healthProbe.port, host: o.healthProbe.host, ...(o.insecureMetrics ? { registry } : {}), log });
  health.addReadinessCheck('informers', informersSynced([catalogs]));
  await health.start();
  const metrics = await startMetricsServing(o, { client: kube.client, registry, log });

  const scheme = o.tls === undefined ? 'http' : 'https';
  const baseURL = (name: string): string => `${scheme}://${o.externalAddress}/catalogs/${name}`;
  const contentMetrics = createCatalogContentMetrics(registry);
  const sync = new Controller({
    name: CONTENT_SYNC_CONTROLLER_NAME,
    reconciler: new ContentSyncReconciler({ catalogs, images, unpackCache, store, metrics: contentMetrics, log, ingestTimeoutMs: o.ingestTimeoutMs }),
    log,
    registry,
    watches: [{ informer: catalogs, cancels: contentSyncCancels }],
    concurrency: o.maxConcurrentReconciles,
    limitRetryFloorMs: o.ingestTimeoutMs,
  });
  // Events on ClusterCatalogs (the leader's reconciler), written with catalogd's own identity.
  const events = new KubeEventRecorder({ client: kube.client, reportingController: CATALOGD_REPORTER, reportingInstance: o.identity, log, registry });
  const lead = async (leading: AbortSignal): Promise<void> => {
    const controller = new Controller({
      name: CATALOG_CONTROLLER_NAME,
      reconciler: catalogReconciler({
        client: kube.client,
        events,
        images,
        unpackCache,
        store,
        metrics: contentMetrics,
        baseURL,
        registry,
        schedule: new PollSchedule(o.pollMinuteMs === undefined ? {} : { minuteMs: o.pollMinuteMs }),
        ingestTimeoutMs: o.ingestTimeoutMs,
        limitRetryFloorMs: o.ingestTimeoutMs,
      }),
      log,
      registry,
      watches: [{ informer: catalogs, cancels: catalogReconcileCancels }],
      // Several workers: a catalog that takes long to pull and store leaves the others theirs.
      concurrency: o.maxConcurrentReconciles,
      reconciles: CLUSTER_CATALOG,
      limitRetryFloorMs: o.ingestTimeoutMs,
    });
    // ClusterCatalogs stored in an older version after a storage-version change are rewritten beside the controller (docs/release.md).
    const migrating = migrateStoredVersions([CLUSTER_CATALOG.crdName], { client: kube.client, log, signal: leading });
    await Promise.all([controller.run(leading), migrating]);
  };

  // What every replica runs stops with the process, or once leadership was lost.
  const running = new AbortController();
  const stopRunning = (): void => running.abort(signal.reason);
  signal.addEventListener('abort', stopRunning, { once: true });
  void catalogs.run(running.signal);
  void pullSecret.run(running.signal);
  const gc = runGarbageCollector({ catalogs, store, unpackCache, intervalMs: o.gcIntervalMs, log }, running.signal);
  const syncing = sync.run(running.signal);
  const outcome = await runLeading(o, { client: kube.client, log, registry, health, onLost: leadershipLost }, lead, signal);
  signal.removeEventListener('abort', stopRunning);
  running.abort(new Error('leader election lost'));

  await Promise.allSettled([syncing, gc]);
  // Events are best effort: the last ones get a moment to be written, no more.
  await settlesWithin(events.settled(), 2000);
  await health.stop();
  await metrics.stop();
  images.close();
  kube.close();
  return outcome;
}
