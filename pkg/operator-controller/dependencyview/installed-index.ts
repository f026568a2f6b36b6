/**
 * The installed extensions as dependency checking sees them (decision 0104): each one's name,
 * package, version, bundle properties (from the catalogs) and parsed requirements, kept up to
 * date from the ClusterExtension informer's events (`note`) rather than by walking every
 * extension per check. An entry is read again from the catalogs only when its extension's
 * installed bundle or the catalogs' content changed (a status write keeps it); a bundle no
 * catalog answered for is known by its package and version and asked for again next time.
 *
 * Entries are indexed by the package and APIs each provides and by what each one's
 * requirements could be met by, so a check costs what its own requirements name: an upgrade
 * looks only at the dependents of what it moves, and the extensions able to satisfy them; a
 * deletion wakes only the dependents of what went.
 */
import type { KubeObject } from '../../shared/kube/index.ts';
import type { Property } from '../../shared/fbc/types.ts';
import { DEFAULT_LIMITS, bundleRequirements, installedCandidate, providedGvks, type Candidate, type Requirement } from '../dependencies/index.ts';
import type { Bundle } from '../../shared/fbc/index.ts';
import { selectedCatalogs, type CatalogSource } from './catalogs.ts';
import { gvkKey, requirementsBound, type Bound } from './requirement-bounds.ts';
import { NameSets } from './name-sets.ts';

/** One installed extension, as the dependency checks read it. */
interface InstalledEntry {
  readonly name: string;
  readonly candidate: Candidate;
  /** What its bundle requires; empty when nothing, or when the declaration is malformed (the resolve step reports that). */
  readonly requirements: readonly Requirement[];
}

/** What an installed extension provides: its package and APIs (`group/version/kind`). */
interface Provided {
  readonly packages: readonly string[];
  readonly gvks: readonly string[];
}

interface Slot {
  obj: KubeObject;
  /** What it was read for (catalogs' content, package, bundle, version); '' when no catalog answered. */
  readonly key: string;
  readonly entry: InstalledEntry;
  readonly provided: Provided;
  /** Where its requirements can be met; undefined: anywhere (CEL, `not`). Only for dependents. */
  readonly needs: Bound | undefined;
}

/** What Progressing says while an extension waits for a dependency (messages of decision 0104). */
export const WAITING_TEXT = 'unmet dependency';

