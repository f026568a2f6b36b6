/**
 * operator-controller's control part, loaded by run.ts once its informers list (decision 0097):
 * the bundle cache, registry client and pull secrets, the catalogd client, Events, and, while
 * this replica leads, the ClusterExtension reconciler, drift watches, bundle pulls and the
 * cluster-upgrade gate.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { Controller, stepDurationTimer } from '../../pkg/shared/controller/index.ts';
import { createDiskImageCache } from '../../pkg/shared/image/index.ts';
import {
  type Informer,
  KubeEventRecorder,
  TokenGetter,
  createOpenApiSchemas,
  createScopedClientFactory,
  settlesWithin,
  type KubeContext,
  type KubeObject,
} from '../../pkg/shared/kube/index.ts';
import {
  BundleBudget,
  BundlePulls,
  DriftWatches,
  ExtensionHealthGauge,
  EXTENSION_CONTROLLER_NAME,
  OPERATOR_CONTROLLER_REPORTER,
  ResolveAhead,
  cachedBundle,
  createUpgradeNotices,
  dependentsToWake,
  extensionKeys,
  fetchBundle,
  watchCatalogEvents,
  type BundleSpill,
} from '../../pkg/operator-controller/clusterextension/index.ts';
import { RequirementCache } from '../../pkg/operator-controller/dependencies/index.ts';
import { MAX_RECORD_JSON_BYTES, createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { componentImages, runLeading } from '../shared/component.ts';
import type { OperatorControllerOptions } from './options.ts';
import { pauseHook } from './test-pause.ts';
import { pausingObjectWrites, pausingReleaseWrites } from './pausing-clients.ts';
import { clusterExtensionReconciler } from './reconcilers.ts';
import { catalogdClientOptions } from './catalogd-client.ts';
import { runUpgradeGate } from './upgradegate.ts';

/** What run.ts started: the logger, metrics registry, cluster connection and the two informers (running). */
interface Started {
  log: Logger;
  registry: Registry;
  kube: KubeContext;
  extensions: Informer<KubeObject>;
  catalogs: Informer<KubeObject>;
}

