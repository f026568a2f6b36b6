/**
 * Holding an upgrade that would break a dependent (decision 0104): before extension `self`
 * moves from its installed bundle to another, every other installed extension whose bundle
 * declares requirements is checked against the cluster as it would be after the move.
 */
import { parseClusterExtension } from '../../shared/api/index.ts';
import type { Bundle } from '../../shared/fbc/index.ts';
import {
  DEFAULT_LIMITS,
  brokenDependent,
  bundleRequirements,
  installedCandidate,
  providedGvks,
  servedApisCandidate,
  upgradeBreaksDependent,
  type Candidate,
  type Dependent,
  type Gvk,
} from '../dependencies/index.ts';
import type { CatalogSource } from './catalogs.ts';
import { gvksOf, installedProperties, type DependencyPorts } from './dependency-view.ts';

/**
 * The reason to hold `self`'s move from `installed` to `target`, or undefined. Only runs when
 * some other installed extension's bundle (as the catalogs have it) declares requirements.
 */
export async function upgradeHold(
  ports: DependencyPorts,
  source: CatalogSource,
  self: { name: string; packageName: string; installed: { name: string; version: string } },
  target: Pick<Bundle, 'name' | 'properties'>,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const others: Candidate[] = [];
  const dependents: Dependent[] = [];
  const gvks = new Map<string, Gvk>();
  for (const obj of ports.extensions.list()) {
    const ce = parseClusterExtension(obj);
    const name = ce.ok ? (ce.value.metadata.name ?? '') : '';
    if (!ce.ok || name === self.name) continue;
    const bundle = ce.value.status?.install?.bundle;
    const packageName = ce.value.spec.source.catalog?.packageName;
    if (bundle === undefined || packageName === undefined) continue;
    const properties = await installedProperties(source, packageName, bundle.name, signal);
    others.push(installedCandidate({ name, packageName, version: bundle.version, properties }));
    const reqs = properties === undefined ? undefined : bundleRequirements({ name: bundle.name, properties }, DEFAULT_LIMITS);
    if (reqs?.ok !== true || reqs.value.length === 0) continue;
    dependents.push({ name, requirements: reqs.value });
    for (const r of reqs.value) gvksOf(r.constraint.predicate, gvks);
  }
  if (dependents.length === 0) return undefined;
  const served: Gvk[] = [];
  for (const g of gvks.values()) if (await ports.serves(g, signal)) served.push(g);
  const current = await installedProperties(source, self.packageName, self.installed.name, signal);
  const candidate = (properties: Bundle['properties'] | undefined): Candidate =>
    installedCandidate({ name: self.name, packageName: self.packageName, version: self.installed.version, properties });
  // An API the installed bundle provides and the target does not stays served (its CRD is kept,
  // README difference 3) but nobody serves it any more: it counts as gone after the move.
  const key = (g: Gvk): string => `${g.group}/${g.version}/${g.kind}`;
  const kept = new Set(providedGvks(target.properties).map(key));
  const dropped = new Set(
    providedGvks(current ?? [])
      .map(key)
      .filter((k) => !kept.has(k)),
  );
  const before = [servedApisCandidate(served), ...others, candidate(current)];
  const after = [servedApisCandidate(served.filter((g) => !dropped.has(key(g)))), ...others, candidate(target.properties)];
  const broken = brokenDependent(dependents, before, after);
  return broken === undefined ? undefined : upgradeBreaksDependent(target.name, broken.dependent, broken.unmet);
}
