/** The catalogs' properties of an installed bundle, for the CRD deletion's requirement checks. */
import type { CatalogContentCache } from '../../operator-controller/catalogclient/index.ts';
import { selectedCatalogs } from '../../operator-controller/dependencyview/index.ts';
import { CLUSTER_CATALOG } from '../../shared/api/index.ts';
import type { KubeClient, KubeObject } from '../../shared/kube/index.ts';
import type { PreviewPorts } from '../crd-deletion/index.ts';

/** The properties the cluster's catalogs give a bundle (read through catalogd once per package), as the controller reads them. */
export function catalogBundleProperties(
  client: Pick<KubeClient, 'listAll'>,
  content: CatalogContentCache,
): NonNullable<PreviewPorts['catalogProperties']> {
  let catalogs: Promise<{ list: () => KubeObject[] }> | undefined;
  return async (packageName, bundleName) => {
    catalogs ??= client.listAll(CLUSTER_CATALOG).then(({ items }) => ({ list: () => items }));
    const selection = await selectedCatalogs({ catalogs: await catalogs, content }, undefined, packageName);
    if (!selection.ok) throw new Error(selection.error);
    for (const input of selection.value.inputs) {
      if ('error' in input || input.package === null) continue;
      const found = input.package.bundles.find((b) => b.name === bundleName);
      if (found !== undefined) return found.properties;
    }
    return undefined;
  };
}
