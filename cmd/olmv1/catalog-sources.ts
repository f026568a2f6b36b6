/**
 * Where `olmv1 catalog list|search` (and `resolve --catalog URL`) read catalogs: a FBC directory,
 * a catalogd base URL, or the cluster's ClusterCatalogs (at `status.urls.base` or
 * `--catalogd-url`'s origin). Each catalog is downloaded once and kept as compact blobs per
 * package; the caller loads packages into typed form one at a time.
 */
import type { CatalogClient } from '../../pkg/operator-controller/catalogclient/index.ts';
import type { KubeContext } from '../../pkg/shared/kube/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import type { DeclarativeConfig } from '../../pkg/shared/fbc/index.ts';
import { CLUSTER_CATALOG, parseClusterCatalog } from '../../pkg/shared/api/index.ts';
import { contentRef } from '../../pkg/operator-controller/dependencyview/index.ts';
import { packagePartition } from '../../pkg/operator-controller/resolve/index.ts';
import type { ClusterFlags } from './cluster-access.ts';

/** One catalog's packages, loadable one at a time. */
export interface CatalogPackages {
  name: string;
  /** Package names in name order. */
  packageNames: string[];
  /** The partition of one package. @throws when its blobs do not load as FBC. */
  load(packageName: string): DeclarativeConfig;
}

/** What a `--catalog` value names. */
type CatalogArg = { kind: 'dir'; path: string } | { kind: 'url'; url: string } | { kind: 'cluster'; name: string };

/** I/O the sources need (composed in commands.ts; faked in unit tests). */
export interface CatalogSourceDeps {
  /** Loads a whole FBC directory; throws with a readable message. */
  loadCatalogDir(dir: string): Promise<DeclarativeConfig>;
  /** Whether `path` is an existing directory (tells a directory from a ClusterCatalog name). */
  isDirectory(path: string): boolean;
  /** The catalogd content client. */
  catalogClient: CatalogClient;
  /** Connects to the cluster (kubeconfig resolution of every olmv1 command). */
  connectCluster(flags: ClusterFlags): Promise<KubeContext>;
}

/**
 * Classifies a `--catalog` value: `http(s)://...` is a catalogd URL; a value holding a path
 * separator, starting with `.`, or naming an existing directory is a directory; anything else
 * is a ClusterCatalog name.
 */
export function classifyCatalogArg(value: string, isDirectory: (path: string) => boolean): CatalogArg {
  if (/^https?:\/\//i.test(value)) return { kind: 'url', url: value.replace(/\/+$/, '') };
  if (value.includes('/') || value.startsWith('.') || isDirectory(value)) return { kind: 'dir', path: value };
  return { kind: 'cluster', name: value };
}

/** A directory's catalog. */
export async function dirCatalog(name: string, dir: string, deps: Pick<CatalogSourceDeps, 'loadCatalogDir'>): Promise<CatalogPackages> {
  const dc = await deps.loadCatalogDir(dir);
  const names = [...new Set(dc.packages.map((p) => p.name))].sort();
  return { name, packageNames: names, load: (pkg) => packagePartition(dc, pkg) };
}

/** The catalog catalogd serves at `url` (`/api/v1/all`). @throws with the client's error texts. */
export async function urlCatalog(name: string, url: string, client: CatalogClient, signal?: AbortSignal): Promise<CatalogPackages> {
  const content = await client.getAll(url, signal);
  return { name, packageNames: [...content.packageNames].sort(), load: (pkg) => content.loadPackage(pkg) };
}

/** A ClusterCatalog as the listing needs it: its name and priority and where its content is, or why not. */
interface ClusterCatalogRef {
  name: string;
  priority: number;
  labels: Record<string, string> | undefined;
  /** Its annotations (the console's display name and source type, pkg/olmv1/console/catalog-badge.ts). */
  annotations: Record<string, string> | undefined;
  unavailable: boolean;
  /** The content URL, or the resolver's error text (not served, no resolved source). */
  baseURL: string | { error: string };
  /** The resolved image digest of the content served, when served. */
  digestRef?: string;
}

/**
 * Lists the cluster's ClusterCatalogs in name order with where to read each one.
 * `catalogdUrl` replaces the origin of `status.urls.base` (a port-forward, a route).
 */
export async function listClusterCatalogs(kube: KubeContext, catalogdUrl: URL | undefined, signal?: AbortSignal): Promise<ClusterCatalogRef[]> {
  const { items } = await kube.client.listAll(CLUSTER_CATALOG, { signal });
  const out: ClusterCatalogRef[] = [];
  for (const obj of items) {
    const parsed = parseClusterCatalog(obj);
    if (!parsed.ok) continue;
    const cc = parsed.value;
    const ref = contentRef(
      cc,
      catalogdUrl === undefined ? undefined : (_name, base) => `${catalogdUrl.origin}${new URL(base).pathname}`.replace(/\/+$/, ''),
    );
    out.push({
      name: cc.metadata.name ?? '',
      priority: cc.spec.priority ?? 0,
      labels: obj.metadata.labels,
      annotations: obj.metadata.annotations,
      unavailable: cc.spec.availabilityMode === 'Unavailable',
      baseURL: typeof ref === 'string' ? { error: ref } : ref.baseURL,
      ...(typeof ref === 'string' ? {} : { digestRef: ref.digestRef }),
    });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Milliseconds since `start`, as `1.2 s`. */
export function elapsed(start: number, now: number): string {
  return `${((now - start) / 1000).toFixed(1)} s`;
}

/** `errorMessage` re-exported for the command files that only need it with the sources. */
export { errorMessage };
