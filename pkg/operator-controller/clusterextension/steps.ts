/**
 * The steps of a ClusterExtension reconcile after finalizers (reference api-and-controllers.md
 * §3.2-3.3 with upstream v1.10's ServiceAccount model, README difference 1):
 *
 *   validate -> installed -> resolve -> pull -> render -> preauthorize -> preflight -> apply
 *
 * Each step sets the conditions its outcome decides and throws to stop with backoff, or
 * returns a result to stop without an error (a wait that polls, e.g. for permissions).
 */
import { RELEASE_NAME_MESSAGE } from '../../shared/api/index.ts';
import { describeObject, pruneUnknownFields, withOwnerLabels } from '../applier/index.ts';
import { jsonEqual, type StepOutcome } from '../../shared/controller/index.ts';
import { TerminalError, errorMessage, findTerminal, wrapError } from '../../shared/errors/index.ts';
import { isNotFound, type KubeObject } from '../../shared/kube/index.ts';
import { deployedRelease, isReleaseName, type ReleaseBundle } from '../release/index.ts';
import { render, renderFailureToError, withWatchNamespaceHint } from '../render/index.ts';
import { deprecationConditions, metadataFor, packageMissing, resolutionHints, resolve } from '../resolve/index.ts';
import { selectedCatalogs, selectedPackageNames } from './catalogs.ts';
import { noInstallerMessage, type Installer } from './installer.ts';
import type { ExtensionReconcilerDeps, ExtensionState } from './pipeline-state.ts';
import {
  MESSAGES,
  setDeprecation,
  setInstalledFrom,
  setInstalledUnknown,
  setProgressingBlocked,
  setProgressingError,
  setProgressingRetrying,
} from './status.ts';

/** Prefix of validation failures (upstream v1.9-v1.10). */
export const VALIDATION_PREFIX = 'operation cannot proceed due to the following validation error(s): ';

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

/**
 * The namespace and ServiceAccount must exist (read with the controller's identity). A missing
 * one is a wait: Installed Unknown, Progressing Retrying, with the commands that create it.
 * The ServiceAccount is read first: it exists in every reconcile but the first few, and only
 * its absence needs the namespace read that tells which of the two is missing.
 */
export async function validate(deps: ExtensionReconcilerDeps, state: ExtensionState, wait: () => StepOutcome): Promise<StepOutcome> {
  // Admitted before the CRD refused such names: it can never have a release; say so, once.
  if (!isReleaseName(state.name)) {
    const message = `${VALIDATION_PREFIX}invalid ClusterExtension name ${JSON.stringify(state.name)}: ${RELEASE_NAME_MESSAGE}; create it again under a valid name (deleting this one removes nothing but it)`;
    setInstalledUnknown(state.ce, message, false);
    fail(state, new TerminalError(message, { reason: 'Blocked' }));
  }
  const installer = state.installer;
  if (installer === undefined) {
    // Only a new deployment of operator-controller or a spec change can end this: no polling.
    const message = VALIDATION_PREFIX + noInstallerMessage(state.spec.namespace);
    setInstalledUnknown(state.ce, message, false);
    setProgressingBlocked(state.ce, message);
    return {};
  }
  const problem = installer.isDefault ? await defaultInstallerProblem(deps, state, installer) : await serviceAccountProblem(deps, state, installer);
  if (problem === undefined) return undefined;
  const message = VALIDATION_PREFIX + problem;
  setInstalledUnknown(state.ce, message, false);
  setProgressingRetrying(state.ce, message);
  return wait();
}

/**
 * What is missing of the extension's own ServiceAccount or its namespace (the same), or
 * undefined. The ServiceAccount is read first: it exists in every reconcile but the first few,
 * and only its absence needs the namespace read that tells which of the two is missing.
 */
