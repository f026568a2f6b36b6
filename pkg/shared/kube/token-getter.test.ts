import { describe, expect, it } from 'vitest';
import { ApiError, ServiceAccountNotFoundError, TokenGetter, canI, serviceAccountSubject, type KubeClient, type KubeObject } from './index.ts';
import type { TokenRequestClient } from './token-getter.ts';

// A client whose TokenRequests mint numbered tokens valid for the requested lifetime from
// the fake clock; `missing` ServiceAccounts answer 404.
function tokenClient(clock: { now: number }, missing = new Set<string>()) {
  const calls: Array<{ path: string; body: unknown }> = [];
  let n = 0;
  const fake: TokenRequestClient = {
    createSubresource: async <T>(ref: { namespace?: string | undefined; name: string }, sub: string, body: unknown): Promise<T> => {
      calls.push({ path: `${ref.namespace}/${ref.name}/${sub}`, body });
      if (missing.has(ref.name)) throw new ApiError(404, 'NotFound', `serviceaccounts "${ref.name}" not found`);
      const seconds = (body as { spec: { expirationSeconds: number } }).spec.expirationSeconds;
      return { status: { token: `tok-${++n}`, expirationTimestamp: new Date(clock.now + seconds * 1000).toISOString() } } as T;
    },
  };
  return { client: fake, calls };
}

describe('TokenGetter', () => {
  it('requests a 1 h token once and serves it from the cache until <10% of the lifetime remains', async () => {
    const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
    const { client, calls } = tokenClient(clock);
    const tokens = new TokenGetter({ client, now: () => clock.now });
    expect(await tokens.get('ns', 'sa')).toBe('tok-1');
    expect(calls[0]).toEqual({
      path: 'ns/sa/token',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    });
    clock.now += 53 * 60_000; // 7 min left > 6 min
    expect(await tokens.get('ns', 'sa')).toBe('tok-1');
    clock.now += 2 * 60_000; // 5 min left < 6 min
    expect(await tokens.get('ns', 'sa')).toBe('tok-2');
    expect(await tokens.get('ns', 'other')).toBe('tok-3'); // cached per ServiceAccount
    expect(tokens.requestCount).toBe(3);
  });

  it('reaps expired tokens at most once per tenth of the lifetime, and never hands one out', async () => {
    const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
    const { client } = tokenClient(clock);
    const tokens = new TokenGetter({ client, now: () => clock.now, expirationSeconds: 600 });
    expect(await tokens.get('ns', 'a')).toBe('tok-1');
    expect(await tokens.get('ns', 'b')).toBe('tok-2');
    clock.now += 30_000;
    expect(await tokens.get('ns', 'c')).toBe('tok-3');
    clock.now += 571_000; // a and b expired 1 s ago, c has 29 s left (< 10 %)
    expect(await tokens.get('ns', 'a')).toBe('tok-4'); // reaps a and b, requests a anew
    expect(tokens.cachedCount).toBe(2);
    clock.now += 30_000; // c expired; the next reap is due 60 s after the last
    expect(await tokens.get('ns', 'a')).toBe('tok-4');
    expect(tokens.cachedCount).toBe(2);
    expect(await tokens.get('ns', 'c')).toBe('tok-5'); // expired, not handed out
    clock.now += 31_000;
    await tokens.get('ns', 'a');
    expect(tokens.cachedCount).toBe(2);
    tokens.evict('ns', 'c');
    expect(tokens.cachedCount).toBe(1);
  });

  it('shares one request between concurrent callers and re-requests after evict', async () => {
    const clock = { now: Date.now() };
    const { client, calls } = tokenClient(clock);
    const tokens = new TokenGetter({ client, now: () => clock.now });
    const got = await Promise.all([tokens.get('ns', 'sa'), tokens.get('ns', 'sa'), tokens.get('ns', 'sa')]);
    expect(got).toEqual(['tok-1', 'tok-1', 'tok-1']);
    expect(calls).toHaveLength(1);
    tokens.evict('ns', 'sa');
    expect(await tokens.get('ns', 'sa')).toBe('tok-2');
  });

  it("reports a missing ServiceAccount with upstream's message", async () => {
    const { client } = tokenClient({ now: Date.now() }, new Set(['ghost']));
    const err = await new TokenGetter({ client }).get('team-a', 'ghost').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceAccountNotFoundError);
    expect((err as Error).message).toBe(
      'service account "ghost" not found in namespace "team-a": unable to authenticate with the Kubernetes cluster.',
    );
  });
});

describe('canI', () => {
  it('sends one SubjectAccessReview per attribute set and returns decisions in order', async () => {
    const sent: KubeObject[] = [];
    const fake: Pick<KubeClient, 'create'> = {
      create: async <T extends KubeObject>(obj: KubeObject) => {
        sent.push(obj);
        const attrs = (obj.spec as { resourceAttributes?: { verb: string } }).resourceAttributes;
        if (attrs?.verb === 'get') await new Promise((r) => setImmediate(r)); // finish out of order: the others first
        return {
          ...obj,
          status: { allowed: attrs?.verb === 'get', reason: attrs?.verb === 'get' ? 'RBAC: allowed by RoleBinding' : '' },
        } as KubeObject as T;
      },
    };
    const subject = serviceAccountSubject('ns', 'installer');
    const out = await canI(fake, subject, [
      { verb: 'get', group: 'apps', resource: 'deployments', namespace: 'ns', name: 'd' },
      { verb: 'delete', resource: 'configmaps', namespace: 'ns' },
      { verb: 'get', path: '/healthz' },
    ]);
    expect(out.map((d) => d.allowed)).toEqual([true, false, false]);
    expect(out[0]?.reason).toBe('RBAC: allowed by RoleBinding');
    expect(sent[0]).toMatchObject({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'system:serviceaccount:ns:installer',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'],
        resourceAttributes: { verb: 'get', group: 'apps', resource: 'deployments', namespace: 'ns', name: 'd' },
      },
    });
    expect(sent[1]?.spec).toMatchObject({ resourceAttributes: { verb: 'delete', group: '', resource: 'configmaps' } });
    expect(sent[2]?.spec).toMatchObject({ nonResourceAttributes: { path: '/healthz', verb: 'get' } });
  });
});
