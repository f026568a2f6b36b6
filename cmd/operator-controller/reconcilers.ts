/**
 * The ClusterExtension reconciler, assembled: a StepReconciler over the parsed
 * ClusterExtension whose steps are listed here in order, each given only the ports it uses (as
 * upstream's main.go lists its ReconcileSteps). run.ts builds the ports; reconciler-level tests
 * build fakes of them and run this same list.
 */
import {
  createBoxcutterApplier,
  type CacheBudget,
  createObjectSetReleases,
  createReleaseApplier,
  cachedRevisions,
  listRevisions,
  migrateToReleases,
  newestSummary,
  RevisionLists,
} from '../../pkg/operator-controller/applier/index.ts';
import { CLUSTER_EXTENSION, parseClusterExtension, type ClusterExtension } from '../../pkg/shared/api/index.ts';
import { StepReconciler, type Step, type StepTimer } from '../../pkg/shared/controller/index.ts';
import type { ImageCache } from '../../pkg/shared/image/index.ts';
import type { EventRecorder, Informer, KubeClient, KubeObject, OpenApiSchemas, ScopedClientFactory } from '../../pkg/shared/kube/index.ts';
import {
  applyStep,
  finalizersStep,
  healthStep,
  installedStep,
  migrateStep,
  newExtensionState,
  policyStep,
  upgradeableStep,
  windowStep,
  rollbackHoldStep,
  rollbackStep,
  preauthorizeStep,
  preflightStep,
  pullStep,
  renderStep,
  resolveStep,
  validateStep,
  type ExtensionFeatures,
  type ExtensionState,
  type ServiceAccountRef,
  type UpgradeNotices,
} from '../../pkg/operator-controller/clusterextension/index.ts';
import { type BundlePullScheduler, type MemoryPort } from '../../pkg/operator-controller/bundlepull/index.ts';
import { type CatalogSource, type DependencyPorts } from '../../pkg/operator-controller/dependencyview/index.ts';
import { type DriftTracker, type ExtensionHealthGauge } from '../../pkg/operator-controller/drift/index.ts';
import type { ReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import type { StoredVerdictCache } from '../../pkg/operator-controller/crdupgrade/index.ts';
import type { MaintenanceWindow } from '../../pkg/operator-controller/maintenance/index.ts';
import type { ClusterProxy } from '../../pkg/operator-controller/render/index.ts';
import type { PauseHook } from './test-pause.ts';

/** Everything the ClusterExtension steps use between them; each step gets its part. */
export interface ClusterExtensionPorts {
  /** operator-controller's own identity: the ClusterExtension, namespaces, ServiceAccounts. */
  client: KubeClient;
  /** Clients acting as an extension's installer (its ServiceAccount). */
  scoped: Pick<ScopedClientFactory, 'forServiceAccount' | 'forget'>;
  /** The Helm release records: the Helm runtime's revisions; under BoxcutterRuntime, what an extension had before the gate. */
  releases: ReleaseStore;
  /** The memory release records are read into (decision 0098: a budget, files for large manifests); none: unbounded, in the heap. */
  recordMemory?: MemoryPort;
  catalogs: CatalogSource;
  /** What checking bundles' dependencies reads of the cluster (decision 0104); none: refused as upstream. */
  dependencies?: DependencyPorts;
  bundleCache: Pick<ImageCache, 'delete'>;
  /** Bundle pulls: from the cache, or in the background so that no worker waits on a registry. */
  pulls: Pick<BundlePullScheduler, 'get'>;
  /** Schemas of the API server's kinds, to drop fields they do not declare before applying. */
  schemas: Pick<OpenApiSchemas, 'schemaFor'>;
  /** Watches of the deployed release's objects that queue a reconcile when they drift. */
  drift: DriftTracker;
  /** Stored-object verdicts kept while a refused upgrade waits (decision 0129); none: each check scans. */
  storedVerdicts?: StoredVerdictCache;
  /** `olmv1_extension_healthy`: set by the health step, removed by the finalizers. */
  healthGauge: Pick<ExtensionHealthGauge, 'set' | 'forget'>;
  /** Kubernetes Events on the ClusterExtension; fire and forget. */
  events: EventRecorder;
  /** Upgrades held by update policies: the metric, and which were announced. */
  upgrades: UpgradeNotices;
  features: ExtensionFeatures;
  /** The cluster-wide proxy set in operators' containers (decision 0132); none: not set. */
  clusterProxy?: () => ClusterProxy;
  /** The cluster's ServiceAccounts (decision 0155): an installer held there is not read at validation; none: always read. */
  accounts?: Pick<Informer<KubeObject>, 'get'>;
  /** Installs extensions whose spec names no ServiceAccount (`--default-install-service-account`); none: they wait. */
  defaultInstaller?: ServiceAccountRef;
  /** Automatic upgrades of extensions without the maintenance-window annotation wait for it (`--maintenance-window`, decision 0122); none: any time. */
  maintenanceWindow?: MaintenanceWindow;
  /**
   * BoxcutterRuntime (decision 0125): revisions are ClusterObjectSets, rolled out by their own
   * controller; Helm release records are only migrated into revision 1. None: the Helm runtime.
   */
  boxcutter?: BoxcutterPorts;
  /**
   * Helm runtime on a cluster that serves ClusterObjectSets: extensions installed under the
   * BoxcutterRuntime are taken back to release records (decision 0125). None: the kind is not served.
   */
  revisionsServed?: { systemNamespace: string };
}

/** What the BoxcutterRuntime adds. */
interface BoxcutterPorts {
  /** operator-controller's namespace: the Secrets holding revisions' objects. */
  systemNamespace: string;
  /** Resolves once no write of an extension's revisions is in flight (objectset's RevisionWrites): awaited before an uninstall deletes them. */
  settled?: (extension: string) => Promise<void>;
  /** The budget the revisions' objects read back are kept under (the release records' memory port); none: their own bound only. */
  cacheBudget?: CacheBudget;
  /** The ClusterObjectSet informer's copies labelled with an extension's name (a labelIndex), read instead of listing each reconcile (lists.ts); none: listed. */
  cachedRevisions?: (name: string) => readonly Readonly<KubeObject>[];
}

/** Options besides the ports. */
interface ClusterExtensionReconcilerOptions {
  /** Per-step duration observer (e.g. stepDurationTimer). */
  stepTimer?: StepTimer;
  /** First and longest poll period of a wait (default 1 s doubling to 10 s). */
  poll?: { initialMs: number; maxMs: number };
  /** The ClusterExtension informer's copy by name, read instead of a GET each reconcile (StepReconciler `cached`); none: GET. */
  cached?: (name: string) => Readonly<KubeObject> | undefined;
  /**
   * Test hook (test-pause.ts), none in production: awaited with `step:<name>` before each step
   * (the write points are client decorators, pausing-clients.ts, composed in control.ts).
   */
  pause?: PauseHook;
}

/** The ClusterExtension reconcile steps, in order. */
function clusterExtensionSteps(p: ClusterExtensionPorts, lists: RevisionLists, pause?: PauseHook): Step<ExtensionState>[] {
  const { client, scoped, drift, events, releases: helm, boxcutter: bc } = p;
  // The extension's revisions as the steps read them; written only through the applier.
  const releases =
    bc === undefined
      ? helm
      : createObjectSetReleases(client, {
          systemNamespace: bc.systemNamespace,
          lists,
          ...(bc.cacheBudget === undefined ? {} : { budget: bc.cacheBudget }),
        });
  const served = p.revisionsServed;
  const applier =
    bc === undefined
      ? createReleaseApplier({
          scoped,
          releases: helm,
          drift,
          toReleases:
            served && ((owner, signal) => migrateToReleases({ client, releases: helm, systemNamespace: served.systemNamespace }, owner, signal)),
        })
      : // The revisions' controller watches their objects itself: no drift is routed to it from here.
        createBoxcutterApplier({ client, scoped, drift, systemNamespace: bc.systemNamespace, settled: bc.settled, helmReleases: helm, lists });
  // Undo on failure (decision 0123): under the BoxcutterRuntime the newest revision is judged, no Helm record is written.
  const rollbackPorts =
    bc === undefined
      ? { applier, scoped, events }
      : { applier, scoped, events, newest: async (name: string, signal: AbortSignal) => newestSummary(await lists.list(name, signal)) };
  const steps = [
    finalizersStep({ releases, applier, scoped, bundleCache: p.bundleCache, drift, healthGauge: p.healthGauge, events, upgrades: p.upgrades }),
    validateStep({ client, events, accounts: p.accounts }),
    // Switching runtimes (decision 0125): Helm records into revisions under the gate; back, where revisions may exist.
    migrateStep({ applier }),
    installedStep({ releases, drift, records: p.recordMemory }),
    // Under the BoxcutterRuntime, as upstream: no resolution while a revision rolls out (decision 0125).
    resolveStep({ catalogs: p.catalogs, features: p.features, events, dependencies: p.dependencies, holdWhileRollingOut: bc !== undefined }),
    pullStep({ pulls: p.pulls, events }),
    renderStep({ schemas: p.schemas, features: p.features, events, ...(p.clusterProxy === undefined ? {} : { clusterProxy: p.clusterProxy }) }),
    policyStep({ upgrades: p.upgrades, events, scoped, ...(p.storedVerdicts === undefined ? {} : { storedVerdicts: p.storedVerdicts }) }),
    windowStep({ events, clusterDefault: p.maintenanceWindow }),
    upgradeableStep({ events }),
    // Opt in (decision 0123): a bundle a rollback on failure undid is not installed again until told.
    rollbackHoldStep(),
    preauthorizeStep({ applier, events }),
    preflightStep({ scoped, events, drift, ...(p.storedVerdicts === undefined ? {} : { storedVerdicts: p.storedVerdicts }) }),
    // Always: the planned release, or, when an earlier step stopped the reconcile (a next bundle
    // not pulled, not resolved, not authorized...), the deployed release kept and its drift repaired.
    applyStep({ applier, events }),
    healthStep({ drift, gauge: p.healthGauge }),
    // Opt in (decision 0123): an upgrade not Healthy within its deadline is rolled back.
    rollbackStep(rollbackPorts),
  ];
  return pause === undefined ? steps : steps.map((step) => pausing(step, pause));
}

/** The ClusterExtension reconciler: clusterExtensionSteps over the parsed ClusterExtension. */
export function clusterExtensionReconciler(
  p: ClusterExtensionPorts,
  o: ClusterExtensionReconcilerOptions = {},
): StepReconciler<ClusterExtension, ExtensionState> {
  // Under BoxcutterRuntime one list of an extension's revisions answers every read of a reconcile until it writes them.
  const cached = p.boxcutter?.cachedRevisions;
  const lists = new RevisionLists((name, signal) => listRevisions(p.client, name, signal), cached && cachedRevisions(cached));
  const state = newExtensionState(p.defaultInstaller);
  return new StepReconciler<ClusterExtension, ExtensionState>({
    client: p.client,
    type: { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind },
    parse: parseClusterExtension,
    state: p.boxcutter === undefined ? state : (ce, ctx, held) => state(ce, { ...ctx, signal: lists.begin(ctx.signal, held) }, held),
    steps: clusterExtensionSteps(p, lists, o.pause),
    stepTimer: o.stepTimer,
    poll: o.poll,
    ...(o.cached === undefined ? {} : { cached: o.cached }),
  });
}

/** `step` preceded by the pause point `step:<name>`. */
function pausing(step: Step<ExtensionState>, pause: PauseHook): Step<ExtensionState> {
  return {
    ...step,
    run: async (state, stopped) => {
      await pause(`step:${step.name}`, state.ce.metadata.name);
      return step.run(state, stopped);
    },
  };
}
