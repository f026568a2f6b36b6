/**
 * What the steps of one ClusterExtension reconcile share: the typed working copy and what the
 * steps learn on the way. Each step's factory names the ports it uses (steps*.ts, uninstall.ts).
 */
import type { Logger } from 'pino';
import type { ClusterExtension, ClusterExtensionSpec } from '../../shared/api/index.ts';
import type { RegistryV1Bundle } from '../bundle/index.ts';
import type { Deprecation } from '../../shared/fbc/index.ts';
import type { ManifestHolder, Release, ReleaseBundle } from '../release/index.ts';
import type { CertProviderName } from '../render/index.ts';
import type { ResolveInput } from '../resolve/index.ts';
import type { LineStore } from '../../shared/lines/index.ts';
import type { BundleLease } from './bundle-budget.ts';
import type { Installer } from './installer.ts';

/** Feature switches of rendering and status reporting (`--feature-gates`). */
export interface ExtensionFeatures {
  certProvider?: CertProviderName;
  webhookSupport: boolean;
  singleOwnNamespaceSupport: boolean;
  deploymentConfigSupport: boolean;
  bundleReleaseSupport: boolean;
}

/** The bundle a reconcile is going to install (resolved, or the installed one as fallback). */
interface Target {
  bundle: ReleaseBundle;
  /** Catalog deprecation data was available (false after the no-catalog fallback). */
  fromCatalog: boolean;
}

/** State shared by the steps of one reconcile. */
export interface ExtensionState {
  /** The typed working copy: steps write its status and finalizers only. */
  ce: ClusterExtension;
  /** `ce.metadata.name`. */
  name: string;
  /** `ce.metadata.uid` ('' when absent). */
  uid: string;
  /** `ce.spec` (read only). */
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
  /** The bundle's share of the memory budget (bundle-budget.ts), released when the reconcile ends (releaseBundle). */
  bundleLease?: BundleLease;
  /** The release records' share of their own memory budget (step "installed"), released when the reconcile ends (releaseBundle). */
  recordLease?: BundleLease;
  /**
   * Files a large bundle's lines and its rendering's are kept in (pkg/shared/lines, decision
   * 0098), closed when the reconcile ends (releaseBundle): their space and page cache go then.
   */
  lineFiles?: LineStore[];
  /**
   * Objects to apply, labelled and pruned (step "render"): the rendering as one JSON line per
   * object, or the installed release record standing in for it; read one object at a time
   * (release/manifest.ts), parsed whole only by a reader of `manifest` (decision 0098).
   */
  rendered?: ManifestHolder;
  droppedFields?: { object: string; paths: string[] }[];
  /**
   * The apply step ran (whatever its outcome): this reconcile wrote, or tried to write, the
   * release it wanted; the repair step (steps-repair.ts) then has nothing to do.
   */
  applied?: boolean;
  /** Whose identity reads and writes the extension's objects (installer.ts); undefined: nobody's, the extension waits. */
  installer?: Installer;
}
