/**
 * What the steps of a ClusterExtension reconcile share besides their state (pipeline-state.ts):
 * how a failure is reported, what an earlier step set, the plan the render step makes, the
 * drift watches' view of a release, the resolver's request and its dependency checks, and the
 * CRD upgrade-safety check.
 * The steps (steps*.ts, uninstall.ts) are peers: each imports what it shares from here, never
 * from another step (lint rule `olmv1/step-peers`).
 */
import { sameContent, type DesiredRelease } from '../applier/index.ts';
import { checkCrdChanges, crdNames, formatCrdUpgradeError, storedObjectsVerdict } from '../crdupgrade/index.ts';
import type { ClusterExtension, ClusterExtensionSpec } from '../../shared/api/index.ts';
import { TerminalError, errorMessage, findTerminal, wrapError } from '../../shared/errors/index.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import type { Manifest, Release, ReleaseBundle } from '../release/index.ts';
import { resolve, type CatalogInput, type ResolveInput } from '../resolve/index.ts';
import type { Bundle } from '../../shared/fbc/index.ts';
import type { CatalogSource } from '../dependencyview/index.ts';
import { dependencyCheck, providersText, type DependencyPorts } from '../dependencyview/index.ts';
import { upgradeHold } from '../dependencyview/index.ts';
import type { DriftTracker } from '../drift/index.ts';
import type { Installer } from './installer.ts';
import type { ExtensionFeatures, ExtensionState, Plan, Target } from './pipeline-state.ts';
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

/** The fields of the state that an earlier step sets and later ones need. */
type StepOutput = 'installer' | 'installed' | 'target' | 'plan';

/**
 * `state[field]`, set by an earlier step (validate, installed, resolve, render): the one check
 * of the pipeline's order, which throws (a bug, not a failure) when that step did not run.
 */
export function required<K extends StepOutput>(state: ExtensionState, field: K): NonNullable<ExtensionState[K]> {
  const value = state[field];
  if (value === undefined) throw new Error(`ClusterExtension step run without the state's ${field}: the step that sets it must run first`);
  return value as NonNullable<ExtensionState[K]>;
}

/** Makes the drift watches follow the deployed release's objects. */
export function trackDrift(
  drift: Pick<DriftTracker, 'track'>,
  state: ExtensionState,
  installer: Installer,
  objects: readonly KubeObject[],
): Promise<void> {
  return drift.track(
    {
      extension: state.ce.metadata.name,
      installNamespace: state.ce.spec.namespace,
      serviceAccount: installer.name,
      serviceAccountNamespace: installer.namespace,
      objects,
    },
    state.signal,
  );
}

/**
 * driftDeps, once the extension's drift watches have listed (or tried long enough): right after
 * a restart the caches are what tell the apply that an object needs no write.
 */
export async function listedDriftDeps(
  drift: Pick<DriftTracker, 'listed' | 'ownedUid' | 'inSync' | 'noteApplied'>,
  name: string,
  signal: AbortSignal,
): Promise<ReturnType<typeof driftDeps>> {
  await drift.listed(name, signal);
  return driftDeps(drift, name);
}

/**
 * What the applier learns from, and tells, the drift watches of extension `name`: which live
 * objects are ours (not read again), which are as the last apply left them (not applied again
 * when the release is unchanged), and each apply's answer.
 */
function driftDeps(
  drift: Pick<DriftTracker, 'ownedUid' | 'inSync' | 'noteApplied'>,
  name: string,
): { knownUid: (obj: KubeObject) => string | undefined; inSync: (obj: KubeObject) => boolean; onApplied: (answer: KubeObject) => void } {
  return {
    knownUid: (obj) => drift.ownedUid(name, obj),
    inSync: (obj) => drift.inSync(name, obj),
    onApplied: (answer) => drift.noteApplied(name, answer),
  };
}

/**
 * What the resolver is asked for an extension's `spec.source.catalog` with `installed` (none:
 * a first install) over the selected catalogs' `inputs`: the resolve step's request, and the
 * one resolution ahead of the reconcile asks (resolve-ahead.ts), so both resolve alike.
 */
