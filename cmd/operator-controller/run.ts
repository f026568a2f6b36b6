/**
 * operator-controller's composition: builds every component from the options and runs them
 * until the signal aborts. Informers run on every replica; the elected leader reconciles
 * ClusterExtensions. Losing leadership ends the process, as controller-runtime does.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { Controller, HealthServer, informersSynced, stepDurationTimer } from '../../pkg/shared/controller/index.ts';
import { createDiskImageCache } from '../../pkg/shared/image/index.ts';
import {
  Informer,
  KubeEventRecorder,
  TokenGetter,
  clientListWatch,
  createOpenApiSchemas,
  createScopedClientFactory,
  settlesWithin,
  stripManagedFields,
  type KubeContext,
  type KubeObject,
} from '../../pkg/shared/kube/index.ts';
import {
  BundlePulls,
  DriftWatches,
  ExtensionHealthGauge,
  EXTENSION_CONTROLLER_NAME,
  OPERATOR_CONTROLLER_REPORTER,
  cachedBundle,
  createUpgradeNotices,
  extensionKeys,
  fetchBundle,
  watchCatalogEvents,
} from '../../pkg/operator-controller/clusterextension/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { componentImages, connectComponent, runLeading } from '../shared/component.ts';
import { startMetricsServing } from '../shared/serving.ts';
import type { OperatorControllerOptions } from './options.ts';
import { pauseHook } from './test-pause.ts';
import { clusterExtensionReconciler } from './reconcilers.ts';
import { catalogdClientOptions } from './catalogd-client.ts';
import { runUpgradeGate } from './upgradegate.ts';

/**
 * Sampling period of the `nodejs_eventloop_lag_*` histogram (prom-client's default is 10 ms).
 * Its timer wakes the process at that period for good: at 10 ms that alone cost ~0.15 CPU-s a
 * minute at rest, at 100 ms ~0.02, at 1 s ~0.003, against upstream's 0.03 for everything
 * (bench/results/idle.md). A stall of a second or more is seen whenever it happens, a shorter
 * one in proportion to its length; `nodejs_eventloop_lag_seconds` (measured at each scrape) is
 * unchanged.
 */
const EVENT_LOOP_SAMPLE_MS = 1000;

