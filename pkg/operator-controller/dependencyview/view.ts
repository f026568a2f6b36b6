/**
 * The cluster side of dependency checking (decision 0104): what the cluster has that a
 * bundle's requirements can be met by, read only when some bundle of the resolved package
 * declares requirements (so resolution without dependencies costs nothing more). Installed
 * extensions come from the ClusterExtension informer (their bundles' properties from the
 * catalogs, else their package and version), served APIs from the API server's discovery
 * (only the GVKs the requirements name). Also what the selected catalogs offer for an unmet
 * requirement.
 */
import type { Informer, KubeObject } from '../../shared/kube/index.ts';
import {
  DEFAULT_LIMITS,
  REQUIREMENT_PROPERTY_TYPES,
  RequirementCache,
  dependencyChecker,
  mentionedPackages,
  providersNote,
  providersOf,
  servedApisCandidate,
  type Gvk,
  type Predicate,
  type Provider,
  type ProviderCatalog,
  type Unmet,
} from '../dependencies/index.ts';
import type { CatalogInput, LabelSelector } from '../resolve/index.ts';
import type { Bundle, DeclarativeConfig } from '../../shared/fbc/index.ts';
import { selectedCatalogs, selectedPackageNames, type CatalogSource } from './catalogs.ts';
import { InstalledIndex, WAITING_TEXT, installedBundle } from './installed-index.ts';
import type { DependencyGauge } from './gauge.ts';

/** What dependency checking reads of the cluster. */
export interface DependencyPorts {
  /** The ClusterExtensions (operator-controller's informer). */
  extensions: Pick<Informer<KubeObject>, 'list'>;
  /** Whether the API server serves `gvk` (discovery); an error counts as not served. */
  serves: (gvk: Gvk, signal?: AbortSignal) => Promise<boolean>;
  /** Bundles' parsed requirements, kept across reconciles; none: parsed each time. */
  cache?: RequirementCache;
  /** The API server's version (`/version` gitVersion), for CSVs' minKubeVersion; none: not checked. */
  serverVersion?: (signal?: AbortSignal) => Promise<string>;
  /** The installed extensions, kept across reconciles; none: read afresh each time. */
  installed?: InstalledIndex;
  /** `olmv1_extension_dependency_unmet`; none: no metric. */
  gauge?: Pick<DependencyGauge, 'set'>;
}

/** A check for the resolver, and what it found. */
interface DependencyCheck {
  readonly check: (bundle: Bundle) => string | undefined;
  readonly unmet: ReadonlyMap<string, Unmet>;
}

/** How many packages a search for providers reads at most, and how many providers it names. */
const MAX_SEARCHED_PACKAGES = 2000;
const MAX_PROVIDERS = 5;

function hasMinKubeVersion(b: Bundle): boolean {
  return b.properties.some((p) => p.type === 'olm.csv.metadata' && JSON.stringify(p.value).includes('"minKubeVersion"'));
}

function declaresRequirements(b: Bundle): boolean {
  return b.properties.some((p) => REQUIREMENT_PROPERTY_TYPES.includes(p.type));
}

export function gvksOf(p: Predicate, out: Map<string, Gvk>): void {
  if (p.kind === 'gvk') out.set(`${p.gvk.group}/${p.gvk.version}/${p.gvk.kind}`, p.gvk);
  if (p.kind === 'all' || p.kind === 'any' || p.kind === 'not') for (const c of p.constraints) gvksOf(c.predicate, out);
}

/**
 * The resolver's dependency check for extension `self`, or undefined when no bundle of the
 * fetched partitions declares requirements (nothing to read then).
 */
