/**
 * operator-controller's control part, loaded by run.ts once its informers list (decision 0097):
 * process-wide clients and caches and, while this replica leads, the ClusterExtension
 * controller, what feeds it, and the cluster-upgrade gate.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { Controller, type HealthServer, WorkQueue, stepDurationTimer } from '../../pkg/shared/controller/index.ts';
import { createDiskImageCache, type ImageCache } from '../../pkg/shared/image/index.ts';
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
  PULL_END_PRIORITY,
  cachedBundle,
  fetchBundle,
  type MemoryPort,
} from '../../pkg/operator-controller/bundlepull/index.ts';
import { ExtensionHealthGauge, startDriftWatches } from '../../pkg/operator-controller/drift/index.ts';
import {
  EXTENSION_CONTROLLER_NAME,
  OPERATOR_CONTROLLER_REPORTER,
  ResolveAhead,
  createUpgradeNotices,
  extensionFeatures,
  extensionWatches,
  revisionInstaller,
  watchExtensions,
  watchInstallerAccounts,
} from '../../pkg/operator-controller/clusterextension/index.ts';
import { DependencyGauge, InstalledIndex, type CatalogSource, type DependencyPorts } from '../../pkg/operator-controller/dependencyview/index.ts';
import { RequirementCache, ServerVersionCache, readServerVersion } from '../../pkg/operator-controller/dependencies/index.ts';
import { MAX_RECORD_JSON_BYTES, createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { createRevisionReader } from '../../pkg/operator-controller/revisions/index.ts';
import { StoredVerdictCache } from '../../pkg/operator-controller/crdupgrade/index.ts';
import {
  RevisionWrites,
  createObjectSetController,
  revisionWriters,
  type ObjectSetController,
} from '../../pkg/operator-controller/objectset/index.ts';
import { CLUSTER_EXTENSION, CLUSTER_OBJECT_SET, parseClusterExtension } from '../../pkg/shared/api/index.ts';
import { migrateStoredVersions } from '../../pkg/shared/storageversion/index.ts';
import { componentImages, runLeading } from '../shared/component.ts';
import type { OperatorControllerOptions } from './options.ts';
import { pauseHook } from './test-pause.ts';
import { pausingObjectWrites, pausingReleaseWrites } from './pausing-clients.ts';
import { clusterExtensionReconciler, type ClusterExtensionPorts } from './reconcilers.ts';
import { catalogdClientOptions } from './catalogd-client.ts';
import { clusterProxySource } from './cluster-proxy.ts';
import { runUpgradeGate } from './upgradegate.ts';
import { driftSide, installerWatches, type InstallerWatches } from './installer-watches.ts';
import { runTenantController } from './tenant.ts';

/** What run.ts started: the logger, metrics registry, cluster connection, the two informers (running) and the health server. */
interface Started {
  log: Logger;
  registry: Registry;
  kube: KubeContext;
  extensions: Informer<KubeObject>;
  catalogs: Informer<KubeObject>;
  /** BoxcutterRuntime only: the ClusterObjectSets. */
  objectSets?: Informer<KubeObject>;
  /** BoxcutterRuntime only: their copies by owner-name label (a labelIndex of `objectSets`, for the process's life). */
  objectSetsOf?: (owner: string) => readonly Readonly<KubeObject>[];
  health: HealthServer;
  /** Called as soon as the elected leader lost its Lease (the process's exit). */
  leadershipLost: () => void;
}

/** What the control part keeps for the whole process, leading or not. */
type ProcessParts = Awaited<ReturnType<typeof processParts>>;

/** Runs the control part; resolves when `signal` aborts (after a graceful stop) or leadership is lost. */
export async function runOperatorControllerControl(
  o: OperatorControllerOptions,
  started: Started,
  signal: AbortSignal,
): Promise<'stopped' | 'lost-leadership'> {
  const { log, registry, kube, health, leadershipLost } = started;
  const parts = await processParts(o, started);
  // The pull secrets are kept current until the process stops or leadership was lost.
  const running = new AbortController();
  const stopRunning = (): void => running.abort(signal.reason);
  signal.addEventListener('abort', stopRunning, { once: true });
  void parts.pullSecret.run(running.signal);
  const outcome = await runLeading(
    o,
    { client: kube.client, log, registry, health, onLost: leadershipLost },
    (leading) => lead(o, started, parts, leading),
    signal,
  );
  signal.removeEventListener('abort', stopRunning);
  running.abort(new Error('leader election lost'));

  // Events are best effort: the last ones get a moment to be written, no more.
  await settlesWithin(parts.events.settled(), 2000);
  parts.scoped.close();
  parts.catalogClient.close();
  parts.images.close();
  return outcome;
}

