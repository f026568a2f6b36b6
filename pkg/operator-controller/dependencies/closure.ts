/**
 * The dependency closure of a bundle in a set of catalogs, for `olmv1 resolve --dependencies`:
 * each requirement, its providers in preference order, and recursively the preferred
 * provider's requirements: what must already be on the cluster. Bounded; a cycle followed once.
 */
import type { Bundle } from '../../shared/fbc/types.ts';
import { describeConstraint } from './evaluate.ts';
import type { DependencyLimits } from './limits.ts';
import { providersOf, type Provider, type ProviderCatalog } from './providers.ts';
import { bundleRequirements } from './requirements.ts';

/** One requirement of one bundle of the closure. */
interface ClosureEntry {
  /** The bundle that declares it. */
  readonly bundle: string;
  readonly property: string;
  readonly requirement: string;
  readonly failureMessage?: string;
  /** What the catalogs offer for it, best first; empty when nothing does. */
  readonly providers: readonly Provider[];
  /** Set when the bundle's declarations are malformed (then no other field is meaningful). */
  readonly error?: string;
}

/** How far the closure goes: levels of providers, entries, providers named per requirement. */
interface ClosureBounds {
  readonly depth: number;
  readonly entries: number;
  readonly providers: number;
}

const DEFAULT_BOUNDS: ClosureBounds = { depth: 8, entries: 200, providers: 5 };

function findBundle(catalogs: readonly ProviderCatalog[], p: Provider): Bundle | undefined {
  for (const c of catalogs) {
    if (c.name !== p.catalog) continue;
    for (const fbc of c.content) {
      const b = fbc.bundles.find((x) => x.name === p.bundle && x.package === p.packageName);
      if (b !== undefined) return b;
    }
  }
  return undefined;
}

/** The closure of `root`'s requirements over `catalogs`, breadth first. */
export function dependencyClosure(
  root: Bundle,
  catalogs: readonly ProviderCatalog[],
  limits: DependencyLimits,
  bounds: ClosureBounds = DEFAULT_BOUNDS,
): ClosureEntry[] {
  const out: ClosureEntry[] = [];
  const seen = new Set<string>([`${root.package}/${root.name}`]);
  let level: Bundle[] = [root];
  for (let depth = 0; depth < bounds.depth && level.length > 0; depth++) {
    const next: Bundle[] = [];
    for (const bundle of level) {
      const reqs = bundleRequirements(bundle, limits);
      if (!reqs.ok) {
        out.push({ bundle: bundle.name, property: '', requirement: '', providers: [], error: reqs.error });
        continue;
      }
      for (const r of reqs.value) {
        if (out.length >= bounds.entries) return out;
        const providers = providersOf(r.constraint.predicate, catalogs, bounds.providers);
        const fm = r.constraint.failureMessage;
        out.push({
          bundle: bundle.name,
          property: r.property,
          requirement: describeConstraint(r.constraint),
          ...(fm === undefined ? {} : { failureMessage: fm }),
          providers,
        });
        const best = providers[0];
        const provider = best === undefined ? undefined : findBundle(catalogs, best);
        if (provider === undefined || seen.has(`${provider.package}/${provider.name}`)) continue;
        seen.add(`${provider.package}/${provider.name}`);
        next.push(provider);
      }
    }
    level = next;
  }
  return out;
}
