/**
 * Holding an upgrade that would break a dependent (decision 0104): before extension `self`
 * moves from its installed bundle to another, every other installed extension whose bundle
 * declares requirements is checked against the cluster as it would be after the move. The
 * installed extensions come from the InstalledIndex: only those depending on what `self`'s
 * installed bundle provides, checked against only the extensions their requirements name, so
 * an upgrade costs what its dependents declare, not the number of installed extensions.
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
import { gvksOf, type DependencyPorts } from './view.ts';
import { InstalledIndex, installedProperties } from './installed-index.ts';
import { gvkKey } from './requirement-bounds.ts';

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
  const index = ports.installed ?? InstalledIndex.of(ports.extensions.list());
  // Only the dependents of what the installed bundle provides can break, and only the
  // extensions their requirements name can meet them.
  let current: Bundle['properties'] | undefined | null = null;
  let provided = await index.providedNow(source, self.name, self.installed.name, signal);
  if (provided === undefined) {
    current = await installedProperties(source, self.packageName, self.installed.name, signal);
    provided = { packages: [self.packageName], gvks: providedGvks(current ?? []).map(gvkKey) };
  }
  const dependents: readonly Dependent[] = await index.dependentsOf(source, provided, self.name, signal);
  if (dependents.length === 0) return undefined;
  if (current === null) current = await installedProperties(source, self.packageName, self.installed.name, signal);
  const requirements = dependents.flatMap((d) => d.requirements);
  const others: Candidate[] = (await index.candidatesFor(source, requirements, self.name, signal)).map((e) => e.candidate);
  const gvks = new Map<string, Gvk>();
  for (const r of requirements) gvksOf(r.constraint.predicate, gvks);
  const served: Gvk[] = [];
  for (const g of gvks.values()) if (await ports.serves(g, signal)) served.push(g);
  const candidate = (properties: Bundle['properties'] | undefined): Candidate =>
    installedCandidate({ name: self.name, packageName: self.packageName, version: self.installed.version, properties });
  // An API the installed bundle provides and the target does not stays served (its CRD is kept,
  // README difference 3) but nobody serves it any more: it counts as gone after the move.
  const kept = new Set(providedGvks(target.properties).map(gvkKey));
  const dropped = new Set(
    providedGvks(current ?? [])
      .map(gvkKey)
      .filter((k) => !kept.has(k)),
  );
  const before = [servedApisCandidate(served), ...others, candidate(current)];
  const after = [servedApisCandidate(served.filter((g) => !dropped.has(gvkKey(g)))), ...others, candidate(target.properties)];
  const broken = brokenDependent(dependents, before, after);
  return broken === undefined ? undefined : upgradeBreaksDependent(target.name, broken.dependent, broken.unmet);
}
