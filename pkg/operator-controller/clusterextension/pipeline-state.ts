/**
 * What the steps of one ClusterExtension reconcile share, and the dependencies they use.
 */
import type { Logger } from 'pino';
import type { ClusterExtensionSpec } from '../../shared/api/index.ts';
import type { RegistryV1Bundle } from '../bundle/index.ts';
import type { Deprecation } from '../../shared/fbc/index.ts';
import type { ImageCache } from '../../shared/image/index.ts';
import type { EventRecorder, KubeClient, KubeObject, OpenApiSchemas, ScopedClientFactory } from '../../shared/kube/index.ts';
import type { Release, ReleaseBundle, ReleaseStore } from '../release/index.ts';
import type { CertProviderName } from '../render/index.ts';
import type { ResolveInput } from '../resolve/index.ts';
import type { BundlePullScheduler } from './bundle-pulls.ts';
import type { CatalogSource } from './catalogs.ts';
import type { DriftTracker } from './drift-watches.ts';
import type { Installer, ServiceAccountRef } from './installer.ts';

/** Feature switches of rendering and status reporting (`--feature-gates`). */
export interface ExtensionFeatures {
  certProvider?: CertProviderName;
  webhookSupport: boolean;
  singleOwnNamespaceSupport: boolean;
  deploymentConfigSupport: boolean;
  bundleReleaseSupport: boolean;
}

/** Everything the ClusterExtension reconciler uses; composed in cmd/operator-controller. */
export interface ExtensionReconcilerDeps {
  /** operator-controller's own identity: the ClusterExtension, namespaces, ServiceAccounts. */
  client: KubeClient;
  /** Clients acting as an extension's ServiceAccount. */
  scoped: ScopedClientFactory;
  releases: ReleaseStore;
  catalogs: CatalogSource;
  bundleCache: ImageCache;
  /** Bundle pulls: from the cache, or in the background so that no worker waits on a registry (bundle-pulls.ts). */
  pulls: BundlePullScheduler;
  /** Schemas of the API server's kinds, to drop fields they do not declare before applying. */
  schemas: OpenApiSchemas;
  features: ExtensionFeatures;
  /** Installs extensions whose spec names no ServiceAccount (`--default-install-service-account`); none: they wait. */
  defaultInstaller?: ServiceAccountRef;
  /** Watches of the deployed release's objects that queue a reconcile when they drift. */
  drift: DriftTracker;
  /** Kubernetes Events on the ClusterExtension (recorded-events.ts); fire and forget. */
  events: EventRecorder;
  log: Logger;
  /**
   * Test hook (cmd/operator-controller/test-pause.ts), none in production: awaited with
   * `step:<name>` before each step and `object-write` before each object apply or delete.
   */
  pause?: (point: string, extension: string) => Promise<void>;
}

/** The bundle a reconcile is going to install (resolved, or the installed one as fallback). */
export interface Target {
  bundle: ReleaseBundle;
  /** Catalog deprecation data was available (false after the no-catalog fallback). */
  fromCatalog: boolean;
}

/** State shared by the steps of one reconcile. */
export interface ExtensionState {
  /** The working copy: steps write its status and finalizers only. */
  ce: KubeObject;
  name: string;
  uid: string;
  spec: ClusterExtensionSpec;
  log: Logger;
  signal: AbortSignal;
  /** Release records, newest first (step "installed"). */
  history: Release[];
  /** The deployed revision, if any. */
  installed?: Release;
  target?: Target;
  /**
   * Reported (and retried) once the installed bundle is applied: why resolution failed
   * although matching catalogs exist, when the installed bundle is the target instead; or why
   * the installed bundle could not be pulled to render a changed `spec.config`, when its
   * release record is re-applied instead.
   */
  resolutionError?: Error;
  /** What the resolution was asked (step "resolve"): asked again for the installed bundle after an upgrade. */
  resolveRequest?: ResolveInput;
  /** The package's deprecation entries from the resolution (null: none). */
  deprecation?: Deprecation | null;
  /** The pulled bundle; undefined when the installed bundle's release record stands in for it (step "pull"). */
  bundle?: RegistryV1Bundle;
  /** Objects to apply, labelled and pruned (step "render"). */
  objects?: KubeObject[];
  droppedFields?: { object: string; paths: string[] }[];
  /** Whose identity reads and writes the extension's objects (installer.ts); undefined: nobody's, the extension waits. */
  installer?: Installer;
}
