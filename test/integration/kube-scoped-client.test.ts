// Scoped clients on the shared kube-apiserver (decision 0003): requests carry only a
// TokenRequest token of the ServiceAccount, so RBAC answers 403 where it denies and the
// request succeeds where granted; tokens are refreshed early, a rejected token (401) is
// replaced once; SubjectAccessReviews agree with what actually happens.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  ServiceAccountNotFoundError,
  TokenGetter,
  anonymousChannels,
  bearerConnection,
  canI,
  connect,
  createScopedClientFactory,
  createTransport,
  isForbidden,
  isUnauthorized,
  serviceAccountSubject,
  type KubeContext,
  type ScopedClientFactory,
} from '../../pkg/shared/kube/index.ts';

const NS = `scoped-${randomBytes(3).toString('hex')}`;
const SA = 'installer';
const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
let kube: KubeContext;

beforeAll(async () => {
  kube = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
  const c = kube.client;
  await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await c.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA, namespace: NS } });
  for (const name of ['granted', 'denied']) await c.create({ ...CM, metadata: { name, namespace: NS }, data: { k: name } });
  await c.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'read-granted', namespace: NS },
    rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['granted'], verbs: ['get', 'patch'] }],
  });
  await c.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'read-granted', namespace: NS },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-granted' },
    subjects: [{ kind: 'ServiceAccount', name: SA, namespace: NS }],
  });
});
afterAll(() => kube?.close());

function factory(tokens: TokenGetter): ScopedClientFactory {
  return createScopedClientFactory({ base: kube.connection, mapper: kube.mapper, tokens });
}

describe('scoped ServiceAccount clients', () => {
  it('are allowed exactly what RBAC grants the ServiceAccount, with none of the admin rights', async () => {
    const scoped = factory(new TokenGetter({ client: kube.client }));
    const client = scoped.forServiceAccount(NS, SA);
    expect(scoped.forServiceAccount(NS, SA)).toBe(client);

    const got = await client.get({ ...CM, namespace: NS, name: 'granted' });
    expect(got.data).toEqual({ k: 'granted' });
    const applied = await client.apply(
      { ...CM, metadata: { name: 'granted', namespace: NS }, data: { k: 'by-sa' } },
      { fieldManager: 'olm', force: true },
    );
    expect(applied.data).toEqual({ k: 'by-sa' });

    const denied = await client.get({ ...CM, namespace: NS, name: 'denied' }).catch((e: unknown) => e);
    expect(isForbidden(denied)).toBe(true);
    expect((denied as Error).message).toBe(
      `configmaps "denied" is forbidden: User "system:serviceaccount:${NS}:${SA}" cannot get resource "configmaps" in API group "" in the namespace "${NS}"`,
    );
    expect(isForbidden(await client.list({ apiVersion: 'v1', kind: 'Namespace' }).catch((e: unknown) => e))).toBe(true);
    scoped.close();
  });

  it("names a missing ServiceAccount with upstream's message", async () => {
    const scoped = factory(new TokenGetter({ client: kube.client }));
    const err = await scoped
      .forServiceAccount(NS, 'ghost')
      .get({ ...CM, namespace: NS, name: 'granted' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceAccountNotFoundError);
    expect((err as Error).message).toBe(
      `service account "ghost" not found in namespace "${NS}": unable to authenticate with the Kubernetes cluster.`,
    );
    scoped.close();
  });

  it('refreshes tokens before they expire and replaces a rejected token once (401)', async () => {
    let offsetMs = 0;
    const tokens = new TokenGetter({ client: kube.client, now: () => Date.now() + offsetMs });
    const scoped = factory(tokens);
    const client = scoped.forServiceAccount(NS, SA);
    const read = (): Promise<unknown> => client.get({ ...CM, namespace: NS, name: 'granted' });
    await read();
    await read();
    expect(tokens.requestCount).toBe(1);

    offsetMs = 55 * 60_000; // less than 10% of the hour left
    await read();
    expect(tokens.requestCount).toBe(2);
    offsetMs = 0;

    // Re-creating the ServiceAccount invalidates its tokens (they are bound to the old UID).
    // The API server caches successful token reviews for a few seconds: wait until it
    // rejects the cached token, then the scoped client must recover by itself.
    const stale = await tokens.get(NS, SA);
    await kube.client.delete({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: NS, name: SA });
    await kube.client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA, namespace: NS } });
    const channels = anonymousChannels(kube.connection);
    const probe = createTransport(bearerConnection(kube.connection, channels, 'probe', async () => ({ Authorization: `Bearer ${stale}` })));
    const refused = async (): Promise<boolean> =>
      isUnauthorized(await probe.request('GET', `/api/v1/namespaces/${NS}/configmaps/granted`).catch((e: unknown) => e));
    await expect
      .poll(refused, { timeout: 30_000, interval: 100, message: 'the API server kept accepting the token of the deleted ServiceAccount' })
      .toBe(true);
    channels.close();
    expect(tokens.requestCount).toBe(2);
    await expect(read()).resolves.toBeDefined();
    expect(tokens.requestCount).toBe(3);
    scoped.close();
  });

  it('answers SubjectAccessReviews that match the enforced RBAC', async () => {
    const decisions = await canI(kube.client, serviceAccountSubject(NS, SA), [
      { verb: 'get', resource: 'configmaps', namespace: NS, name: 'granted' },
      { verb: 'get', resource: 'configmaps', namespace: NS, name: 'denied' },
      { verb: 'delete', resource: 'configmaps', namespace: NS, name: 'granted' },
      { verb: 'get', path: '/healthz' },
    ]);
    expect(decisions.map((d) => d.allowed)).toEqual([true, false, false, true]);
    expect(decisions[0]?.reason).toContain('read-granted');
  });
});
