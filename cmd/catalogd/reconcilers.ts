/**
 * catalogd's reconcilers as lists of steps (upstream's cmd/catalogd/main.go assembles its
 * reconciler the same way): which steps run, in which order, over which ports. run.ts builds
 * the leader's controller from it; the reconciler-level tests build it over fakes.
 */
import type { Registry } from 'prom-client';
import { CLUSTER_CATALOG, parseClusterCatalog, type ClusterCatalog } from '../../pkg/shared/api/index.ts';
import {
  CATALOG_CONTROLLER_NAME,
  CatalogMemory,
  DEFAULT_INGEST_TIMEOUT_MS,
  PollSchedule,
  availabilityStep,
  catalogState,
  contentStep,
  finalizersStep,
  holdStep,
  pollStep,
  servingStep,
  type CatalogContentMetrics,
  type CatalogImages,
  type CatalogReconciler,
  type CatalogState,
  type CatalogStore,
} from '../../pkg/catalogd/clustercatalog/index.ts';
import { StepReconciler, stepDurationTimer, type StatusClient } from '../../pkg/shared/controller/index.ts';
import type { ImageCache } from '../../pkg/shared/image/index.ts';
import type { EventRecorder } from '../../pkg/shared/kube/index.ts';

/** The ports of the ClusterCatalog reconciler. */
interface CatalogReconcilerDeps {
  /** Reads ClusterCatalogs, writes their status and finalizers. */
  client: StatusClient;
  /** Events on the ClusterCatalog: `Unpacked` when new content is served, `UnpackFailed`. */
  events: EventRecorder;
  images: CatalogImages;
  /** Where images are unpacked when they cannot be streamed. */
  unpackCache: ImageCache;
  store: CatalogStore;
  metrics?: CatalogContentMetrics;
  /** `status.urls.base` of a catalog: `<scheme>://<external address>/catalogs/<name>`. */
  baseURL: (name: string) => string;
  /** Step durations are observed on it (controller_reconcile_step_duration_seconds). */
  registry?: Registry;
  /** What the reconciler remembers between reconciles (default: a fresh CatalogMemory). */
  memory?: CatalogMemory;
  clock?: () => Date;
  schedule?: PollSchedule;
  /** Bound of one ingest (default DEFAULT_INGEST_TIMEOUT_MS). */
  ingestTimeoutMs?: number;
  /**
   * After a failure for a resource limit, the catalog is not tried again at its generation
   * before this many ms (default: the ingest timeout). Give the controller the same floor.
   */
  limitRetryFloorMs?: number;
}

/** The leader's ClusterCatalog reconciler (pkg/catalogd/clustercatalog/catalog-reconciler.ts). */
export function catalogReconciler(d: CatalogReconcilerDeps): CatalogReconciler {
  const memory = d.memory ?? new CatalogMemory();
  const clock = d.clock ?? (() => new Date());
  const schedule = d.schedule ?? new PollSchedule();
  const ingestMs = d.ingestTimeoutMs ?? DEFAULT_INGEST_TIMEOUT_MS;
  const timeouts = { ingestMs, limitRetryFloorMs: d.limitRetryFloorMs ?? ingestMs };
  const { store, unpackCache, baseURL } = d;
  return new StepReconciler<ClusterCatalog, CatalogState>({
    client: d.client,
    type: { apiVersion: CLUSTER_CATALOG.apiVersion, kind: CLUSTER_CATALOG.kind },
    parse: parseClusterCatalog,
    state: catalogState(clock),
    steps: [
      availabilityStep({ store, unpackCache, memory }),
      finalizersStep({ store, unpackCache, memory }),
      pollStep({ store, memory, schedule, baseURL }),
      holdStep({ memory }),
      contentStep({ images: d.images, store, unpackCache, events: d.events, metrics: d.metrics, memory, clock, timeouts }),
      servingStep({ baseURL, memory, schedule }),
    ],
    ...(d.registry === undefined ? {} : { stepTimer: stepDurationTimer(d.registry, CATALOG_CONTROLLER_NAME) }),
    // Any failure forgets what we knew, so the next attempt re-checks the source.
    onError: (name) => memory.polls.delete(name),
  });
}
