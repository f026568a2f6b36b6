/**
 * The installed extensions as dependency checking sees them (decision 0104): each one's name,
 * package, version, bundle properties (from the catalogs) and parsed requirements. Every upgrade
 * asks for all of them (whom would the move break?), so reading them afresh each time made a
 * mass upgrade of N extensions cost N² catalog lookups and schema parses. The index keeps one
 * entry per extension and refreshes it only when the extension's object changed (the informer
 * hands out a new object per change) or the catalogs' content did; an unchanged installed
 * bundle keeps its properties even when its status moved. A bundle no catalog answered for is
 * not kept (asked for again next time, as before the index); entries of extensions gone from
 * the informer are dropped on the next read.
 */
import type { Informer, KubeObject } from '../../shared/kube/index.ts';
import type { Property } from '../../shared/fbc/types.ts';
import { DEFAULT_LIMITS, bundleRequirements, installedCandidate, type Candidate, type Requirement } from '../dependencies/index.ts';
import type { Bundle } from '../../shared/fbc/index.ts';
import { selectedCatalogs, type CatalogSource } from './catalogs.ts';

/** One installed extension, as the dependency checks read it. */
interface InstalledEntry {
  readonly name: string;
  readonly candidate: Candidate;
  /** What its bundle requires; empty when nothing, or when the declaration is malformed (the resolve step reports that). */
  readonly requirements: readonly Requirement[];
}

interface Slot {
  obj: KubeObject;
  stamp: string;
  key: string;
  entry: InstalledEntry;
}

// Raw reads (no schema parse): they run for every extension on every read of the index.
function field(value: unknown, ...path: string[]): unknown {
  let v = value;
  for (const p of path) v = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function serving(c: KubeObject): string {
  const conditions = field(c, 'status', 'conditions');
  const found: unknown = Array.isArray(conditions) ? conditions.find((x) => field(x, 'type') === 'Serving') : undefined;
  return text(field(found, 'status')) ?? '';
}

/** What decides the catalogs' answer for any package: each catalog's name, served content, availability and Serving condition. */
function contentStamp(source: CatalogSource): string {
  return source.catalogs
    .list()
    .map((c) =>
      [c.metadata.name, text(field(c, 'status', 'resolvedSource', 'image', 'ref')), text(field(c, 'spec', 'availabilityMode')), serving(c)].join('@'),
    )
    .sort()
    .join(',');
}

/** The properties of `bundleName` of `packageName` in the first catalog that has it, or undefined. */
export async function installedProperties(
  source: CatalogSource,
  packageName: string,
  bundleName: string,
  signal?: AbortSignal,
): Promise<Bundle['properties'] | undefined> {
  const all = await selectedCatalogs(source, undefined, packageName, signal);
  if (!all.ok) return undefined;
  for (const input of all.value.inputs) {
    if ('error' in input || input.package === null) continue;
    const found = input.package.bundles.find((b) => b.name === bundleName);
    if (found !== undefined) return found.properties;
  }
  return undefined;
}

export class InstalledIndex {
  readonly #slots = new Map<string, Slot>();

  /** Every installed extension but `self` (in the informer's order), refreshed where it or the catalogs' content changed. */
  async others(extensions: Pick<Informer<KubeObject>, 'list'>, source: CatalogSource, self: string, signal?: AbortSignal): Promise<InstalledEntry[]> {
    const stamp = contentStamp(source);
    const seen = new Set<string>();
    const out: InstalledEntry[] = [];
    for (const obj of extensions.list()) {
      const name = obj.metadata.name ?? '';
      seen.add(name);
      const entry = await this.#entry(obj, name, stamp, source, signal);
      if (entry !== undefined && name !== self) out.push(entry);
    }
    for (const name of this.#slots.keys()) if (!seen.has(name)) this.#slots.delete(name);
    return out;
  }

  async #entry(obj: KubeObject, name: string, stamp: string, source: CatalogSource, signal?: AbortSignal): Promise<InstalledEntry | undefined> {
    const slot = this.#slots.get(name);
    if (slot?.obj === obj && slot.stamp === stamp) return slot.entry;
    const bundle = text(field(obj, 'status', 'install', 'bundle', 'name'));
    const version = text(field(obj, 'status', 'install', 'bundle', 'version'));
    const packageName = text(field(obj, 'spec', 'source', 'catalog', 'packageName'));
    if (bundle === undefined || version === undefined || packageName === undefined) {
      this.#slots.delete(name);
      return undefined;
    }
    const key = JSON.stringify([stamp, packageName, bundle, version]);
    if (slot?.key === key) {
      slot.obj = obj;
      slot.stamp = stamp;
      return slot.entry;
    }
    const properties = await installedProperties(source, packageName, bundle, signal);
    const entry = {
      name,
      candidate: installedCandidate({ name, packageName, version, properties }),
      requirements: requirementsOf(bundle, properties),
    };
    // A bundle no catalog answered for (gone, or a fetch failed) is asked for again next time.
    if (properties === undefined) this.#slots.delete(name);
    else this.#slots.set(name, { obj, stamp, key, entry });
    return entry;
  }
}

function requirementsOf(name: string, properties: Property[] | undefined): readonly Requirement[] {
  const reqs = properties === undefined ? undefined : bundleRequirements({ name, properties }, DEFAULT_LIMITS);
  return reqs?.ok === true ? reqs.value : [];
}
