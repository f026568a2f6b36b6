/**
 * What the install service (service.ts) reads and writes through, injected, and what it reports:
 * the user's client, the cluster's catalogs resolved as operator-controller resolves them (the
 * olmv1 CLI's cluster resolution), bundle images, a clock for the wait, and its progress events.
 */
import type { RegistryV1Bundle } from '../../operator-controller/bundle/index.ts';
import type { CatalogSource, dependencyCheck } from '../../operator-controller/dependencyview/index.ts';
import type { Provider } from '../../operator-controller/dependencies/index.ts';
import type { EscalationWarning } from '../../operator-controller/render/index.ts';
import type { LabelSelector, ResolveInput, resolve } from '../../operator-controller/resolve/index.ts';
import type { Result } from '../../shared/errors/index.ts';
import type { KubeClient, KubeObject } from '../../shared/kube/index.ts';
import type { catalogSource } from './objects.ts';

/** The cluster's catalogs, read as the user, as operator-controller resolves a new extension. */
export interface InstallCatalogs {
  /** The resolver's input for `source` (nothing installed): the catalogs operator-controller would select, or its error. */
  input(source: ReturnType<typeof catalogSource>): Promise<Result<ResolveInput, string>>;
  /** The resolution with the controller's dependency and minKubeVersion checks. */
  resolve(extension: string, selector: LabelSelector | undefined, input: ResolveInput): Promise<{ result: ReturnType<typeof resolve> }>;
  /** What the catalogs offer instead after a failed resolution (empty when nothing). */
  hints(input: ResolveInput, selector: LabelSelector | undefined, error: string): Promise<string[]>;
  /** The ClusterCatalogs with their content (for the providers of unmet dependencies). */
  source(): Promise<CatalogSource>;
  /** The controller's dependency check for `self` over what the user can read (`items` undefined when the ClusterExtensions cannot be listed). */
  dependencyCheck(
    source: CatalogSource,
    self: string,
    inputs: ResolveInput['catalogs'],
  ): Promise<{ check: Awaited<ReturnType<typeof dependencyCheck>>; unread: string[]; items: KubeObject[] | undefined }>;
}

/** One step of an install, as it happens (the CLI prints them on stderr; the console returns them). */
export type InstallEvent =
  | { type: 'resolving'; packageName: string }
  | { type: 'dependency'; extension: string; index: number; provider: Provider; requirement: string }
  /** A dependency's install finished (Installed). */
  | { type: 'dependency-installed'; result: InstallResult }
  | { type: 'dependencies'; extension: string; count: number }
  | { type: 'resolved'; bundle: ResolvedBundle }
  | { type: 'rbac'; warnings: readonly string[]; escalations: readonly EscalationWarning[] }
  /** An object written (`Kind ns/name`): created, reused or updated (left by an earlier run), or removed again after a failure. */
  | { type: 'object'; action: WriteAction | 'removed'; object: string; extension: string }
  | { type: 'remove-failed'; object: string; error: string }
  /** Everything written (before the wait). */
  | { type: 'written'; extension: string; objects: readonly KubeObject[] }
  /** While waiting: the ClusterExtension's Progressing reason and message, when they change. */
  | { type: 'waiting'; extension: string; progress: string };

/** What was done with one object: created, or found left by an earlier run of the same install and used or updated. */
export type WriteAction = 'created' | 'reused' | 'updated';

/** What the install service needs. */
export interface InstallPorts {
  /** The user's client: every read and write is theirs. */
  client: KubeClient;
  catalogs: InstallCatalogs;
  /** The bundle a catalog names (never a local path), pulled with the user's registry settings; rejects when it cannot be. */
  loadBundle(image: string): Promise<RegistryV1Bundle>;
  clock: { now(): number; sleep(ms: number): Promise<void> };
  /** Progress, as it happens. */
  onEvent?(event: InstallEvent): void;
}

/** The bundle resolved for an install. */
interface ResolvedBundle {
  name: string;
  version: string;
  image: string;
  catalog: string;
}

/** A dependency a dry run of `--with-dependencies` found: the unmet requirement and the provider that would be installed for it. */
export interface PlannedDependency {
  requirement: string;
  provider: Provider;
}

/** An install done (or, for a dry run, checked). */
export interface InstallResult {
  extension: string;
  packageName: string;
  namespace: string;
  serviceAccount: string;
  bundle: ResolvedBundle;
  /** Every object, in write order: the namespace when created, ServiceAccount, RBAC, then the ClusterExtension. */
  objects: KubeObject[];
  /** What was done with each object written (empty for a dry run). */
  written: { action: WriteAction; object: KubeObject }[];
  /** The installer RBAC's notes and escalation warnings (none with an existing ServiceAccount). */
  warnings: string[];
  escalations: EscalationWarning[];
  /** How many dependencies were installed first. */
  dependencies: number;
  /** A dry run with withDependencies: what would be installed first, each as its own ClusterExtension. */
  plannedDependencies?: PlannedDependency[];
  /** The bundle's catalog is marked Community (decision 0148): why an install needs `acceptCommunity` (a dry run reports it, an install without it is refused). */
  community?: string;
  /**
   * The namespace is created and its CSV has a suggested-namespace template: the labels and
   * annotations applied from it, and its entries that weaken Pod security (`label KEY=VALUE`;
   * applied only with `acceptNamespaceLabels`, else dropped and named in `warnings`).
   */
  namespaceTemplate?: { labels: Record<string, string>; annotations: Record<string, string>; podSecurity: string[] };
  /** True once operator-controller reported it Installed (false without waiting, and for a dry run). */
  installed: boolean;
  dryRun: boolean;
}