async function processParts(o: OperatorControllerOptions, { log, registry, kube, catalogs }: Started) {
  const bundleCache = createDiskImageCache(join(o.cacheDir, 'bundles'));
  await bundleCache.cleanupTemporary();
  const { images, pullSecret } = componentImages(o, kube.client, log, 'operator-controller');
  const catalogClient = createCatalogClient(catalogdClientOptions(o, log));
  const content = createCatalogContentCache({ client: catalogClient, log, registry });
  const baseURL = catalogBaseURL(o.catalogdUrl);
  return {
    bundleCache,
    images,
    pullSecret,
    catalogClient,
    catalogSource: { catalogs, content, baseURL } satisfies CatalogSource,
    // Events on ClusterExtensions, written with operator-controller's own identity (one recorder per process).
    events: new KubeEventRecorder({
      client: kube.client,
      reportingController: OPERATOR_CONTROLLER_REPORTER,
      reportingInstance: o.identity,
      log,
      registry,
    }),
    scoped: createScopedClientFactory({ base: kube.connection, mapper: kube.mapper, tokens: new TokenGetter({ client: kube.client }) }),
    features: extensionFeatures(o.featureGates),
    /** Test hook only (OLMV1_TEST_PAUSE_AT, test-pause.ts): undefined in production. */
    pause: pauseHook(o.testPauseAt, log),
    /** BoxcutterRuntime: the revisions' writes in flight, which an uninstall waits for (decision 0126). */
    revisionWrites: new RevisionWrites(),
  };
}

/** Where catalog content is read: catalogd's Service URL with a catalog's path, when `--catalogd-url` overrides the status URLs. */
function catalogBaseURL(catalogdUrl: URL | undefined): CatalogSource['baseURL'] {
  if (catalogdUrl === undefined) return undefined;
  return (_name: string, statusBase: string): string => `${catalogdUrl.origin}${new URL(statusBase).pathname}`.replace(/\/+$/, '');
}

/** What bounds a reconcile's memory (decision 0098). */
type MemoryLimits = ReturnType<typeof memoryLimits>;

function memoryLimits(o: OperatorControllerOptions) {
  const cap = o.imageLimits.maxUnpackedBytes;
  // Bundles and records above an eighth of the cap keep their JSON lines in unlinked files here, not in the heap.
  const spill = { dir: join(o.cacheDir, 'lines'), aboveBytes: cap / 8 };
  return {
    /** Bundles held at once (read, parsed, rendered, applied): at most one at the unpacked-bytes cap; large ones' lines in files. */
    bundles: { budget: new BundleBudget(cap), spill },
    /**
     * The release records a reconcile holds, likewise: a budget of their own, taken before the
     * bundle's (a pull's share kept for a next reconcile is dropped after `claimMs`, so no wait deadlocks).
     */
    records: { budget: new BundleBudget(cap), spill },
    /** A record holds a rendered bundle: what it may decompress to follows a raised unpacked-bytes cap. */
    maxRecordBytes: Math.max(MAX_RECORD_JSON_BYTES, 2 * cap),
  };
}

/**
 * While this replica leads: the ClusterExtension controller, what feeds it and the
 * cluster-upgrade gate, each built after what it uses, run until `leading` aborts, then
 * stopped in reverse (the stack). Each controller declares its own watches: the extensions'
 * controller its drift watches, the revisions' controller those of its revisions' objects.
 */
