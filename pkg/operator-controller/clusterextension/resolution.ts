/**
 * Resolution as the resolve step and resolution ahead of an upgrade (resolve-ahead.ts) both ask
 * it: the resolver's request for an extension's catalog source, with the dependency and
 * minKubeVersion checks (decision 0104), and the dependents an upgrade must not break.
 */
import type { ClusterExtensionSpec } from '../../shared/api/index.ts';
import type { Bundle } from '../../shared/fbc/index.ts';
import type { ReleaseBundle } from '../release/index.ts';
import { resolve, type CatalogInput, type ResolveInput } from '../resolve/index.ts';
import { dependencyCheck, providersText, upgradeHold, type CatalogSource, type DependencyPorts } from '../dependencyview/index.ts';
import type { ExtensionFeatures } from './pipeline-state.ts';

/**
 * What a resolution with dependency checks needs (the resolve step and resolution ahead of an
 * upgrade): the selected catalogs' content, the release-support switch, the cluster's side.
 */
export interface CheckedResolvePorts {
  catalogs: CatalogSource;
  features: Pick<ExtensionFeatures, 'bundleReleaseSupport'>;
  /**
   * What dependency checking reads of the cluster (decision 0104). None: a bundle that
   * declares dependencies is refused with upstream's "not supported" error.
   */
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
  // What the resolver is asked for the extension's `spec.source.catalog` with `installed` (none: a first install).
  const { src } = self;
  const request: ResolveInput = {
    packageName: src.packageName,
    channels: src.channels ?? [],
    versionRange: src.version ?? '',
    upgradeConstraintPolicy: src.upgradeConstraintPolicy,
    installed: installed === undefined ? null : { name: installed.name, version: installed.version, release: installed.release ?? null },
    catalogs: inputs,
    bundleReleaseSupport: ports.features.bundleReleaseSupport,
    ...(deps === undefined ? {} : { dependencies: deps.check }),
  };
  const resolved = resolve(request);
  const unmet = resolved.ok ? undefined : deps?.unmet.get(resolved.error);
  if (resolved.ok || unmet === undefined) return { request, resolved };
  return { request, resolved: { ok: false, error: resolved.error + (await providersText(ports.catalogs, src.selector, unmet, signal)) } };
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
