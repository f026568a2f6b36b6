/**
 * `olmv1 catalog add|remove`'s service: the ClusterCatalog manifest, and its creation and deletion
 * as the caller's client. The API server's refusals are values with the command's message; the
 * command prints them, the console shows them.
 */
import { CLUSTER_CATALOG } from '../../shared/api/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { isAlreadyExists, isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { CATALOG_NAME_LABEL } from '../../shared/api/index.ts';

/** What a catalog write gives: done, or the refusal in the command's words. */
export type CatalogWrite = { ok: true } | { ok: false; error: string };

/** The ClusterCatalog manifest `catalog add` writes. */
export function catalogManifest(opts: {
  name: string;
  image: string;
  priority: number | undefined;
  pollMinutes: number | undefined;
  available: boolean;
}): KubeObject {
  return {
    apiVersion: CLUSTER_CATALOG.apiVersion,
    kind: CLUSTER_CATALOG.kind,
    metadata: { name: opts.name, labels: { [CATALOG_NAME_LABEL]: opts.name } },
    spec: {
      source: { type: 'Image', image: { ref: opts.image, ...(opts.pollMinutes === undefined ? {} : { pollIntervalMinutes: opts.pollMinutes }) } },
      ...(opts.priority === undefined ? {} : { priority: opts.priority }),
      availabilityMode: opts.available ? 'Available' : 'Unavailable',
    },
  };
}

/** Creates `catalog` (a catalogManifest); its existence or the API server's refusal is the value. */
export async function createCatalog(client: KubeClient, catalog: KubeObject, signal?: AbortSignal): Promise<CatalogWrite> {
  const name = JSON.stringify(catalog.metadata.name ?? '');
  try {
    await client.create(catalog, signal === undefined ? {} : { signal });
    return { ok: true };
  } catch (e) {
    if (isAlreadyExists(e)) return { ok: false, error: `ClusterCatalog ${name} already exists` };
    return { ok: false, error: `error creating ClusterCatalog ${name}: ${errorMessage(e)}` };
  }
}

/** Requests the deletion of ClusterCatalog `name`; its absence or the API server's refusal is the value. */
export async function deleteCatalog(client: KubeClient, name: string, signal?: AbortSignal): Promise<CatalogWrite> {
  try {
    await client.delete({ ...CLUSTER_CATALOG, name }, signal === undefined ? {} : { signal });
    return { ok: true };
  } catch (e) {
    if (isNotFound(e)) return { ok: false, error: `ClusterCatalog ${JSON.stringify(name)} not found` };
    return { ok: false, error: `error deleting ClusterCatalog ${JSON.stringify(name)}: ${errorMessage(e)}` };
  }
}