async function lead(o: OperatorControllerOptions, started: Started, p: ProcessParts, leading: AbortSignal): Promise<void> {
  const { log, registry, kube, extensions, catalogs } = started;
  await using stack = new AsyncDisposableStack();
  // Its kinds' objects stored in an older version after a storage-version change are rewritten beside the rest (docs/release.md).
  const owned = started.objectSets === undefined ? [CLUSTER_EXTENSION.crdName] : [CLUSTER_EXTENSION.crdName, CLUSTER_OBJECT_SET.crdName];
  const migrating = migrateStoredVersions(owned, { client: kube.client, log, signal: leading });
  stack.defer(async () => void (await migrating));
  const queue = new WorkQueue({ name: EXTENSION_CONTROLLER_NAME, registry });
  const memory = memoryLimits(o);
  // BoxcutterRuntime: the revisions' controller runs beside the extensions' (decision 0125),
  // its watches of the installers' objects shared with the drift watches (decision 0156).
  const objectWatches = started.objectSets === undefined ? undefined : installerWatches(started);
  const revisions = objectSetController(o, started, p, objectWatches);
  const fed = await extensionFeeds(o, started, p, { queue, memory, stack, leading, objectWatches });
  // Helm runtime: revisions left by an earlier BoxcutterRuntime are taken back, where the kind is served.
  const revisionsServed = revisions === undefined && (await serves(kube, CLUSTER_OBJECT_SET, leading));
  // The installers' ServiceAccounts from a cache, where operator-controller may watch them (decision 0155).
  const accounts = await watchInstallerAccounts({
    ...started,
    client: kube.client,
    defaultInstaller: o.defaultInstallServiceAccount,
    signal: leading,
  });
  if (accounts !== undefined) stack.defer(() => accounts.stopped);
  const reconciler = extensionReconciler(o, started, p, { ...fed, memory, revisions, revisionsServed, accounts: accounts?.informer });
  const controller = new Controller({
    name: EXTENSION_CONTROLLER_NAME,
    queue,
    reconciler,
    log,
    registry,
    watches: [...extensionWatches(extensions, started.objectSets), ...(accounts === undefined ? [] : [accounts.watch])],
    concurrency: o.maxConcurrentReconciles,
    reconciles: CLUSTER_EXTENSION,
  });
  // The cluster-upgrade gate (olm.maxOpenShiftVersion, removed APIs, Upgradeable holds): metrics always, OpenShift conditions where served.
  // It reads what is installed through the one revision reader `olmv1 status` uses: an extension's
  // ClusterObjectSets under BoxcutterRuntime, its Helm release records otherwise.
  const releases = createRevisionReader({
    client: kube.client,
    namespace: o.systemNamespace,
    maxRecordBytes: memory.maxRecordBytes,
    cacheBudget: memory.records.budget,
  });
  const gating = runUpgradeGate({ client: kube.client, releases, extensions, clusterVersion: o.clusterVersion, log, registry }, leading);
  stack.defer(() => gating);
  const ahead = resolveAhead(started, p, fed.dependencies, controller, leading);
  stack.defer(() => ahead.settled());
  const ports = {
    extensions,
    catalogs,
    catalogSource: p.catalogSource,
    installed: fed.installed,
    enqueue: (n: string) => queue.add(n),
    log,
    signal: leading,
  };
  stack.defer(
    watchExtensions({
      ...ports,
      resolveAhead: (n) => ahead.offer(n),
      forgetDeleted: fed.forgetDeleted,
      forgetDeleting: [(n) => fed.pulls.forget(n)],
    }),
  );
  await collectUnusedBundles(extensions, p.bundleCache, leading, log);
  // Resolving before the catalogs are listed would take every catalog for deleted (the
  // installed bundle stays, upgrades wait for a catalog event) or report no bundles found.
  await catalogs.waitForSync(leading).catch(() => undefined);
  // TenantExtensions: Extension requests under ExtensionPolicies (decision 0138).
  const tenants = o.featureGates.TenantExtensions ? tenantController(o, started, p, memory, leading) : undefined;
  await Promise.all([controller.run(leading), revisions?.run(leading), tenants]);
}

/**
 * What feeds the ClusterExtension controller while leading, each stopped through `stack`: its
 * drift watches (decision 0109), stored-object verdicts (decision 0129), gauges, bundle pulls,
 * dependency ports and the cluster-wide proxy (decision 0132); and what forgets a deleted extension.
 */
async function extensionFeeds(
  o: OperatorControllerOptions,
  started: Started,
  p: ProcessParts,
  {
    queue,
    memory,
    stack,
    leading,
    objectWatches,
  }: { queue: WorkQueue; memory: MemoryLimits; stack: AsyncDisposableStack; leading: AbortSignal; objectWatches: InstallerWatches | undefined },
) {
  const { log, registry, kube } = started;
  const enqueue = (name: string): void => queue.add(name);
  const drift = await startDriftWatches({
    client: kube.client,
    scoped: p.scoped,
    enqueue,
    log,
    registry,
    signal: leading,
    watches: driftSide(objectWatches),
  });
  stack.defer(() => drift.settled());
  // Stored-object verdicts kept while a refused upgrade waits; a stored object's change queues its extension.
  const storedVerdicts = new StoredVerdictCache({ onChange: enqueue, signal: leading });
  stack.defer(() => storedVerdicts.close());
  const healthGauge = new ExtensionHealthGauge(registry);
  const dependencyGauge = new DependencyGauge(registry);
  stack.defer(() => {
    healthGauge.reset();
    dependencyGauge.reset();
  });
  const pulls = bundlePulls(started, p, memory.bundles, queue, leading);
  stack.defer(() => pulls.settled());
  const installed = new InstalledIndex();
  // The cluster-wide proxy set in operators' Deployments; a change of it queues every extension.
  const proxy = await clusterProxySource(o, started, enqueue, leading);
  const forgetDeleted = [
    (n: string) => drift.stop(n),
    (n: string) => healthGauge.forget(n),
    (n: string) => dependencyGauge.forget(n),
    (n: string) => storedVerdicts.forget(n),
  ];
  const dependencies = dependencyPorts(started, installed, dependencyGauge);
  return { drift, storedVerdicts, healthGauge, pulls, installed, dependencies, clusterProxy: () => proxy.current(), forgetDeleted };
}

