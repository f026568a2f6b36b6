/**
 * The ClusterCatalogs a tenant's request may be served from (issue 71, decision 0148), for the
 * community check `olmv1 install --tenant` and the console's Namespace page share: the tenant
 * controller resolves the request later, so every catalog its selector picks that serves the
 * package, or whose content cannot be read, counts. Read as the caller (the roles in
 * config/tenant-extensions let every authenticated user read ClusterCatalogs).
 */
import { CLUSTER_CATALOG } from '../../shared/api/index.ts';
import type { KubeContext, KubeObject } from '../../shared/kube/index.ts';
import { selectedCatalogs, type CatalogSource } from '../../operator-controller/dependencyview/index.ts';
import { isEmptyPartition } from '../../operator-controller/resolve/index.ts';
import type { ExtensionRequest } from '../install/index.ts';

/**
 * The ClusterCatalogs `req`'s selector picks that serve its package (a partition that is not
 * empty: catalogd answers an empty one for a package it lacks), or whose content cannot be read
 * (they may serve it); none for a selector that does not parse (the tenant controller
 * refuses the request for it). Rejects with the API server's error when the catalogs cannot be listed.
 */
export async function catalogsServing(
  kube: Pick<KubeContext, 'client'>,
  source: Omit<CatalogSource, 'catalogs'>,
  req: Pick<ExtensionRequest, 'selector' | 'packageName'>,
  signal?: AbortSignal,
): Promise<KubeObject[]> {
  const { items } = await kube.client.listAll(CLUSTER_CATALOG, signal === undefined ? {} : { signal });
  const selection = await selectedCatalogs({ ...source, catalogs: { list: () => items } }, req.selector, req.packageName, signal);
  if (!selection.ok) return [];
  const serving = new Set(selection.value.inputs.filter((i) => 'error' in i || !isEmptyPartition(i.package)).map((i) => i.name));
  return items.filter((c) => serving.has(c.metadata.name ?? ''));
}
