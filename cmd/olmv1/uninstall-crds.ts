/**
 * `olmv1 uninstall NAME --delete-crds` (decision 0119): the preview, and the summary of what was
 * deleted, as a table or JSON. The preview, refusals and deletion are pkg/olmv1/uninstall's.
 */
import { previewSummary, type DeletionPreview } from '../../pkg/olmv1/crd-deletion/index.ts';
import { customResourceCount } from '../../pkg/olmv1/uninstall/index.ts';
import { table } from './io.ts';

/** The preview (or summary) as a table: one row per CRD and namespace; '-' for none, '(cluster)' for cluster-scoped ones. */
export function crdTable(p: DeletionPreview): string {
  const rows = [['CUSTOMRESOURCEDEFINITION', 'KIND', 'NAMESPACE', 'CUSTOM RESOURCES']];
  for (const c of p.crds) {
    if (c.customResources.length === 0) rows.push([c.name, c.kind, '-', '0']);
    for (const n of c.customResources) rows.push([c.name, c.kind, n.namespace === '' ? '(cluster)' : n.namespace, String(n.count)]);
  }
  return table(rows);
}

/** `N CustomResourceDefinitions and M custom resources`. */
export function crdCounts(p: DeletionPreview): string {
  const crs = p.crds.reduce((n, c) => n + customResourceCount(c), 0);
  return `${p.crds.length} CustomResourceDefinition${p.crds.length === 1 ? '' : 's'} and ${crs} custom resource${crs === 1 ? '' : 's'}`;
}

/** The JSON document of `-o json`: the preview, or with `deleted: true` the summary. */
export function crdJson(p: DeletionPreview, deleted: boolean): string {
  return `${JSON.stringify({ ...previewSummary(p), deleted }, null, 2)}\n`;
}
