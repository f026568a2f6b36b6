/** What the console reads and writes through: every call acts as the signed-in user. */
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';
import type { DeletionPreview } from '../crd-deletion/index.ts';
import type { UninstallOutcome } from '../uninstall/index.ts';
import type { Release } from '../../operator-controller/release/index.ts';
import type { Revision } from '../../operator-controller/revisions/index.ts';
import type { InstallProgress } from './extensions.ts';
import type { CatalogForm } from './admin.ts';
import type { CatalogWrite } from '../catalog/index.ts';
import type { StatusReport } from '../status/index.ts';
import type { ApproveResult, UpgradePlanResult } from '../upgrade/index.ts';
import type { HubTile } from './hub-index.ts';
import type { TenantSources } from './tenant-sources.ts';
import type { CatalogFields, UpdateResult } from '../update/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import type { Result } from '../../shared/errors/index.ts';
import type { InstallerRbac, InstallRequest, InstallResult } from '../install/index.ts';

/** A catalog's content, loadable one package at a time. */
export interface ConsoleCatalog {
  packageNames: readonly string[];
  /** One package's content (catalogd's per-package answer, or a part of content already read). */
  load(pkg: string): DeclarativeConfig | Promise<DeclarativeConfig>;
  /** Its hub tiles when they were made as the catalog was read (catalog-source.ts); else made from `load`. */
  tiles?: readonly HubTile[];
  /** Packages left out of `tiles`, and why. */
  problems?: readonly string[];
}