async function serviceAccountProblem(deps: ExtensionReconcilerDeps, state: ExtensionState, sa: Installer): Promise<string | undefined> {
  const ns = sa.namespace;
  const create = `kubectl create serviceaccount ${sa.name} -n ${ns}`;
  try {
    await deps.client.get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: ns, name: sa.name }, { signal: state.signal });
    return undefined;
  } catch (err) {
    if (!isNotFound(err)) return `error getting service account: ${errorMessage(err)}`;
  }
  try {
    await deps.client.get({ apiVersion: 'v1', kind: 'Namespace', name: ns }, { signal: state.signal });
    return `service account ${JSON.stringify(sa.name)} not found in namespace ${JSON.stringify(ns)}: create it (${create}) and grant it the RBAC that "olmv1 rbac" prints`;
  } catch (nsErr) {
    return !isNotFound(nsErr)
      ? `error getting service account: ${errorMessage(nsErr)}`
      : `namespace ${JSON.stringify(ns)} not found: create it (kubectl create namespace ${ns}), then the service account (${create}) with the RBAC that "olmv1 rbac" prints`;
  }
}

/** What is missing for an install as the default install ServiceAccount: the install namespace, or that ServiceAccount. */
async function defaultInstallerProblem(deps: ExtensionReconcilerDeps, state: ExtensionState, sa: Installer): Promise<string | undefined> {
  const ns = state.spec.namespace;
  try {
    await deps.client.get({ apiVersion: 'v1', kind: 'Namespace', name: ns }, { signal: state.signal });
  } catch (err) {
    return isNotFound(err)
      ? `namespace ${JSON.stringify(ns)} not found: create it (kubectl create namespace ${ns})`
      : `error getting namespace: ${errorMessage(err)}`;
  }
  try {
    await deps.client.get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: sa.namespace, name: sa.name }, { signal: state.signal });
    return undefined;
  } catch (err) {
    return isNotFound(err)
      ? `the default install service account ${sa.namespace}/${sa.name} (--default-install-service-account) does not exist: create it with the RBAC the extensions need, or set spec.serviceAccount`
      : `error getting service account: ${errorMessage(err)}`;
  }
}

/** The installer of a reconcile past validate, which stops the ones without one. */
export function requireInstaller(state: ExtensionState): Installer {
  if (state.installer === undefined) throw new Error('step without an installer: validate must run first');
  return state.installer;
}

/** Reads the release records; the deployed revision is what is installed (and what drift watches cover). */
export async function readInstalled(deps: ExtensionReconcilerDeps, state: ExtensionState): Promise<StepOutcome> {
  try {
    state.history = await deps.releases.history(state.name, state.signal);
  } catch (err) {
    setInstalledUnknown(state.ce, errorMessage(err), true);
    setProgressingRetrying(state.ce, MESSAGES.retryingInstalledBundle);
    throw err;
  }
  const installed = deployedRelease(state.history);
  if (installed === undefined) return undefined;
  state.installed = installed;
  // Watched from here on, so drift is noticed whatever later steps of this reconcile do.
  await trackDrift(deps, state, installed.manifest);
  return undefined;
}