/** New catalog content: each affected extension is resolved at once and an upgrade it will get is reported before its reconcile comes (decision 0100). */
function resolveAhead(started: Started, p: ProcessParts, dependencies: DependencyPorts, controller: Controller, leading: AbortSignal): ResolveAhead {
  const { kube, extensions, log, registry } = started;
  return new ResolveAhead({
    extensions,
    catalogs: p.catalogSource,
    features: p.features,
    dependencies,
    client: kube.client,
    beside: (n, fn) => controller.besideReconcile(n, fn),
    log,
    registry,
    signal: leading,
  });
}

/** The tenant controller over this process's parts (TenantExtensions). */
function tenantController(
  o: OperatorControllerOptions,
  started: Started,
  p: ProcessParts,
  memory: MemoryLimits,
  leading: AbortSignal,
): Promise<void> {
  const { bundleReleaseSupport: _release, ...features } = p.features;
  return runTenantController(
    {
      log: started.log,
      registry: started.registry,
      kube: started.kube,
      clusterExtensions: started.extensions,
      catalogs: started.catalogs,
      catalogSource: p.catalogSource,
      bundles: { images: p.images, cache: p.bundleCache, memory: memory.bundles },
      features,
      concurrency: o.maxConcurrentReconciles,
    },
    leading,
  );
}

/**
 * BoxcutterRuntime: the ClusterObjectSet controller, writing each revision's objects as the
 * installer of the extension proven to have made it (decision 0125), or, for a revision no
 * extension made, as `--user-revision-service-account`, else nothing (decision 0126).
 */
function objectSetController(
  o: OperatorControllerOptions,
  started: Started,
  p: ProcessParts,
  objectWatches: InstallerWatches | undefined,
): ObjectSetController | undefined {
  const { objectSets, extensions, kube, log, registry } = started;
  if (objectSets === undefined) return undefined;
  const users = o.userRevisionServiceAccount;
  const extensionSpec = (name: string) => {
    const parsed = parseClusterExtension(extensions.get(name));
    return parsed.ok ? parsed.value.spec : undefined;
  };
  return createObjectSetController({
    ports: {
      client: kube.client,
      systemNamespace: o.systemNamespace,
      writerFor: revisionWriters({
        extensionOf: (name) => {
          const ce = extensions.get(name);
          return ce === undefined ? undefined : { uid: ce.metadata.uid ?? '', deleting: ce.metadata.deletionTimestamp !== undefined };
        },
        installerClient: (owner, cos) => {
          const sa = revisionInstaller({ name: cos.metadata.name, owner }, extensionSpec, o.defaultInstallServiceAccount);
          return p.scoped.forServiceAccount(sa.namespace, sa.name);
        },
        installerIdentity: (owner, cos) => {
          const sa = revisionInstaller({ name: cos.metadata.name, owner }, extensionSpec, o.defaultInstallServiceAccount);
          return `${sa.namespace}/${sa.name}`;
        },
        userClient: users === undefined ? undefined : () => p.scoped.forServiceAccount(users.namespace, users.name),
        writes: p.revisionWrites,
      }),
    },
    informer: objectSets,
    ...(started.objectSetsOf === undefined ? {} : { revisionsOf: started.objectSetsOf }),
    log,
    registry,
    concurrency: o.maxConcurrentReconciles,
    objectWatches,
  });
}