// Raw reads (no schema parse): they run for every informer event.
function field(value: unknown, ...path: string[]): unknown {
  let v = value;
  for (const p of path) v = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** `key` of the status condition of `type` of `obj`, when a string. */
export function conditionText(obj: Readonly<KubeObject>, type: string, key: string): string | undefined {
  const conditions = field(obj, 'status', 'conditions');
  return text(field(Array.isArray(conditions) ? conditions.find((c) => field(c, 'type') === type) : undefined, key));
}

/** `status.install.bundle.name`, when a string. */
export const installedBundle = (obj: KubeObject | undefined): string | undefined => text(field(obj, 'status', 'install', 'bundle', 'name'));

const serving = (c: KubeObject): string => conditionText(c, 'Serving', 'status') ?? '';
const waiting = (obj: KubeObject): boolean => conditionText(obj, 'Progressing', 'message')?.includes(WAITING_TEXT) === true;

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
  readonly #objects = new Map<string, KubeObject>();
  readonly #slots = new Map<string, Slot>();
  /** Extensions whose slot may not reflect their object or the catalogs' content. */
  readonly #stale = new Set<string>();
  readonly #waiting = new Set<string>();
  #stamp: string | undefined;
  #refreshing: Promise<void> | undefined;
  // Providers by package and API; dependents by what their requirements can be met by.
  readonly #byPackage = new NameSets();
  readonly #byGvk = new NameSets();
  readonly #needsPackage = new NameSets();
  readonly #needsGvk = new NameSets();
  readonly #needsAnything = new Set<string>();

  /** An index of `objects` (for callers without an informer subscription: built per check). */
  static of(objects: Iterable<KubeObject>): InstalledIndex {
    const index = new InstalledIndex();
    for (const obj of objects) index.note('add', obj);
    return index;
  }

  /** An informer event on a ClusterExtension; constant time. */
  note(type: 'add' | 'update' | 'delete', obj: KubeObject): void {
    const name = obj.metadata.name ?? '';
    if (type === 'delete') {
      this.#objects.delete(name);
      this.#stale.delete(name);
      this.#waiting.delete(name);
      this.#setSlot(name, undefined);
      return;
    }
    this.#objects.set(name, obj);
    if (this.#slots.get(name)?.obj !== obj) this.#stale.add(name);
    if (waiting(obj)) this.#waiting.add(name);
    else this.#waiting.delete(name);
  }

  /** The extensions whose Progressing says they wait on an unmet dependency. */
  waiting(): string[] {
    return [...this.#waiting];
  }

  /**
   * What `name` provides as last read, when that is of its installed bundle (`bundle`, else the
   * one its object names); undefined when not read yet: it may provide anything.
   */
  provided(name: string, bundle = installedBundle(this.#objects.get(name))): Provided | undefined {
    const slot = this.#slots.get(name);
    return slot !== undefined && installedBundle(slot.obj) === bundle ? slot.provided : undefined;
  }

  /** `provided`, once the index is up to date. */
  async providedNow(source: CatalogSource, name: string, bundle: string, signal?: AbortSignal): Promise<Provided | undefined> {
    await this.#fresh(source, signal);
    return this.provided(name, bundle);
  }

  /** The installed extensions with requirements (but `self`) that what `provided` offers could meet; undefined: all of them. */
  async dependentsOf(source: CatalogSource, provided: Provided | undefined, self: string, signal?: AbortSignal): Promise<InstalledEntry[]> {
    await this.#fresh(source, signal);
    const names = new Set(this.#needsAnything);
    if (provided === undefined) for (const n of this.#needsPackage.all().concat(this.#needsGvk.all())) names.add(n);
    else {
      for (const p of provided.packages) this.#needsPackage.addTo(p, names);
      for (const g of provided.gvks) this.#needsGvk.addTo(g, names);
    }
    return this.#entries(names, self);
  }

  /** The installed extensions (but `self`) that could meet some of `requirements`: those the requirements name, else all. */
  async candidatesFor(source: CatalogSource, requirements: readonly Requirement[], self: string, signal?: AbortSignal): Promise<InstalledEntry[]> {
    await this.#fresh(source, signal);
    if (requirements.length === 0) return [];
    const bound = requirementsBound(requirements);
    if (bound === undefined) return this.#entries(new Set(this.#slots.keys()), self);
    const names = new Set<string>();
    for (const p of bound.packages) this.#byPackage.addTo(p, names);
    for (const g of bound.gvks) this.#byGvk.addTo(g, names);
    return this.#entries(names, self);
  }

  #entries(names: ReadonlySet<string>, self: string): InstalledEntry[] {
    const out: InstalledEntry[] = [];
    for (const n of [...names].sort()) {
      const slot = this.#slots.get(n);
      if (slot !== undefined && n !== self) out.push(slot.entry);
    }
    return out;
  }

  // Brings every stale slot up to date, one refresh at a time (concurrent checks wait for it).
  async #fresh(source: CatalogSource, signal?: AbortSignal): Promise<void> {
    while (this.#refreshing !== undefined) await this.#refreshing.catch(() => undefined);
    signal?.throwIfAborted();
    const stamp = contentStamp(source);
    if (stamp !== this.#stamp) for (const name of this.#objects.keys()) this.#stale.add(name);
    this.#stamp = stamp;
    if (this.#stale.size === 0) return;
    const running = this.#refresh(source, stamp, signal);
    this.#refreshing = running;
    try {
      await running;
    } finally {
      this.#refreshing = undefined;
    }
  }

  async #refresh(source: CatalogSource, stamp: string, signal?: AbortSignal): Promise<void> {
    for (const name of [...this.#stale]) {
      const obj = this.#objects.get(name);
      const bundle = installedBundle(obj);
      const version = text(field(obj, 'status', 'install', 'bundle', 'version'));
      const packageName = text(field(obj, 'spec', 'source', 'catalog', 'packageName'));
      if (obj === undefined || bundle === undefined || version === undefined || packageName === undefined) {
        this.#stale.delete(name);
        this.#setSlot(name, undefined);
        continue;
      }
      const key = JSON.stringify([stamp, packageName, bundle, version]);
      const slot = this.#slots.get(name);
      if (slot?.key === key) {
        slot.obj = obj;
        this.#stale.delete(name);
        continue;
      }
      const properties = await installedProperties(source, packageName, bundle, signal);
      // Changed meanwhile: the next check reads it again.
      if (this.#objects.get(name) !== obj) continue;
      const candidate = installedCandidate({ name, packageName, version, properties });
      const requirements = requirementsOf(bundle, properties);
      const pkg = text(field(candidate.properties.find((p) => p.type === 'olm.package')?.value, 'packageName'));
      const provided = { packages: pkg === undefined ? [] : [pkg], gvks: providedGvks(candidate.properties).map(gvkKey) };
      const needs = requirements.length === 0 ? undefined : requirementsBound(requirements);
      this.#setSlot(name, { obj, key: properties === undefined ? '' : key, entry: { name, candidate, requirements }, provided, needs });
      // A bundle no catalog answered for (gone, or a fetch failed) is asked for again next time.
      if (properties !== undefined) this.#stale.delete(name);
    }
  }

  #setSlot(name: string, slot: Slot | undefined): void {
    const old = this.#slots.get(name);
    if (old !== undefined) this.#index(name, old, false);
    if (slot === undefined) this.#slots.delete(name);
    else {
      this.#slots.set(name, slot);
      this.#index(name, slot, true);
    }
  }

  #index(name: string, slot: Slot, add: boolean): void {
    for (const p of slot.provided.packages) this.#byPackage.set(p, name, add);
    for (const g of slot.provided.gvks) this.#byGvk.set(g, name, add);
    if (slot.entry.requirements.length === 0) return;
    if (slot.needs === undefined) {
      if (add) this.#needsAnything.add(name);
      else this.#needsAnything.delete(name);
      return;
    }
    for (const p of slot.needs.packages) this.#needsPackage.set(p, name, add);
    for (const g of slot.needs.gvks) this.#needsGvk.set(g, name, add);
  }
}

function requirementsOf(name: string, properties: Property[] | undefined): readonly Requirement[] {
  const reqs = properties === undefined ? undefined : bundleRequirements({ name, properties }, DEFAULT_LIMITS);
  return reqs?.ok === true ? reqs.value : [];
}
