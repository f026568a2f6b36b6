/**
 * What the catalogs offer for an unmet requirement, in OLM's preference order: catalogs by
 * priority (higher first, then by name), packages by name, and within a package the default
 * channel's bundles before the other channels' (in channel name order), newest first.
 */
import type { Bundle, DeclarativeConfig } from '../../shared/fbc/types.ts';
import { compareSemver } from '../../shared/semver/index.ts';
import type { CostBudget } from './budget.ts';
import { packageOf, resolutionBudget, satisfies } from './evaluate.ts';
import { parseTolerant } from '../../shared/semver/index.ts';
import type { Predicate } from './types.ts';

/** One catalog's content to search: the whole catalog, or the partitions of some packages. */
export interface ProviderCatalog {
  readonly name: string;
  readonly priority: number;
  readonly content: readonly DeclarativeConfig[];
}

/** A bundle of a catalog that would meet a requirement if it were installed. */
export interface Provider {
  readonly catalog: string;
  readonly packageName: string;
  readonly bundle: string;
  readonly version: string;
}

function versionOrder(a: Bundle, b: Bundle): number {
  const va = parseTolerant(packageOf(a.properties)?.version ?? '');
  const vb = parseTolerant(packageOf(b.properties)?.version ?? '');
  if (va.ok && vb.ok) return compareSemver(vb.value, va.value);
  return va.ok === vb.ok ? (a.name < b.name ? -1 : 1) : va.ok ? -1 : 1;
}

// The package's bundles in preference order: default channel first, then the others by name.
function preferred(fbc: DeclarativeConfig, packageName: string, bundles: Bundle[]): Bundle[] {
  const defaultChannel = fbc.packages.find((p) => p.name === packageName)?.defaultChannel;
  const channels = fbc.channels.filter((c) => c.package === packageName);
  channels.sort((a, b) => (a.name === defaultChannel ? -1 : b.name === defaultChannel ? 1 : a.name < b.name ? -1 : 1));
  const byName = new Map(bundles.map((b) => [b.name, b]));
  const out: Bundle[] = [];
  const seen = new Set<string>();
  for (const channel of channels) {
    const members = channel.entries.map((e) => byName.get(e.name)).filter((b): b is Bundle => b !== undefined);
    for (const b of members.sort(versionOrder)) if (!seen.has(b.name) && seen.add(b.name)) out.push(b);
  }
  for (const b of [...bundles].sort(versionOrder)) if (!seen.has(b.name) && seen.add(b.name)) out.push(b);
  return out;
}

/**
 * The bundles of `catalogs` whose properties satisfy `predicate`, best first, at most `limit`;
 * CEL evaluations are paid from `budget` (a bundle whose rule is not run is not a provider).
 */
export function providersOf(
  predicate: Predicate,
  catalogs: readonly ProviderCatalog[],
  limit: number,
  budget: CostBudget = resolutionBudget(),
): Provider[] {
  const ordered = [...catalogs].sort((a, b) => b.priority - a.priority || (a.name < b.name ? -1 : 1));
  const out: Provider[] = [];
  for (const catalog of ordered) {
    for (const fbc of catalog.content) {
      const byPackage = new Map<string, Bundle[]>();
      for (const b of fbc.bundles) {
        if (!satisfies(b.properties, predicate, budget)) continue;
        byPackage.set(b.package, [...(byPackage.get(b.package) ?? []), b]);
      }
      for (const packageName of [...byPackage.keys()].sort()) {
        for (const b of preferred(fbc, packageName, byPackage.get(packageName) ?? [])) {
          out.push({ catalog: catalog.name, packageName, bundle: b.name, version: packageOf(b.properties)?.version ?? '' });
          if (out.length >= limit) return out;
        }
      }
    }
  }
  return out;
}

/** Package names a predicate mentions (`package` parts anywhere): where its providers can only be. */
export function mentionedPackages(predicate: Predicate): string[] | undefined {
  if (predicate.kind === 'package') return [predicate.packageName];
  if (predicate.kind === 'all') {
    // One part naming a package is enough: every provider must be of that package.
    for (const c of predicate.constraints) {
      const names = mentionedPackages(c.predicate);
      if (names !== undefined) return names;
    }
    return undefined;
  }
  if (predicate.kind === 'any') {
    const names = new Set<string>();
    for (const c of predicate.constraints) {
      const inner = mentionedPackages(c.predicate);
      if (inner === undefined) return undefined;
      for (const n of inner) names.add(n);
    }
    return [...names];
  }
  return undefined;
}
