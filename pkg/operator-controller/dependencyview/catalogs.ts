/**
 * The catalog side of resolution, the part where upstream gathers candidate bundles from every
 * selected catalog (decisions 0030 and 0045): the ClusterCatalogs an extension selects, and for
 * each one either the package's partition (from the content cache, fetched from catalogd at most
 * once per catalog digest) or the error text that makes the whole resolution fail.
 */
import { AvailabilityMode, type ClusterCatalog, findCondition, parseClusterCatalog } from '../../shared/api/index.ts';
import type { CatalogContentCache, CatalogRef } from '../catalogclient/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import type { Informer, KubeObject } from '../../shared/kube/index.ts';
import {
  catalogCacheFailed,
  catalogNilResolvedImage,
  catalogNilResolvedSource,
  catalogNotServed,
  selectCatalogs,
  type CatalogInput,
  type LabelSelector,
} from '../resolve/index.ts';

/** A parsed ClusterCatalog with its labels (what the selector matches). */
interface Candidate {
  readonly labels: Record<string, string> | undefined;
  readonly catalog: ClusterCatalog;
}

/** Where an extension's catalogs come from. */
export interface CatalogSource {
  /** The ClusterCatalog informer (operator-controller's own identity). */
  catalogs: Pick<Informer<KubeObject>, 'list'>;
  content: CatalogContentCache;
  /**
   * Maps a catalog's `status.urls.base` to the URL operator-controller fetches from (the
   * `--catalogd-url` flag); identity by default.
   */
  baseURL?: (catalogName: string, statusBase: string) => string;
}

/** The selection: catalogs that match the selector (any availability), and the resolver's inputs. */
interface SelectedCatalogs {
  /** How many ClusterCatalogs match the selector, whatever their availability (fallback rule). */
  matching: number;
  inputs: CatalogInput[];
}

/** The content reference of a served catalog, or the error text that blocks resolution. */
export function contentRef(cc: ClusterCatalog, baseURL: CatalogSource['baseURL']): CatalogRef | string {
  const name = cc.metadata.name ?? '';
  if (findCondition(cc.status?.conditions, 'Serving')?.status !== 'True') return catalogNotServed(name);
  const resolved = cc.status?.resolvedSource;
  if (resolved === undefined) return catalogNilResolvedSource(name);
  if (resolved.image === undefined) return catalogNilResolvedImage(name);
  const base = cc.status?.urls?.base;
  if (base === undefined || base === '') return `error: catalog ${JSON.stringify(name)} has a nil status.urls value`;
  return { name, digestRef: resolved.image.ref, baseURL: baseURL === undefined ? base : baseURL(name, base) };
}

/** The ClusterCatalogs `selector` picks, in name order (a bad selector is an error text). */
function selectedCandidates(source: CatalogSource, selector: LabelSelector | undefined): ReturnType<typeof selectCatalogs<Candidate>> {
  const candidates: Candidate[] = [];
  for (const obj of source.catalogs.list()) {
    const parsed = parseClusterCatalog(obj);
    if (parsed.ok) candidates.push({ labels: obj.metadata.labels, catalog: parsed.value });
  }
  candidates.sort((a, b) => ((a.catalog.metadata.name ?? '') < (b.catalog.metadata.name ?? '') ? -1 : 1));
  return selectCatalogs(candidates, selector);
}

/**
 * Lists the catalogs `selector` picks (a bad selector is an error text), drops those with
 * `availabilityMode: Unavailable`, and fetches `packageName` from each of the others, in
 * name order. Fetch errors become failure inputs (the resolver reports the first).
 */
export async function selectedCatalogs(
  source: CatalogSource,
  selector: LabelSelector | undefined,
  packageName: string,
  signal?: AbortSignal,
): Promise<{ ok: true; value: SelectedCatalogs } | { ok: false; error: string }> {
  const selected = selectedCandidates(source, selector);
  if (!selected.ok) return selected;
  const available = selected.value.filter((c) => c.catalog.spec.availabilityMode !== AvailabilityMode.Unavailable);
  const inputs = await Promise.all(
    available.map(async ({ catalog }): Promise<CatalogInput> => {
      const name = catalog.metadata.name ?? '';
      const ref = contentRef(catalog, source.baseURL);
      if (typeof ref === 'string') return { name, error: ref };
      try {
        return { name, priority: catalog.spec.priority ?? 0, package: await source.content.getPackage(ref, packageName, signal) };
      } catch (err) {
        return { name, error: catalogCacheFailed(name, errorMessage(err)) };
      }
    }),
  );
  return { ok: true, value: { matching: selected.value.length, inputs } };
}

/**
 * The package names the served, available catalogs `selector` picks carry (from the content
 * cache: one request per catalog digest, then none), for the hints of a resolution that found
 * no package. Catalogs that cannot be read are left out: hints are best effort.
 */
export async function selectedPackageNames(source: CatalogSource, selector: LabelSelector | undefined, signal?: AbortSignal): Promise<string[]> {
  const selected = selectedCandidates(source, selector);
  if (!selected.ok) return [];
  const names = new Set<string>();
  for (const { catalog } of selected.value) {
    if (catalog.spec.availabilityMode === AvailabilityMode.Unavailable) continue;
    const ref = contentRef(catalog, source.baseURL);
    if (typeof ref === 'string') continue;
    try {
      for (const n of await source.content.packageNames(ref, signal)) names.add(n);
    } catch {
      // Best effort: the resolution's own error already says what failed.
    }
  }
  return [...names].sort();
}