export async function dependencyCheck(
  ports: DependencyPorts,
  source: CatalogSource,
  self: string,
  inputs: readonly CatalogInput[],
  signal?: AbortSignal,
): Promise<DependencyCheck | undefined> {
  const cache = ports.cache ?? new RequirementCache();
  const bundles = inputs.flatMap((i) => ('error' in i || i.package === null ? [] : i.package.bundles));
  const declaring = bundles.filter(declaresRequirements);
  const versioned = ports.serverVersion !== undefined && bundles.some(hasMinKubeVersion);
  if (declaring.length === 0 && !versioned) return undefined;
  const serverVersion = versioned ? await ports.serverVersion?.(signal) : undefined;

  const requirements = declaring.flatMap((b) => {
    const reqs = cache.requirements(b, DEFAULT_LIMITS);
    return reqs.ok ? reqs.value : [];
  });
  const gvks = new Map<string, Gvk>();
  for (const r of requirements) gvksOf(r.constraint.predicate, gvks);
  const served: Gvk[] = [];
  for (const g of gvks.values()) if (await ports.serves(g, signal)) served.push(g);

  // Only the installed extensions some declared requirement could be met by.
  const installed = ports.installed ?? InstalledIndex.of(ports.extensions.list());
  const candidates = [servedApisCandidate(served)];
  for (const e of await installed.candidatesFor(source, requirements, self, signal)) candidates.push(e.candidate);
  const checker = dependencyChecker(candidates, DEFAULT_LIMITS, cache, serverVersion);
  // CEL rules run ahead, yielding to the event loop between chunks (decision 0110).
  await checker.prepare(declaring);
  return checker;
}

/**
 * What the catalogs `selector` picks offer for `unmet`, in preference order (a few). Packages
 * named by the requirement are read; otherwise every package of those catalogs is (at most
 * MAX_SEARCHED_PACKAGES).
 */
export async function unmetProviders(
  source: CatalogSource,
  selector: LabelSelector | undefined,
  unmet: Unmet,
  signal?: AbortSignal,
): Promise<Provider[]> {
  const predicate = unmet.requirement.constraint.predicate;
  const names = mentionedPackages(predicate) ?? (await selectedPackageNames(source, selector, signal)).slice(0, MAX_SEARCHED_PACKAGES);
  const byCatalog = new Map<string, { priority: number; content: DeclarativeConfig[] }>();
  for (const name of names) {
    const selected = await selectedCatalogs(source, selector, name, signal);
    if (!selected.ok) continue;
    for (const input of selected.value.inputs) {
      if ('error' in input || input.package === null) continue;
      const entry = byCatalog.get(input.name) ?? { priority: input.priority, content: [] };
      entry.content.push(input.package);
      byCatalog.set(input.name, entry);
    }
  }
  const catalogs: ProviderCatalog[] = [...byCatalog].map(([name, c]) => ({ name, priority: c.priority, content: c.content }));
  return providersOf(predicate, catalogs, MAX_PROVIDERS);
}

/** What the catalogs `selector` picks offer for `unmet`, as the text appended to the unmet dependency's message. */
export async function providersText(source: CatalogSource, selector: LabelSelector | undefined, unmet: Unmet, signal?: AbortSignal): Promise<string> {
  return providersNote(await unmetProviders(source, selector, unmet, signal));
}

/**
 * Notes an informer event on `obj` in `index` (at once, before any await) and answers which
 * other ClusterExtensions to reconcile, so that dependencies are looked at again at once rather
 * than after a backoff: after a deletion, the installed extensions whose requirements what it
 * provided could meet (whoever relied on it now reports the loss; none when no installed bundle
 * declares a requirement); after a change of the installed bundle, those waiting on an unmet
 * dependency.
 */
export async function dependentsToWake(
  index: InstalledIndex,
  source: CatalogSource,
  event: { type: 'add' | 'update' | 'delete'; obj: KubeObject; old: KubeObject | undefined },
  signal?: AbortSignal,
): Promise<string[]> {
  const { type, obj, old } = event;
  const self = obj.metadata.name ?? '';
  const provided = type === 'delete' ? index.provided(self) : undefined;
  index.note(type, obj);
  if (type === 'delete') return (await index.dependentsOf(source, provided, self, signal)).map((e) => e.name);
  if (installedBundle(obj) === installedBundle(old)) return [];
  return index.waiting().filter((n) => n !== self);
}

/** Whether a resolution's error text is a dependency's (unmet, held for a dependent, lost). */
export function isDependencyText(text: string): boolean {
  return text.includes(WAITING_TEXT);
}
