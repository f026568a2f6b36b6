/**
 * What the steps of a ClusterExtension reconcile share besides their state (pipeline-state.ts):
 * how a failure is reported, the installer a step acts as, the release the reconcile wants and
 * whether it is already deployed, the drift watches' view of a release, the resolver's request,
 * and the CRD upgrade-safety check. The steps (steps*.ts, uninstall.ts) are peers: each imports
 * what it shares from here, never from another step (lint rule `olmv1/step-peers`).
 */
import { sameContent, type DesiredRelease } from '../applier/index.ts';
import { checkCrdChanges, crdNames, formatCrdUpgradeError } from '../crdupgrade/index.ts';
import { TerminalError, errorMessage, findTerminal, wrapError } from '../../shared/errors/index.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { withManifestOf, type ReleaseBundle } from '../release/index.ts';
import type { CatalogInput, ResolveInput } from '../resolve/index.ts';
import { bundleProperties } from './bundle-source.ts';
import type { DriftTracker } from './drift-watches.ts';
import type { Installer } from './installer.ts';
import type { ExtensionFeatures, ExtensionState } from './pipeline-state.ts';
import { setProgressingError } from './status.ts';

/** Reports `err` on Progressing and rethrows it. */
export function fail(state: ExtensionState, err: unknown): never {
  setProgressingError(state.ce, err);
  throw err;
}

/** `error for resolved bundle "<name>" with version "<version>": <err>` (terminal-ness kept). */
export function forBundle(bundle: ReleaseBundle, err: unknown): Error {
  const message = `error for resolved bundle ${JSON.stringify(bundle.name)} with version ${JSON.stringify(bundle.version)}: ${errorMessage(err)}`;
  const terminal = findTerminal(err);
  return terminal === undefined ? new Error(message, { cause: err }) : new TerminalError(message, { reason: terminal.reason, cause: err });
}

/** The installer of a reconcile past validate, which stops the ones without one. */
export function requireInstaller(state: ExtensionState): Installer {
  if (state.installer === undefined) throw new Error('step without an installer: validate must run first');
  return state.installer;
}

/** Makes the drift watches follow the deployed release's objects. */
export function trackDrift(drift: Pick<DriftTracker, 'track'>, state: ExtensionState, objects: readonly KubeObject[]): Promise<void> {
  return drift.track(
    {
      extension: state.name,
      installNamespace: state.spec.namespace,
      serviceAccount: requireInstaller(state).name,
      serviceAccountNamespace: requireInstaller(state).namespace,
      objects,
    },
    state.signal,
  );
}

/**
 * What the resolver is asked for an extension's `spec.source.catalog` with `installed` (none:
 * a first install) over the selected catalogs' `inputs`: the resolve step's request, and the
 * one resolution ahead of the reconcile asks (resolve-ahead.ts), so both resolve alike.
 */
export function resolveInput(
  src: ExtensionState['spec']['source']['catalog'],
  installed: Pick<ReleaseBundle, 'name' | 'version' | 'release'> | undefined,
  inputs: CatalogInput[],
  features: Pick<ExtensionFeatures, 'bundleReleaseSupport'>,
): ResolveInput {
  return {
    packageName: src.packageName,
    channels: src.channels ?? [],
    versionRange: src.version ?? '',
    upgradeConstraintPolicy: src.upgradeConstraintPolicy,
    installed: installed === undefined ? null : { name: installed.name, version: installed.version, release: installed.release ?? null },
    catalogs: inputs,
    bundleReleaseSupport: features.bundleReleaseSupport,
  };
}

/** The release the reconcile wants deployed (after render: its target and rendered objects). */
export function desiredRelease(state: ExtensionState): DesiredRelease {
  const target = state.target?.bundle;
  if (target === undefined || state.rendered === undefined) throw new Error('apply step without rendered objects');
  const properties = state.bundle === undefined ? (state.installed?.properties ?? []) : bundleProperties(state.bundle);
  const config = state.bundle === undefined ? state.installed?.config : state.spec.config?.inline;
  return withManifestOf(
    {
      extension: state.name,
      extensionUID: state.uid,
      installNamespace: state.spec.namespace,
      bundle: target,
      properties,
      ...(config === undefined ? {} : { config }),
      ...(state.droppedFields === undefined ? {} : { droppedFields: state.droppedFields }),
    },
    state.rendered,
  );
}

/**
 * True when `desired` is what the newest revision already deployed (Helm's "unchanged" state):
 * the apply only repairs drift, so nothing new needs authorizing or checking.
 */
export function releaseUnchanged(state: ExtensionState, desired: DesiredRelease): boolean {
  return state.installed !== undefined && state.history[0] === state.installed && sameContent(state.installed, desired);
}

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/** A CRD whose proposed change is unsafe, with upstream's error text for it. */
export interface UnsafeCrd {
  name: string;
  error: string;
}

/**
 * The CRDs among `objects` whose change from the installed one is unsafe, read with `client`;
 * a CRD not in the cluster has nothing to break. Throws upstream's `getting existing resource
 * for CRD ...` error when a read fails.
 */
export async function unsafeCrdChanges(client: Pick<KubeClient, 'get'>, objects: readonly KubeObject[], signal: AbortSignal): Promise<UnsafeCrd[]> {
  const installed = new Map<string, KubeObject>();
  for (const name of crdNames(objects)) {
    try {
      installed.set(name, await client.get({ ...CRD, name }, { signal }));
    } catch (err) {
      if (!isNotFound(err)) throw wrapError(`getting existing resource for CRD ${goQuote(name)}`, err);
    }
  }
  return checkCrdChanges(objects, installed)
    .filter((c) => c.violations.length > 0)
    .map((c) => ({ name: c.name, error: formatCrdUpgradeError(c.name, c.violations) }));
}