/** The ClusterExtension reconciler over this process's parts and what `lead` built for it. */
function extensionReconciler(
  o: OperatorControllerOptions,
  { kube, registry, extensions, objectSetsOf }: Started,
  p: ProcessParts,
  // revisionsServed: whether the ClusterObjectSet kind is served (read once when leading starts).
  built: Pick<ClusterExtensionPorts, 'drift' | 'healthGauge' | 'pulls' | 'dependencies' | 'storedVerdicts' | 'accounts'> &
    Required<Pick<ClusterExtensionPorts, 'clusterProxy'>> & {
      memory: MemoryLimits;
      revisions: ObjectSetController | undefined;
      revisionsServed: boolean;
    },
): ReturnType<typeof clusterExtensionReconciler> {
  const records = { namespace: o.systemNamespace, maxRecordBytes: built.memory.maxRecordBytes };
  const helmReleases = createReleaseStore({ client: p.pause === undefined ? kube.client : pausingReleaseWrites(kube.client, p.pause), ...records });
  const revisions = built.revisions;
  return clusterExtensionReconciler(
    {
      client: kube.client,
      scoped: p.pause === undefined ? p.scoped : pausingObjectWrites(p.scoped, p.pause),
      releases: helmReleases,
      ...(revisions === undefined
        ? {}
        : {
            boxcutter: {
              systemNamespace: o.systemNamespace,
              settled: (name: string) => p.revisionWrites.idle(name),
              cacheBudget: built.memory.records.budget,
              ...(objectSetsOf === undefined ? {} : { cachedRevisions: objectSetsOf }),
            },
          }),
      ...(revisions === undefined && built.revisionsServed ? { revisionsServed: { systemNamespace: o.systemNamespace } } : {}),
      recordMemory: built.memory.records,
      catalogs: p.catalogSource,
      dependencies: built.dependencies,
      bundleCache: p.bundleCache,
      pulls: built.pulls,
      defaultInstaller: o.defaultInstallServiceAccount,
      maintenanceWindow: o.maintenanceWindow,
      schemas: createOpenApiSchemas(kube.transport),
      drift: built.drift,
      healthGauge: built.healthGauge,
      storedVerdicts: built.storedVerdicts,
      events: p.events,
      // Upgrades held by update policies (decision 0096): a metric series each.
      upgrades: createUpgradeNotices(registry),
      features: p.features,
      clusterProxy: built.clusterProxy,
      accounts: built.accounts,
    },
    {
      stepTimer: stepDurationTimer(registry, EXTENSION_CONTROLLER_NAME),
      pause: p.pause,
      // BoxcutterRuntime: each reconcile reads the extension from the informer, as upstream's from its cache (issue 74).
      ...(revisions === undefined ? {} : { cached: (name: string) => extensions.get(name) }),
    },
  );
}

/** Bundle pulls run in the background; a pull's end queues its extension ahead of the others (decisions 0067, 0114). */
function bundlePulls(started: Started, p: ProcessParts, memory: MemoryPort, queue: WorkQueue, leading: AbortSignal): BundlePulls {
  const source = { images: p.images, cache: p.bundleCache, memory };
  return new BundlePulls({
    fetch: (owner, ref, signal) => fetchBundle(source, { owner, ref, signal }),
    cached: (owner, ref) => cachedBundle(source, { owner, ref }),
    enqueue: (name) => queue.add(name, PULL_END_PRIORITY),
    // While others wait for a worker, a reconcile waits for its pull 250 ms at most (issue 60).
    busy: () => queue.length > 0,
    log: started.log,
    registry: started.registry,
    signal: leading,
  });
}

/**
 * Requirements are met by installed extensions and by APIs the cluster serves (decision 0104);
 * the resolution ahead of an upgrade checks them the same way.
 */
function dependencyPorts({ kube, extensions }: Started, installed: InstalledIndex, gauge: DependencyGauge): DependencyPorts {
  const versions = new ServerVersionCache((signal) => readServerVersion(kube.transport, signal));
  return {
    extensions,
    cache: new RequirementCache(),
    installed,
    serverVersion: (signal) => versions.get(signal),
    gauge,
    serves: (gvk, signal) => serves(kube, gvk, signal),
  };
}

/** Whether the API server serves `kind` (asked once). */
function serves(kube: KubeContext, kind: { group: string; version: string; kind: string }, signal?: AbortSignal): Promise<boolean> {
  return kube.mapper.resolve({ group: kind.group, version: kind.version, kind: kind.kind }, signal).then(
    () => true,
    () => false,
  );
}

/** Removes cached bundle images of extensions that no longer exist (e.g. deleted while stopped). */
async function collectUnusedBundles(extensions: Informer<KubeObject>, cache: ImageCache, signal: AbortSignal, log: Logger): Promise<void> {
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