/** Runs operator-controller; resolves when `signal` aborts (after a graceful stop) or leadership is lost. */
export async function runOperatorController(o: OperatorControllerOptions, log: Logger, signal: AbortSignal): Promise<'stopped' | 'lost-leadership'> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  const kube: KubeContext = await connectComponent(o, 'operator-controller');
  const bundleCache = createDiskImageCache(join(o.cacheDir, 'bundles'));
  await bundleCache.cleanupTemporary();

  const { images, pullSecret } = componentImages(o, kube.client, log, 'operator-controller');
  const catalogClient = createCatalogClient(catalogdClientOptions(o, log));
  const content = createCatalogContentCache({ client: catalogClient, log, registry });
  const catalogdUrl = o.catalogdUrl;
  const baseURL =
    catalogdUrl === undefined
      ? undefined
      : (_name: string, statusBase: string): string => {
          const url = new URL(statusBase);
          return `${catalogdUrl.origin}${url.pathname}`.replace(/\/+$/, '');
        };

  const informer = (kind: { apiVersion: string; kind: string }, name: string): Informer<KubeObject> =>
    new Informer({ name, source: clientListWatch(kube.client, kind), log, registry, transform: stripManagedFields });
  const extensions = informer({ apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind }, CLUSTER_EXTENSION.plural);
  const catalogs = informer({ apiVersion: CLUSTER_CATALOG.apiVersion, kind: CLUSTER_CATALOG.kind }, CLUSTER_CATALOG.plural);
  // Events on ClusterExtensions, written with operator-controller's own identity (one recorder per process).
  const events = new KubeEventRecorder({
    client: kube.client,
    reportingController: OPERATOR_CONTROLLER_REPORTER,
    reportingInstance: o.identity,
    log,
    registry,
  });
  const scoped = createScopedClientFactory({ base: kube.connection, mapper: kube.mapper, tokens: new TokenGetter({ client: kube.client }) });
  const gates = o.featureGates;
  const certProvider = gates.WebhookProviderCertManager
    ? 'cert-manager'
    : gates.WebhookProviderOpenshiftServiceCA
      ? 'openshift-service-ca'
      : undefined;

  // /metrics: over HTTPS to authorized callers (with a certificate), plain on the probe port only with --insecure-metrics.
  const health = new HealthServer({ port: o.healthProbe.port, host: o.healthProbe.host, ...(o.insecureMetrics ? { registry } : {}), log });
  health.addReadinessCheck('informers', informersSynced([extensions, catalogs]));
  await health.start();
  log.info({ address: o.healthProbe, metrics: o.insecureMetrics }, 'health server listening');
  const metrics = await startMetricsServing(o, { client: kube.client, registry, log });

  // Test hook only (OLMV1_TEST_PAUSE_AT): undefined in production.
  const pause = pauseHook(o.testPauseAt, log);
  const lead = async (leading: AbortSignal): Promise<void> => {
    // Managed objects are watched as each extension's ServiceAccount while this replica leads.
    const drift = new DriftWatches({ scoped, enqueue: (n) => controller.enqueue(n), log, registry, signal: leading });
    const healthGauge = new ExtensionHealthGauge(registry);
    // Bundle pulls run in the background; a pull's end queues its extension (decision 0067).
    const pulls = new BundlePulls({
      fetch: (extension, ref, pullSignal) => fetchBundle(images, bundleCache, extension, ref, pullSignal),
      cached: (extension, ref) => cachedBundle(bundleCache, extension, ref),
      enqueue: (n) => controller.enqueue(n),
      log,
      registry,
      signal: leading,
    });
    // Upgrades held by update policies (decision 0096): a metric series each.
    const upgrades = createUpgradeNotices(registry);
    const reconciler = clusterExtensionReconciler(
      {
        client: kube.client,
        scoped,
        releases: createReleaseStore({
          client: kube.client,
          namespace: o.systemNamespace,
          ...(pause === undefined ? {} : { beforeWrite: (extension: string) => pause('release-write', extension) }),
        }),
        catalogs: { catalogs, content, ...(baseURL === undefined ? {} : { baseURL }) },
        bundleCache,
        pulls,
        ...(o.defaultInstallServiceAccount === undefined ? {} : { defaultInstaller: o.defaultInstallServiceAccount }),
        schemas: createOpenApiSchemas(kube.transport),
        drift,
        healthGauge,
        events,
        upgrades,
        features: {
          ...(certProvider === undefined ? {} : { certProvider }),
          webhookSupport: certProvider !== undefined,
          singleOwnNamespaceSupport: gates.SingleOwnNamespaceInstallSupport,
          deploymentConfigSupport: gates.DeploymentConfig,
          bundleReleaseSupport: gates.BundleReleaseSupport,
        },
      },
      { stepTimer: stepDurationTimer(registry, EXTENSION_CONTROLLER_NAME), ...(pause === undefined ? {} : { pause }) },
    );
    const controller = new Controller({
      name: EXTENSION_CONTROLLER_NAME,
      reconciler,
      log,
      registry,
      watches: [{ informer: extensions, keys: extensionKeys }],
      concurrency: o.maxConcurrentReconciles,
    });
    // The cluster-upgrade gate (olm.maxOpenShiftVersion): metrics always, OpenShift conditions where served.
    const gating = runUpgradeGate(
      {
        client: kube.client,
        releases: createReleaseStore({ client: kube.client, namespace: o.systemNamespace }),
        extensions,
        clusterVersion: o.clusterVersion,
        log,
        registry,
      },
      leading,
    );
    // An extension deleted without its finalizers (removed by hand) leaves no watches behind;
    // one being deleted pulls nothing any more (its uninstall removes its cache directory).
    const forgetDeleted = extensions.addHandler((type, obj) => {
      if (type === 'delete') drift.stop(obj.metadata.name ?? '');
      if (type === 'delete') healthGauge.forget(obj.metadata.name ?? '');
      if (type === 'delete' || obj.metadata.deletionTimestamp !== undefined) pulls.forget(obj.metadata.name ?? '');
    });
    const unsubscribe = watchCatalogEvents({
      catalogs,
      extensions,
      content,
      ...(baseURL === undefined ? {} : { baseURL }),
      enqueue: (n) => controller.enqueue(n),
      log,
    });
    try {
      await collectUnusedBundles(extensions, bundleCache, leading, log);
      // Resolving before the catalogs are listed would take every catalog for deleted (the
      // installed bundle stays, upgrades wait for a catalog event) or report no bundles found.
      await catalogs.waitForSync(leading).catch(() => undefined);
      await controller.run(leading);
    } finally {
      unsubscribe();
      forgetDeleted();
      await gating;
      await drift.settled();
      healthGauge.reset();
      await pulls.settled();
    }
  };

  void extensions.run(signal);
  void catalogs.run(signal);
  void pullSecret.run(signal);
  const outcome = await runLeading(o, { client: kube.client, log, registry }, lead, signal);

  // Events are best effort: the last ones get a moment to be written, no more.
  await settlesWithin(events.settled(), 2000);
  await health.stop();
  await metrics.stop();
  scoped.close();
  catalogClient.close();
  images.close();
  kube.close();
  return outcome;
}

/** Removes cached bundle images of extensions that no longer exist (e.g. deleted while stopped). */
async function collectUnusedBundles(
  extensions: Informer<KubeObject>,
  cache: ReturnType<typeof createDiskImageCache>,
  signal: AbortSignal,
  log: Logger,
): Promise<void> {
  try {
    await extensions.waitForSync(signal);
  } catch {
    return;
  }
  const live = new Set(extensions.keys());
  for (const owner of await cache.owners()) {
    if (live.has(owner)) continue;
    await cache.delete(owner).catch((err: unknown) => log.warn({ err, owner }, 'removing an unused bundle cache entry failed'));
  }
}