function resolveInput(
  src: ClusterExtensionSpec['source']['catalog'],
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

/** What a resolution with dependency checks needs: the catalogs, the release switch, the cluster's side. */
interface CheckedResolvePorts {
  catalogs: CatalogSource;
  features: Pick<ExtensionFeatures, 'bundleReleaseSupport'>;
  /** None: a bundle that declares dependencies is refused with upstream's "not supported" error. */
  dependencies?: DependencyPorts | undefined;
}

/**
 * Resolution of extension `self` with the dependency and minKubeVersion checks (decision 0104)
 * when some bundle declares them; an unmet dependency's text gets what the selected catalogs
 * offer for it. The same for the resolve step and for resolution ahead of an upgrade, so a
 * bundle the reconcile will pass over is never announced. The request is returned for the
 * next hop after an upgrade and for a failure's hints.
 */
export async function resolveChecked(
  ports: CheckedResolvePorts,
  self: { name: string; src: ClusterExtensionSpec['source']['catalog'] },
  installed: Pick<ReleaseBundle, 'name' | 'version' | 'release'> | undefined,
  inputs: CatalogInput[],
  signal?: AbortSignal,
): Promise<{ request: ResolveInput; resolved: ReturnType<typeof resolve> }> {
  const deps = ports.dependencies === undefined ? undefined : await dependencyCheck(ports.dependencies, ports.catalogs, self.name, inputs, signal);
  const asked = resolveInput(self.src, installed, inputs, ports.features);
  const request = deps === undefined ? asked : { ...asked, dependencies: deps.check };
  const resolved = resolve(request);
  const unmet = resolved.ok ? undefined : deps?.unmet.get(resolved.error);
  if (resolved.ok || unmet === undefined) return { request, resolved };
  return { request, resolved: { ok: false, error: resolved.error + (await providersText(ports.catalogs, self.src.selector, unmet, signal)) } };
}

/** Why moving extension `self` to `bundle` would break another installed extension, when it would (an upgrade only). */
export async function dependentsHold(
  ports: CheckedResolvePorts,
  self: { name: string; packageName: string },
  installed: { name: string; version: string } | undefined,
  bundle: Bundle,
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (ports.dependencies === undefined || installed === undefined || installed.name === bundle.name) return undefined;
  return upgradeHold(ports.dependencies, ports.catalogs, { ...self, installed }, bundle, signal);
}

/** What a release is made of besides its bundle: its objects, properties and config. */
interface ReleaseContent {
  objects: Manifest;
  properties: unknown[];
  config?: Record<string, unknown> | undefined;
  droppedFields?: { object: string; paths: string[] }[];
}

/** The content of a release record: re-applying it is Helm's unchanged state. */
export function recordedContent(record: Release): ReleaseContent {
  return { objects: record.manifest, properties: record.properties, config: record.config };
}

/** The release of `bundle` with `content` for the extension `ce`. */
export function releaseOf(ce: ClusterExtension, bundle: ReleaseBundle, content: ReleaseContent): DesiredRelease {
  return {
    extension: ce.metadata.name,
    extensionUID: ce.metadata.uid ?? '',
    installNamespace: ce.spec.namespace,
    bundle,
    manifest: content.objects,
    properties: content.properties,
    ...(content.config === undefined ? {} : { config: content.config }),
    ...(content.droppedFields === undefined ? {} : { droppedFields: content.droppedFields }),
  };
}

/**
 * The plan of the steps after render (pipeline-state.ts): `target` with `content`, as the
 * extension's installer, and whether the newest revision already deployed it (Helm's
 * "unchanged": then the apply only repairs drift, and nothing new needs authorizing or checking).
 */
export function makePlan(state: ExtensionState, target: Target, content: ReleaseContent): Plan {
  const desired = releaseOf(state.ce, target.bundle, content);
  const installed = state.installed;
  const unchanged = installed !== undefined && state.history[0] === installed && sameContent(installed, desired);
  return { target, desired, installer: required(state, 'installer'), unchanged };
}

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/** A CRD whose proposed change is unsafe, with upstream's error text for it. */
export interface UnsafeCrd {
  name: string;
  error: string;
  /** With the stored-object opt-in (decision 0120): which stored objects fail, or why they cannot decide. */
  stored?: string;
}

/**
 * The CRDs among `objects` whose change from the installed one is unsafe, read with `client`;
 * a CRD not in the cluster has nothing to break. Throws upstream's `getting existing resource
 * for CRD ...` error when a read fails. With `storedObjects` (the ClusterExtension's opt-in,
 * decision 0120), a tightening every stored object passes is not unsafe; otherwise the
 * stored-object verdict rides along for Events and the plan, upstream's error text unchanged.
 */
export async function unsafeCrdChanges(
  client: Pick<KubeClient, 'get' | 'list'>,
  objects: readonly KubeObject[],
  signal: AbortSignal,
  storedObjects = false,
): Promise<UnsafeCrd[]> {
  const installed = new Map<string, KubeObject>();
  for (const name of crdNames(objects)) {
    try {
      installed.set(name, await client.get({ ...CRD, name }, { signal }));
    } catch (err) {
      if (!isNotFound(err)) throw wrapError(`getting existing resource for CRD ${goQuote(name)}`, err);
    }
  }
  const unsafe: UnsafeCrd[] = [];
  for (const c of checkCrdChanges(objects, installed)) {
    if (c.violations.length === 0) continue;
    const error = formatCrdUpgradeError(c.name, c.violations);
    const live = installed.get(c.name);
    const proposed = objects.find((o) => o.kind === 'CustomResourceDefinition' && o.metadata.name === c.name);
    if (!storedObjects || live === undefined || proposed === undefined) {
      unsafe.push({ name: c.name, error });
      continue;
    }
    const verdict = await storedObjectsVerdict(client, live, proposed, c.violations, signal);
    if (!verdict.letThrough) unsafe.push({ name: c.name, error, stored: verdict.text });
  }
  return unsafe;
}
