/**
 * What the console's Namespace page reads and writes (issue 73, decision 0138), as the signed-in
 * user: what the ExtensionPolicies let a namespace install and its Extensions (pkg/olmv1/tenant,
 * the services `olmv1 available` and `olmv1 extensions` print), the ClusterCatalogs a request may
 * be served from (its community check, `olmv1 install --tenant`'s), a request created or removed,
 * and a watch of the namespace's Extensions while the page shows them. A namespace's admin needs no
 * cluster rights for any of it.
 */
import type { Logger } from 'pino';
import { EXTENSION } from '../../shared/api/index.ts';
import type { KubeContext, KubeObject } from '../../shared/kube/index.ts';
import type { CatalogContentCache } from '../../operator-controller/catalogclient/index.ts';
import { watchScope } from './watches.ts';
import type { ExtensionRequest } from '../install/index.ts';
import { catalogsServing, readAvailable, readRequests, type AvailablePackage, type RequestSummary } from '../tenant/index.ts';

/** See the file comment; every call acts as the user. */
export interface TenantSources {
  /** What the policies selecting `namespace` allow, or the read that failed (its what and the API server's words). */
  available(
    namespace: string,
    signal: AbortSignal,
  ): Promise<{ ok: true; value: AvailablePackage[] } | { ok: false; error: { what: string; message: string } }>;
  /** The namespace's Extensions; rejects with the API server's error. */
  requests(namespace: string, signal: AbortSignal): Promise<RequestSummary[]>;
  /** The ClusterCatalogs that may serve `request` (pkg/olmv1/tenant `catalogsServing`); rejects with the API server's error. */
  servedBy(request: ExtensionRequest, signal: AbortSignal): Promise<KubeObject[]>;
  /** Creates the Extension; rejects with the API server's error (admission's refusal included). */
  createRequest(request: KubeObject, signal: AbortSignal): Promise<void>;
  /** Deletes the Extension, preconditioned on `uid`; rejects with the API server's error. */
  deleteRequest(namespace: string, name: string, uid: string, signal: AbortSignal): Promise<void>;
  /** Calls `onChange` on every change of the namespace's Extensions after the first list, until `signal` aborts. */
  watchRequests(namespace: string, onChange: () => void, signal: AbortSignal): void;
}

/** The sources over `kube` (the user's connection); `catalogdUrl` replaces the catalogs' origin as the console's flag says. */
export function tenantSources(
  kube: Pick<KubeContext, 'client'>,
  o: { catalogContent: CatalogContentCache; catalogdUrl: URL | undefined; log: Logger },
): TenantSources {
  const origin = o.catalogdUrl?.origin;
  const source = {
    content: o.catalogContent,
    ...(origin === undefined ? {} : { baseURL: (_name: string, base: string) => `${origin}${new URL(base).pathname}`.replace(/\/+$/, '') }),
  };
  const type = { apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind };
  return {
    available: (namespace, signal) => readAvailable(kube, source, namespace, signal),
    requests: (namespace, signal) => readRequests(kube, namespace, signal),
    servedBy: (request, signal) => catalogsServing(kube, source, request, signal),
    createRequest: async (request, signal) => {
      await kube.client.create(request, { signal });
    },
    deleteRequest: async (namespace, name, uid, signal) => {
      await kube.client.delete({ ...type, name, namespace }, { preconditions: { uid }, signal });
    },
    watchRequests: (namespace, onChange, signal) =>
      watchScope({ client: kube.client, log: o.log }, 'console-tenant-extensions', type, { namespace }, onChange, signal),
  };
}
