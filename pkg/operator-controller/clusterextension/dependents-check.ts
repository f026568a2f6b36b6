/**
 * Holding an upgrade that would break a dependent (decision 0104): before extension `self`
 * moves from its installed bundle to another, every other installed extension whose bundle
 * declares requirements is checked against the cluster as it would be after the move. The
 * installed extensions come from the InstalledIndex (refreshed only where something changed),
 * so a mass upgrade does not read every extension for every upgrade.
 */
import type { Bundle } from '../../shared/fbc/index.ts';
import {
  brokenDependent,
  installedCandidate,
  providedGvks,
  servedApisCandidate,
  upgradeBreaksDependent,
  type Candidate,
  type Dependent,
  type Gvk,
} from '../dependencies/index.ts';
import type { CatalogSource } from './catalogs.ts';
import { gvksOf, type DependencyPorts } from './dependency-view.ts';
import { InstalledIndex, installedProperties } from './installed-index.ts';

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
  const installed = await (ports.installed ?? new InstalledIndex()).others(ports.extensions, source, self.name, signal);
  const others: Candidate[] = installed.map((e) => e.candidate);
  const dependents: Dependent[] = installed.filter((e) => e.requirements.length > 0).map((e) => ({ name: e.name, requirements: e.requirements }));
  const gvks = new Map<string, Gvk>();
  for (const d of dependents) for (const r of d.requirements) gvksOf(r.constraint.predicate, gvks);
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
