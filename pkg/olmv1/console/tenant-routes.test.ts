import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import type { TenantSources } from './tenant-sources.ts';
import { CATALOG_DISPLAY_NAME_ANNOTATION as DISPLAY, CATALOG_SOURCE_TYPE_ANNOTATION as SOURCE_TYPE } from '../install/index.ts';
import { startTestConsole, type TestConsole } from '../../../test/support/console-routes.ts';

const created: KubeObject[] = [];
const deleted: string[] = [];
const forbidden = (what: string) =>
  Object.assign(new Error(`${what} is forbidden: User "system:serviceaccount:team-a:tenant" cannot create resource`), { status: 403 });

const tenant: TenantSources = {
  available: async (namespace) =>
    namespace === 'locked'
      ? { ok: false, error: { what: 'namespace locked', message: 'namespaces "locked" is forbidden' } }
      : {
          ok: true,
          value: [
            {
              packageName: 'example',
              policy: 'tenants',
              versionRange: '<2.0.0',
              channels: [],
              catalogs: undefined,
              installModes: ['OwnNamespace'],
              upgrades: 'Automatic',
              versions: [{ version: '1.0.1', catalogs: ['c'] }],
              unread: [],
            },
          ],
        },
  requests: async (namespace) => {
    if (namespace === 'locked') throw forbidden('extensions.olm.operatorframework.io');
    return [];
  },
  // The community catalog serves `community-pkg`; any other package only a Custom catalog.
  servedBy: async (request) => [
    request.packageName === 'community-pkg'
      ? {
          apiVersion: 'olm.operatorframework.io/v1',
          kind: 'ClusterCatalog',
          metadata: { name: 'hub', annotations: { [SOURCE_TYPE]: 'Community', [DISPLAY]: 'Hub' } },
        }
      : { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', metadata: { name: 'own' } },
  ],
  createRequest: async (request) => {
    if (request.metadata.namespace === 'team-b') throw forbidden('extensions.olm.operatorframework.io');
    created.push(request);
  },
  deleteRequest: async (namespace, name, uid) => void deleted.push(`${namespace}/${name} ${uid}`),
  watchRequests: () => undefined,
};

let c: TestConsole;
beforeAll(async () => {
  c = await startTestConsole({ tenant });
});
afterAll(() => c.close());
const get = (path: string) => c.get(path);
const post = (path: string, body: unknown) => c.post(path, body);

describe("the Namespace page's routes", () => {
  it('answers what the policies allow and the requests in one document, and what could not be read as problems', async () => {
    const ok = await get('/api/namespaces/team-a');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      namespace: 'team-a',
      available: [{ packageName: 'example', versionRange: '<2.0.0' }],
      requests: [],
      problems: [],
    });
    const locked = (await (await get('/api/namespaces/locked')).json()) as { problems: string[] };
    expect(locked.problems).toEqual([
      'reading namespace locked: namespaces "locked" is forbidden',
      expect.stringMatching(/^listing Extensions in namespace locked: extensions.olm.operatorframework.io is forbidden/),
    ]);
    expect((await get('/api/namespaces/Not_A_Name')).status).toBe(400);
  });

  it('creates the Extension the form asks for, and answers a refusal with the API server’s status and words', async () => {
    const res = await post('/api/namespaces/team-a/requests', { name: 'ops', packageName: 'example', version: '1.0.1', channel: '' });
    expect(res.status).toBe(201);
    expect(created.at(-1)).toEqual({
      apiVersion: 'olm.operatorframework.io/v1alpha1',
      kind: 'Extension',
      metadata: { name: 'ops', namespace: 'team-a' },
      spec: { source: { sourceType: 'Catalog', catalog: { packageName: 'example', version: '1.0.1' } } },
    });
    const refused = await post('/api/namespaces/team-b/requests', { name: 'ops', packageName: 'example' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toMatch(/is forbidden: User "system:serviceaccount:team-a:tenant"/);
    const bad = await post('/api/namespaces/team-a/requests', { name: 'Ops!', packageName: 'example' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "name: lower-case letters, digits and '-', at most 63" });
    expect(created).toHaveLength(1);
  });

  it('refuses a request a Community catalog may serve in the words of olmv1 install --tenant, and creates it once acknowledged', async () => {
    const before = created.length;
    const refused = await post('/api/namespaces/team-a/requests', { name: 'hub', packageName: 'community-pkg' });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      error:
        "package community-pkg may resolve to ClusterCatalog hub (\"Hub\"), which the cluster's administrators mark as community content: its packages are not vetted or verified, and their support is the community's. Acknowledge it to install (olmv1 install --accept-community, or the console's checkbox)",
      community: true,
      catalog: 'Hub',
    });
    expect(created).toHaveLength(before);
    expect((await post('/api/namespaces/team-a/requests', { name: 'hub', packageName: 'community-pkg', acceptCommunity: 'yes' })).status).toBe(400);
    const accepted = await post('/api/namespaces/team-a/requests', { name: 'hub', packageName: 'community-pkg', acceptCommunity: true });
    expect(accepted.status).toBe(201);
    expect(created.at(-1)?.metadata).toEqual({ name: 'hub', namespace: 'team-a' });
  });

  it('removes only the request shown (its uid), refusing a removal without one', async () => {
    expect((await post('/api/namespaces/team-a/requests/ops/remove', {})).status).toBe(400);
    expect((await post('/api/namespaces/team-a/requests/ops/remove', { uid: 'u-1' })).status).toBe(202);
    expect(deleted).toEqual(['team-a/ops u-1']);
  });
});
