/**
 * What the steps of one ClusterExtension reconcile share: the typed working copy and what the
 * steps learn on the way. Each step's factory names the ports it uses (steps*.ts, uninstall.ts).
 */
import type { Logger } from 'pino';
import type { DesiredRevision } from '../applier/index.ts';
import type { ClusterExtension } from '../../shared/api/index.ts';
import type { RegistryV1Bundle } from '../bundle/index.ts';
import type { Deprecation } from '../../shared/fbc/index.ts';
import type { Release, ReleaseBundle } from '../release/index.ts';
import type { RenderFeatures } from '../render/index.ts';
import type { ResolveInput } from '../resolve/index.ts';
import type { Installer } from './installer.ts';

/** Feature switches of rendering and resolution (`--feature-gates`; features.ts makes them). */
export interface ExtensionFeatures extends RenderFeatures {
  bundleReleaseSupport: boolean;
}

/** What a resolution from the catalogs gave besides the bundle (step "resolve"). */
interface Resolution {
  /** What the resolver was asked: asked again for the installed bundle after an upgrade (the next hop). */
  request: ResolveInput;
  /** The package's deprecation entries (null: none). */
  deprecation: Deprecation | null;
}

/** The bundle a reconcile is going to install (resolved, or the installed one as fallback). */
export interface Target {
  bundle: ReleaseBundle;
  /** Set when the catalogs resolved it; absent when the installed bundle stands in (no catalog data). */
  resolution?: Resolution;
}

/**
 * What the steps after render act on, made once per reconcile by the render step (and replaced
 * by the policy and upgradeable steps when they hold an upgrade): see `PlannedState`.
 */
export interface Plan {
  target: Target;
  /** The release to deploy: `target.bundle`, its rendered objects (or the installed record standing in), properties, config. */
  desired: DesiredRevision;
  /** `desired` is what the newest revision already deployed (Helm's "unchanged"): nothing new to authorize or check. */
  unchanged: boolean;
  /**
   * BoxcutterRuntime: `desired` is what the newest revision, still rolling out, holds. Its move
   * was authorized and its CRDs checked before it was written, and the revision controller rolls
   * it out whatever a later reconcile finds, so nothing is authorized or checked again (each
   * reconcile of a rollout did both, decision 0151).
   */
  written: boolean;
}

/**
 * State shared by the steps of one reconcile. The object's own fields (name, uid, spec) are
 * read from `ce`.
 */
export interface ExtensionState {
  /** The typed working copy: steps write its status and finalizers only. */
  ce: ClusterExtension;
  log: Logger;
  signal: AbortSignal;
  /**
   * What the reconcile holds until it ends, whatever happened (memory leases of the bundle and
   * the release records, decision 0098; the files a large bundle's lines, its rendering's and
   * large records' manifests are kept in): disposed by the StepReconciler then.
   */
  held: DisposableStack;
  /** Whose identity reads and writes the extension's objects (installer.ts); undefined: nobody's, the extension waits (step "validate"). */
  installer?: Installer;
  /** Release records, newest first (step "installed"). */
  history: Release[];
  /** The deployed revision, if any. */
  installed?: Release;
  /** Steps "resolve" and "pull"; the steps after render read `plan`. */
  target?: Target;
  /**
   * Reported (and retried) once the installed bundle is applied: why resolution failed
   * although matching catalogs exist, when the installed bundle is the target instead; or why
   * the installed bundle could not be pulled to render a changed `spec.config`, when its
   * release record is re-applied instead.
   */
  resolutionError?: Error;
  /** The pulled bundle, until render (step "pull"); undefined when the installed bundle's release record stands in for it. */
  bundle?: RegistryV1Bundle;
  /** Step "render"; see Plan. */
  plan?: Plan;
}

/**
 * The phases of a reconcile, as the steps of each see the state (phases.ts runs a step only in
 * its phase): validate found the installer; resolve (or the installed bundle standing in) chose
 * the target; render made the plan.
 */
export type ValidatedState = ExtensionState & { installer: Installer };
export type ResolvedState = ValidatedState & { target: Target };
export type PlannedState = ValidatedState & { plan: Plan };