/** Where the console reads from; every call acts as the user of the kubeconfig. */
export interface ConsoleSources {
  /** The ClusterCatalogs with their content URL, or why they are not served. */
  listCatalogs(
    signal: AbortSignal,
  ): Promise<
    { name: string; baseURL: string | { error: string }; annotations?: Record<string, string> | undefined; digestRef?: string | undefined }[]
  >;
  /** Reads a catalog's content from catalogd. */
  loadCatalog(name: string, baseURL: string, signal: AbortSignal): Promise<ConsoleCatalog>;
  /** The ClusterExtension objects. */
  listExtensions(signal: AbortSignal): Promise<unknown[]>;
  /** One ClusterExtension; rejects with the API server's error (status 404 when there is none). */
  getExtension(name: string, signal: AbortSignal): Promise<unknown>;
  /** The Events about a ClusterExtension. */
  extensionEvents(name: string, signal: AbortSignal): Promise<unknown[]>;
  /** Its release records, newest first (as `olmv1 release history` reads them). */
  releaseHistory(name: string, signal: AbortSignal): Promise<Release[]>;
  /**
   * Its revisions, newest first, from its ClusterObjectSets when it has any (BoxcutterRuntime),
   * else its release records, as `olmv1 release history` reads them (pkg/operator-controller/revisions). When
   * given, read instead of releaseHistory.
   */
  revisionHistory?(name: string, signal: AbortSignal): Promise<Revision[]>;
  /** How many Nodes are Ready, as the user (why an extension's Pods do not run); rejects when the user may not list them. */
  readyNodes?(signal: AbortSignal): Promise<number>;
  /** Its CustomResourceDefinitions with their custom resources (as `olmv1 uninstall --delete-crds` previews them). */
  crdPreview(name: string, signal: AbortSignal): Promise<DeletionPreview>;
  /** `Kind namespace/name` of the ServiceAccount and RBAC `olmv1 install` created for it. */
  installerObjects(name: string, signal: AbortSignal): Promise<string[]>;
  /** Deletes the ClusterExtension, preconditioned on `uid`; rejects with the API server's error. */
  deleteExtension(name: string, uid: string, signal: AbortSignal): Promise<void>;
  /** Where the install of a ClusterExtension object stands (as `olmv1 install` judges it while it waits). */
  installState(obj: unknown): InstallProgress;
  /**
   * `olmv1 uninstall NAME --delete-crds`'s service (pkg/olmv1/uninstall) as the user, the
   * installer's ServiceAccount and RBAC kept: with `preview`, what it deletes; else the uninstall
   * and the deletion of the CRDs.
   */
  uninstall?(name: string, preview: boolean): Promise<UninstallOutcome>;
  /** `olmv1 install`'s service as the user (pkg/olmv1/install): what it wrote (for a dry run, would write), or why not. */
  install(request: InstallRequest): Promise<Result<InstallResult, string>>;
  /** `olmv1 status`'s report, read as the user (the cluster-upgrade gate); rejects when the cluster cannot be read. */
  clusterStatus?(signal: AbortSignal): Promise<StatusReport>;
  /** The ClusterCatalog objects. */
  listCatalogObjects?(signal: AbortSignal): Promise<unknown[]>;
  /** Creates the ClusterCatalog as `olmv1 catalog add` does (pkg/olmv1/catalog), as the user. */
  catalogAdd?(catalog: CatalogForm): Promise<CatalogWrite>;
  /** Requests the deletion of a ClusterCatalog as `olmv1 catalog remove --no-wait` does, as the user. */
  catalogRemove?(name: string): Promise<CatalogWrite>;
  /** `olmv1 upgrade plan`'s service (pkg/olmv1/upgrade) for the extension, as the user. */
  upgradePlan?(extension: string): Promise<UpgradePlanResult>;
  /** `olmv1 upgrade approve`'s service for the extension (only when the pick has `version`, when given), as the user. */
  upgradeApprove?(extension: string, version: string | undefined): Promise<ApproveResult>;
  /** True when objects of this kind are namespaced (discovery, as the user); rejects with the API server's error. */
  objectScope?(type: { apiVersion: string; kind: string }, signal: AbortSignal): Promise<boolean>;
  /** One object (of a release), read as the user; rejects with the API server's error (its `status`). */
  getObject?(ref: { apiVersion: string; kind: string; name: string; namespace: string }, signal: AbortSignal): Promise<unknown>;
  /**
   * Watches these objects (of a deployed release) as the user, calling `onChange` when one changes,
   * until `signal` aborts (watches.ts's objectWatches).
   */
  watchObjects?(
    refs: readonly { apiVersion: string; kind: string; name: string; namespace: string }[],
    onChange: () => void,
    signal: AbortSignal,
  ): void;
  /**
   * `olmv1 release rollback EXTENSION REVISION`'s service as the user (pkg/olmv1/rollback): its
   * report, or its refusal or failure, as the command prints them.
   */
  rollback?(extension: string, revision: number): Promise<{ ok: true; report: string } | { ok: false; error: string }>;
  /** The installer RBAC `olmv1 rbac` computes for the bundle `image` (pulled as `olmv1 install` pulls it), or why not. */
  bundleRbac?(image: string, installNamespace: string, serviceAccount: string): Promise<Result<InstallerRbac, string>>;
  /**
   * Creates `obj` as the user with strict field validation (a dry run when `dryRun`: the API
   * server checks it, CRD schema included, and stores nothing); rejects with the API server's error.
   */
  createObject?(obj: KubeObject, dryRun: boolean, signal: AbortSignal): Promise<void>;
  /** `olmv1 update NAME`'s service as the user: the fields that change (null removes one), previewed or written. */
  updateExtension?(name: string, fields: CatalogFields, dryRun: boolean): Promise<UpdateResult>;
  /** The Pods in `namespace` that `labelSelector` selects, as the user; rejects with the API server's error. */
  listPods?(namespace: string, labelSelector: string, signal: AbortSignal): Promise<unknown[]>;
  /** The last lines of a container's log, as the user; rejects with the API server's error. */
  podLog?(namespace: string, pod: string, container: string, signal: AbortSignal): Promise<string>;
  /** A namespace's available packages and Extensions, as its admin (the Namespace page; tenant-sources.ts). */
  tenant?: TenantSources;
}
