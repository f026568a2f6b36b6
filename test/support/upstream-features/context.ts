/**
 * The state one upstream scenario carries from step to step (upstream's scenarioContext), and
 * the cluster it acts on.
 */
import type { Kubectl, WaitPolicy } from './kubectl.ts';
import type { ScenarioNames } from './vars.ts';

/** A resource a step created, deleted again when the scenario passes. */
export interface TrackedResource {
  kind: string;
  name: string;
  namespace?: string;
}

/** What builds upstream's per-scenario catalogs ("a catalog ... with packages"). */
export interface CatalogPort {
  /** "an image registry is available": the registry the catalogs are pushed to is up. */
  imageRegistryIsAvailable(): Promise<void>;
  /**
   * Builds and pushes catalog `catalog` tagged `version` from a step's table (columns package |
   * version | channel | replaces | contents, header first) with package names suffixed by the
   * scenario id, as upstream's test/internal/catalog does.
   */
  build(o: { catalog: string; scenarioId: string; version: string; table: string[][] }): Promise<{
    /** The ClusterCatalog's name (`<catalog>-catalog-<id>` upstream). */
    catalogName: string;
    /** The image reference the cluster pulls. */
    catalogImageRef: string;
    /** Package name in the table -> its per-scenario name. */
    packageNames: ReadonlyMap<string, string>;
  }>;
  /** "catalog ... image version X is also tagged as Y". */
  tag(o: { catalog: string; scenarioId: string; from: string; to: string }): Promise<void>;
}

/** Names the steps mutate: ${COS_NAME} follows the last ClusterObjectSet applied. */
export interface MutableScenarioNames extends ScenarioNames {
  clusterObjectSetName: string;
  catalogPackageNames: Map<string, string>;
  catalogs: Map<string, string>;
}

export type KubeObject = Record<string, unknown>;

/** One scenario's context: its names, what it did, and the cluster. */
export interface ScenarioContext {
  names: MutableScenarioNames;
  featureName: string;
  scenarioName: string;
  addedResources: TrackedResource[];
  removedResources: KubeObject[];
  extensionObjects: KubeObject[];
  lastApplyStderr: string;
  kubectl: Kubectl;
  wait: WaitPolicy;
  /** Feature gates as upstream's BeforeSuite read them (selects the RBAC template kernel). */
  featureGates: ReadonlyMap<string, boolean>;
  /** Upstream's test/e2e/steps/testdata in its Go module. */
  testdataDir: string;
  /** Absent: the catalog steps fail saying so. */
  catalogs?: CatalogPort;
}
