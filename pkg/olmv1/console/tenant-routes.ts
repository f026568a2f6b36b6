/**
 * The Namespace page's routes (issue 73, decision 0138): a namespace's available packages and
 * Extensions in one document, a change stream of its Extensions, and a request created or
 * removed, each as the signed-in user through TenantSources. A request a ClusterCatalog marked
 * Community may serve is refused (409, `community: true`, the catalog's display name) unless the
 * body says `acceptCommunity`: the check `olmv1 install --tenant` makes (decision 0148). A namespace's admin installs what
 * the policies allow without any cluster rights; what the API server or its admission refuses
 * is answered with its status and words.
 */
import { z } from 'zod';
import { errorMessage } from '../../shared/errors/index.ts';
import { extensionInstallRequest, extensionRequest, tenantCommunityRefusal } from '../tenant/index.ts';
import { json } from './api-routes.ts';
import { createChangeFeed, streamChanges } from './live.ts';
import { route, type Route } from './routes.ts';
import type { TenantSources } from './tenant-sources.ts';

/** A DNS-1123 label: a namespace's name, and an Extension's (its ClusterExtension's name is made from both). */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const NOT_A_NAMESPACE = { error: 'not a namespace name' };

const label = (what: string) => z.string({ error: `${what}: required` }).regex(DNS_LABEL, `${what}: lower-case letters, digits and '-', at most 63`);
const requestBody = z.object({
  name: label('name'),
  packageName: z.string({ error: 'packageName: required' }).min(1, 'packageName: required').max(253, 'packageName: at most 253 characters'),
  version: z.string().max(256, 'version: at most 256 characters').optional(),
  channel: z.string().max(253, 'channel: at most 253 characters').optional(),
  acceptCommunity: z.boolean({ error: 'acceptCommunity: true or false' }).optional(),
});
const removeBody = z.object({
  uid: z.string({ error: 'the uid of the Extension shown is required' }).min(1, 'the uid of the Extension shown is required'),
});

/** The routes over `tenant`; none when this console has no tenant sources. */
export function tenantRoutes(tenant: TenantSources | undefined): Route[] {
  if (tenant === undefined) return [];
  const read = (): AbortSignal => AbortSignal.timeout(60_000);
  return [
    route({
      method: 'GET',
      path: '/api/namespaces/:namespace',
      handle: async ({ res, params }) => {
        const namespace = params.namespace ?? '';
        if (!DNS_LABEL.test(namespace)) return json(res, 400, NOT_A_NAMESPACE);
        const signal = read();
        const [available, requests] = await Promise.all([
          tenant.available(namespace, signal),
          tenant.requests(namespace, signal).then(
            (value) => ({ ok: true as const, value }),
            (e: unknown) => ({ ok: false as const, error: errorMessage(e) }),
          ),
        ]);
        json(res, 200, {
          namespace,
          available: available.ok ? available.value : [],
          requests: requests.ok ? requests.value : [],
          problems: [
            ...(available.ok ? [] : [`reading ${available.error.what}: ${available.error.message}`]),
            ...(requests.ok ? [] : [`listing Extensions in namespace ${namespace}: ${requests.error}`]),
          ],
        });
      },
    }),
    route({
      method: 'GET',
      path: '/api/namespaces/:namespace/events',
      handle: async ({ res, params }) => {
        const namespace = params.namespace ?? '';
        if (!DNS_LABEL.test(namespace)) return json(res, 400, NOT_A_NAMESPACE);
        const feed = createChangeFeed((emit, stop) =>
          tenant.watchRequests(namespace, () => emit({ topic: 'extensions', kind: 'Extension', name: namespace }), stop),
        );
        streamChanges(feed, res, () => feed.close());
      },
    }),
    route({
      method: 'POST',
      path: '/api/namespaces/:namespace/requests',
      body: requestBody,
      handle: async ({ res, params, body }) => {
        const namespace = params.namespace ?? '';
        if (!DNS_LABEL.test(namespace)) return json(res, 400, NOT_A_NAMESPACE);
        const { acceptCommunity, ...form } = body;
        const signal = read();
        const request = extensionInstallRequest({ namespace, ...form });
        const community = tenantCommunityRefusal(await tenant.servedBy(request, signal), request.packageName);
        if (community !== undefined && acceptCommunity !== true)
          return json(res, 409, { error: community.message, community: true, catalog: community.catalog });
        await tenant.createRequest(extensionRequest({ namespace, ...form }), signal);
        json(res, 201, { created: `${namespace}/${body.name}` });
      },
    }),
    route({
      method: 'POST',
      path: '/api/namespaces/:namespace/requests/:name/remove',
      body: removeBody,
      handle: async ({ res, params, body }) => {
        const namespace = params.namespace ?? '';
        const name = params.name ?? '';
        if (!DNS_LABEL.test(namespace) || !DNS_LABEL.test(name)) return json(res, 400, { error: 'not a namespace and Extension name' });
        await tenant.deleteRequest(namespace, name, body.uid, read());
        json(res, 202, { deleting: `${namespace}/${name}` });
      },
    }),
  ];
}