/** Runs the control part; resolves when `signal` aborts (after a graceful stop) or leadership is lost. */
export async function runOperatorControllerControl(
  o: OperatorControllerOptions,
  { log, registry, kube, extensions, catalogs }: Started,
  signal: AbortSignal,
): Promise<'stopped' | 'lost-leadership'> {
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

  // Test hook only (OLMV1_TEST_PAUSE_AT): undefined in production.
  const pause = pauseHook(o.testPauseAt, log);
  const lead = async (leading: AbortSignal): Promise<void> => {
    // Managed objects are watched as each extension's ServiceAccount while this replica leads.
    const drift = new DriftWatches({ scoped, enqueue: (n) => controller.enqueue(n), log, registry, signal: leading });
    // Bundles read, parsed, rendered and applied at once hold at most one bundle at the
    // unpacked-bytes cap (or several smaller ones) in memory (decision 0098).
    const budget = new BundleBudget(o.imageLimits.maxUnpackedBytes);
    // The release records a reconcile reads (its history, decoded) are held through the whole
    // reconcile like a bundle: at most one at the cap's size at a time. A budget of their own:
    // a reconcile takes it before its bundle's, and no holder of a bundle's share waits for it
    // but a finished pull's share kept for its extension's next reconcile, which may wait here
    // behind one that waits for that share; the share is dropped untaken after `claimMs`, so
    // such a wait ends.
    const recordBudget = new BundleBudget(o.imageLimits.maxUnpackedBytes);
    // Bundles above an eighth of the cap keep their JSON lines in files here, not in the heap,
    // and so do release records whose manifests are that large, while a reconcile holds them;
    // the files are unlinked when created (pkg/shared/lines), so a restart leaves nothing.
    const spill: BundleSpill = { dir: join(o.cacheDir, 'lines'), aboveBytes: o.imageLimits.maxUnpackedBytes / 8 };
    // A record holds a rendered bundle: what it may decompress to follows a raised unpacked-bytes cap.
    const maxRecordBytes = Math.max(MAX_RECORD_JSON_BYTES, 2 * o.imageLimits.maxUnpackedBytes);
    const healthGauge = new ExtensionHealthGauge(registry);
    // Bundle pulls run in the background; a pull's end queues its extension (decision 0067).
    const pulls = new BundlePulls({
      fetch: (extension, ref, pullSignal) => fetchBundle(images, bundleCache, extension, ref, pullSignal, budget, spill),
      cached: (extension, ref) => cachedBundle(bundleCache, extension, ref, budget, spill),
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
        scoped: pause === undefined ? scoped : pausingObjectWrites(scoped, pause),
        releases: createReleaseStore({
          client: pause === undefined ? kube.client : pausingReleaseWrites(kube.client, pause),
          namespace: o.systemNamespace,
          maxRecordBytes,
        }),
        recordBudget,
        spill,
        catalogs: { catalogs, content, ...(baseURL === undefined ? {} : { baseURL }) },
        // Requirements are met by installed extensions and by APIs the cluster serves (decision 0104).
        dependencies: {
          extensions,
          cache: new RequirementCache(),
          serverVersion: serverVersionOf(kube.transport),
          serves: (gvk, servesSignal) =>
            kube.mapper.resolve(gvk, servesSignal).then(
              () => true,
              () => false,
            ),
        },
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
        releases: createReleaseStore({ client: kube.client, namespace: o.systemNamespace, maxRecordBytes }),
        extensions,
        clusterVersion: o.clusterVersion,
        log,
        registry,
      },
      leading,
    );
    // An extension deleted without its finalizers (removed by hand) leaves no watches behind;
    // one being deleted pulls nothing any more (its uninstall removes its cache directory).
    // Extensions waiting on a dependency look again when another is installed, upgraded or deleted (decision 0104).
    const wakeDependents = extensions.addHandler((type, obj, old) => {
      for (const name of dependentsToWake(type, obj, old, extensions.list())) controller.enqueue(name);
    });
    const forgetDeleted = extensions.addHandler((type, obj) => {
      if (type === 'delete') drift.stop(obj.metadata.name ?? '');
      if (type === 'delete') healthGauge.forget(obj.metadata.name ?? '');
      if (type === 'delete' || obj.metadata.deletionTimestamp !== undefined) pulls.forget(obj.metadata.name ?? '');
    });
    // New catalog content: each affected extension is resolved at once and an upgrade it will
    // get is reported in status before its reconcile comes (decision 0100).
    const ahead = new ResolveAhead({
      extensions,
      catalogs: { catalogs, content, ...(baseURL === undefined ? {} : { baseURL }) },
      features: { bundleReleaseSupport: gates.BundleReleaseSupport },
      client: kube.client,
      beside: (n, fn) => controller.besideReconcile(n, fn),
      log,
      registry,
      signal: leading,
    });
    const unsubscribe = watchCatalogEvents({
      catalogs,
      extensions,
      content,
      ...(baseURL === undefined ? {} : { baseURL }),
      enqueue: (n) => {
        controller.enqueue(n);
        ahead.offer(n);
      },
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
      wakeDependents();
      await ahead.settled();
      await gating;
      await drift.settled();
      healthGauge.reset();
      await pulls.settled();
    }
  };

  void pullSecret.run(signal);
  const outcome = await runLeading(o, { client: kube.client, log, registry }, lead, signal);

  // Events are best effort: the last ones get a moment to be written, no more.
  await settlesWithin(events.settled(), 2000);
  scoped.close();
  catalogClient.close();
  images.close();
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

/**
 * The API server's version for CSVs' minKubeVersion (decision 0104), asked once and kept for
 * ten minutes (a cluster upgrade is seen within that); a failed request is not kept.
 */
function serverVersionOf(transport: KubeContext['transport']): (signal?: AbortSignal) => Promise<string> {
  let known: { version: string; at: number } | undefined;
  return async (signal) => {
    if (known !== undefined && Date.now() - known.at < 600_000) return known.version;
    const info = await transport.request<{ gitVersion?: string }>('GET', '/version', signal === undefined ? {} : { signal });
    known = { version: info.gitVersion ?? '', at: Date.now() };
    return known.version;
  };
}