/** Makes the drift watches follow the deployed release's objects. */
export function trackDrift(deps: ExtensionReconcilerDeps, state: ExtensionState, objects: readonly KubeObject[]): Promise<void> {
  return deps.drift.track(
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
 * Resolves the bundle from the selected catalogs and sets the deprecation conditions. On
 * failure with nothing installed, or with another version asked for, the error is retried
 * (upstream's decision table). Otherwise the installed bundle stays the target, so it stays
 * applied and repaired: when no catalog matches the selector any more (deleted) as upstream,
 * and also, unlike upstream, when catalogs match but cannot offer it (not served,
 * `Unavailable`, the package gone): then the apply step reports the resolution error after
 * applying, and it is retried with backoff (decision 0048).
 */
export async function resolveBundle(deps: ExtensionReconcilerDeps, state: ExtensionState): Promise<StepOutcome> {
  const src = state.spec.source.catalog;
  const installed = state.installed;
  const channels = src.channels ?? [];
  const selection = await selectedCatalogs(deps.catalogs, src.selector, src.packageName, state.signal);
  let resolved: ReturnType<typeof resolve> | (typeof selection & { ok: false });
  if (selection.ok) {
    state.resolveRequest = {
      packageName: src.packageName,
      channels,
      versionRange: src.version ?? '',
      upgradeConstraintPolicy: src.upgradeConstraintPolicy,
      installed:
        installed === undefined
          ? null
          : { name: installed.bundle.name, version: installed.bundle.version, release: installed.bundle.release ?? null },
      catalogs: selection.value.inputs,
      bundleReleaseSupport: deps.features.bundleReleaseSupport,
    };
    resolved = resolve(state.resolveRequest);
  } else {
    resolved = selection;
  }
  const installedName = installed?.bundle.name ?? '';
  setDeprecation(state.ce, deprecationConditions(installedName, resolved.ok ? resolved.value.deprecation : null, resolved.ok, channels));
  if (resolved.ok) {
    const r = resolved.value;
    const meta = metadataFor(r.bundle.name, r.versionRelease, { bundleReleaseSupport: deps.features.bundleReleaseSupport });
    state.target = {
      bundle: {
        package: src.packageName,
        name: r.bundle.name,
        version: meta.version,
        ...(meta.release === undefined ? {} : { release: meta.release }),
        image: r.bundle.image,
      },
      fromCatalog: true,
    };
    state.deprecation = r.deprecation;
    return undefined;
  }
  const err = new Error(await withHints(deps, state, resolved.error));
  setInstalledFrom(state.ce, installed);
  const versionChange = (src.version ?? '') !== '' && src.version !== installed?.bundle.version;
  if (installed === undefined || versionChange || !selection.ok) fail(state, err);
  state.target = { bundle: installed.bundle, fromCatalog: false };
  if (selection.value.matching > 0) state.resolutionError = err;
  return undefined;
}

/**
 * Upstream's "no bundles found ..." line, then what the selected catalogs do offer (package
 * names close to a typo, the package's channels, versions, successors of the installed
 * version: pkg/operator-controller/resolve hints.ts), one per line. Other errors are returned as they are.
 */
async function withHints(deps: ExtensionReconcilerDeps, state: ExtensionState, error: string): Promise<string> {
  const request = state.resolveRequest;
  if (request === undefined || !error.includes('no bundles found for package')) return error;
  const src = state.spec.source.catalog;
  const names = packageMissing(request) ? await selectedPackageNames(deps.catalogs, src.selector, state.signal) : [];
  return [error, ...resolutionHints(request, names)].join('\n');
}

/** True when the target is the installed bundle (same name and version). */
function unchanged(state: ExtensionState): boolean {
  const i = state.installed?.bundle;
  const t = state.target?.bundle;
  return i !== undefined && t !== undefined && i.name === t.name && i.version === t.version;
}

/**
 * Gets the target bundle from the cache or a pull (bundle-pulls.ts), which runs in the
 * background so that no reconcile worker waits on a registry for more than a moment
 * (decision 0067). By target and bundle:
 *
 * - Any target, bundle cached or pulled within the wait: rendered as before.
 * - The installed bundle with the `spec.config` it was installed with, not cached: its release
 *   record is re-applied at once (drift repair does not wait for a registry), while the pull
 *   refills the cache in the background (its end queues a reconcile, which renders); a failed
 *   pull re-applies the record too, as before.
 * - A new bundle, or the installed one with another `spec.config`, still being pulled:
 *   Progressing Retrying `pulling image "<ref>" of bundle ... since <time>`, and the reconcile
 *   stops without an error (no backoff); the pull's end queues the next one.
 * - A new bundle whose pull failed: `error for resolved bundle ...: <pull error>`, retried with
 *   the controller's backoff.
 * - The installed bundle with another `spec.config` whose pull failed: the release record is
 *   re-applied (drift repair), then the pull error is reported as above.
 *
 * The release record (the bundle with its digest, manifest and config) re-applied as it is
 * records no new revision.
 */
export async function pullBundle(deps: ExtensionReconcilerDeps, state: ExtensionState): Promise<StepOutcome> {
  const target = state.target?.bundle;
  if (target === undefined) throw new Error('pull step without a target bundle');
  const installed = unchanged(state) ? state.installed : undefined;
  // The deployed revision's digest when the target is that bundle: restarts and catalog
  // outages pull exactly what is installed, wherever its tag points now.
  const ref = installed?.bundle.digestRef ?? target.image;
  // The record holds exactly what a render would give (same bundle, same configuration), so a
  // drift repair need not wait for a registry.
  const recordFits = installed !== undefined && jsonEqual(state.spec.config?.inline, installed.config);
  const pulled = await deps.pulls.get(state.name, ref, { signal: state.signal, ...(recordFits ? { waitMs: 0 } : {}) });
  if (pulled.state === 'done') {
    state.bundle = pulled.fetched.bundle;
    state.target = { ...(state.target ?? { fromCatalog: false }), bundle: { ...target, digestRef: pulled.fetched.digestRef } };
    state.log.debug({ image: ref, digestRef: pulled.fetched.digestRef, fromCache: pulled.fetched.fromCache }, 'bundle ready');
    return undefined;
  }
  if (installed !== undefined && (recordFits || pulled.state === 'failed')) {
    // The release record stands in for the image: its bundle (with the digest pulled at
    // install), manifest and config, so the apply re-applies it without a new revision.
    state.target = { ...(state.target ?? { fromCatalog: false }), bundle: installed.bundle };
    if (pulled.state === 'pending') {
      state.log.debug({ image: ref, since: pulled.startedAt }, 'installed bundle not cached, re-applying its release record while it is pulled');
      return undefined;
    }
    state.log.warn({ err: pulled.error, image: ref }, 'bundle pull failed, keeping the installed release');
    // Another configuration was asked for: the record is not the desired state; say why after re-applying it.
    if (!recordFits) state.resolutionError ??= forBundle(target, pulled.error);
    return undefined;
  }
  setInstalledFrom(state.ce, state.installed);
  if (pulled.state === 'failed') fail(state, forBundle(target, pulled.error));
  // Not an error: no backoff. The pull's end queues the extension again.
  setProgressingRetrying(state.ce, pullingMessage(target, ref, pulled.startedAt));
  state.log.info({ image: ref, since: pulled.startedAt }, 'waiting for the bundle pull');
  return {};
}

/** Progressing's message while the target bundle is being pulled. */
export function pullingMessage(bundle: ReleaseBundle, ref: string, since: Date): string {
  const at = since.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `pulling image ${JSON.stringify(ref)} of bundle ${JSON.stringify(bundle.name)} with version ${JSON.stringify(bundle.version)} since ${at}`;
}

/** Renders the bundle for `spec.namespace` and `spec.config`, labels the objects and drops fields the API server does not know. */
export async function renderBundle(deps: ExtensionReconcilerDeps, state: ExtensionState): Promise<StepOutcome> {
  const target = state.target?.bundle;
  if (target === undefined) throw new Error('render step without a target bundle');
  if (state.bundle === undefined) {
    state.objects = state.installed?.manifest ?? [];
    return undefined;
  }
  const f = deps.features;
  const rendered = render(state.bundle, {
    installNamespace: state.spec.namespace,
    ...(state.spec.config === undefined ? {} : { config: state.spec.config.inline }),
    ...(f.certProvider === undefined ? {} : { certProvider: f.certProvider }),
    webhookSupport: f.webhookSupport,
    singleOwnNamespaceSupport: f.singleOwnNamespaceSupport,
    deploymentConfigSupport: f.deploymentConfigSupport,
  });
  if (!rendered.ok) {
    setInstalledFrom(state.ce, state.installed);
    // Upstream's text, then how to set spec.config.inline.watchNamespace when that is what is missing.
    const failure = withWatchNamespaceHint(rendered.error, state.bundle, state.spec.namespace, 'cluster-extension');
    fail(state, forBundle(target, renderFailureToError(failure)));
  }
  const objects: KubeObject[] = [];
  const dropped: { object: string; paths: string[] }[] = [];
  for (const obj of withOwnerLabels(rendered.value, state.name)) {
    let schema;
    try {
      schema = await deps.schemas.schemaFor(obj.apiVersion, obj.kind, state.signal);
    } catch (err) {
      setInstalledFrom(state.ce, state.installed);
      fail(state, forBundle(target, wrapError('error reading the API schema', err)));
    }
    const pruned = pruneUnknownFields(obj, schema);
    objects.push(pruned.object);
    if (pruned.dropped.length > 0) dropped.push({ object: describeObject(obj), paths: pruned.dropped });
  }
  state.objects = objects;
  state.droppedFields = dropped;
  return undefined;
}
