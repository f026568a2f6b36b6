// The watch-connection budget (decision 0065) on the real API server: 400 watches of
// ServiceAccount-scoped clients (5 ServiceAccounts x 10 namespaces x 8 kinds, as drift repair
// of 50 extensions would open per ServiceAccount, kind and namespace) are open at once, and
// server-side applies and GETs through the same scoped clients still complete promptly,
// because watches are HTTP/2 streams on their own channel and never hold a request socket.
// Before, with one 64-socket HTTP/1.1 agent for both, the 65th watch on queued every request
// forever. Afterwards every watch still delivers events.
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import {
  connect,
  createScopedClientFactory,
  isForbidden,
  TokenGetter,
  type KubeContext,
  type KubeObject,
  type ScopedClientFactory,
  type TypeRef,
} from '../../pkg/shared/kube/index.ts';

const ID = randomBytes(3).toString('hex');
const SA_NS = `budget-${ID}-sa`;
const SAS = ['sa-0', 'sa-1', 'sa-2', 'sa-3', 'sa-4'];
const NAMESPACES = Array.from({ length: 10 }, (_, i) => `budget-${ID}-${i}`);
const SEED = 'seed';
const labels = { app: 'budget' };
const podTemplate = { metadata: { labels }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'example.com/c:1' }] } };

// One seed object per kind and namespace: each watch's initial ADDED event proves it is open.
const KINDS: Array<{ type: TypeRef; seed: (ns: string) => KubeObject }> = [
  {
    type: { apiVersion: 'v1', kind: 'ConfigMap' },
    seed: (ns) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: SEED, namespace: ns }, data: { k: 'v' } }),
  },
  {
    type: { apiVersion: 'v1', kind: 'Secret' },
    seed: (ns) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: SEED, namespace: ns }, stringData: { k: 'v' } }),
  },
  {
    type: { apiVersion: 'v1', kind: 'Service' },
    seed: (ns) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: SEED, namespace: ns }, spec: { ports: [{ port: 80 }], selector: labels } }),
  },
  {
    type: { apiVersion: 'v1', kind: 'ServiceAccount' },
    seed: (ns) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SEED, namespace: ns } }),
  },
  {
    type: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' },
    seed: (ns) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: SEED, namespace: ns }, rules: [] }),
  },
  {
    type: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' },
    seed: (ns) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: SEED, namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: SEED },
      subjects: [{ kind: 'ServiceAccount', name: SEED, namespace: ns }],
    }),
  },
  {
    type: { apiVersion: 'apps/v1', kind: 'Deployment' },
    seed: (ns) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: SEED, namespace: ns },
      spec: { replicas: 0, selector: { matchLabels: labels }, template: { ...podTemplate, spec: { containers: podTemplate.spec.containers } } },
    }),
  },
  {
    type: { apiVersion: 'batch/v1', kind: 'Job' },
    seed: (ns) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: SEED, namespace: ns }, spec: { suspend: true, template: podTemplate } }),
  },
];

let kube: KubeContext;
let scoped: ScopedClientFactory;
const stop = new AbortController();

beforeAll(async () => {
  kube = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
  const c = kube.client;
  const rbac = 'rbac.authorization.k8s.io/v1';
  await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: SA_NS } });
  await Promise.all(SAS.map((name) => c.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: SA_NS } })));
  await c.create({
    apiVersion: rbac,
    kind: 'ClusterRole',
    metadata: { name: `budget-${ID}` },
    rules: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch'] },
      { apiGroups: [''], resources: ['secrets', 'services', 'serviceaccounts'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch'] },
    ],
  });
  await Promise.all(
    NAMESPACES.map(async (ns) => {
      await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      await c.create({
        apiVersion: rbac,
        kind: 'RoleBinding',
        metadata: { name: 'budget', namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `budget-${ID}` },
        subjects: SAS.map((name) => ({ kind: 'ServiceAccount', name, namespace: SA_NS })),
      });
      for (const k of KINDS) await c.create(k.seed(ns));
    }),
  );
  scoped = createScopedClientFactory({ base: kube.connection, mapper: kube.mapper, tokens: new TokenGetter({ client: kube.client }) });
  // New RBAC takes effect asynchronously (decision 0043 item 6): wait until every binding works.
  for (const sa of SAS) {
    for (const ns of NAMESPACES) {
      await vi.waitFor(
        async () => {
          const res = await scoped
            .forServiceAccount(SA_NS, sa)
            .list({ apiVersion: 'batch/v1', kind: 'Job' }, { namespace: ns })
            .catch((e: unknown) => e);
          if (isForbidden(res)) throw new Error(`RBAC for ${sa} in ${ns} has not taken effect`);
        },
        { timeout: 10_000, interval: 100 },
      );
    }
  }
}, 60_000);

afterAll(async () => {
  stop.abort();
  scoped?.close();
  if (kube !== undefined)
    await Promise.all([SA_NS, ...NAMESPACES].map((name) => kube.client.delete({ apiVersion: 'v1', kind: 'Namespace', name }).catch(() => undefined)));
  kube?.close();
});

interface OpenWatch {
  events: Array<{ type: string; name: string; marker: string | undefined }>;
  error: unknown;
  opened: Promise<void>;
}

function openWatch(sa: string, ns: string, type: TypeRef): OpenWatch {
  const w: OpenWatch = { events: [], error: undefined, opened: Promise.resolve() };
  w.opened = new Promise<void>((resolve, reject) => {
    void (async () => {
      try {
        for await (const ev of scoped.forServiceAccount(SA_NS, sa).watch(type, { namespace: ns, signal: stop.signal, timeoutSeconds: 300 })) {
          w.events.push({ type: ev.type, name: ev.object.metadata?.name ?? '', marker: ev.object.metadata?.annotations?.['budget/marker'] });
          if (ev.type === 'ADDED' && ev.object.metadata?.name === SEED) resolve();
        }
      } catch (err) {
        w.error = err;
        reject(err as Error);
      }
    })();
  });
  w.opened.catch(() => undefined);
  return w;
}

const openFds = (): number => readdirSync('/proc/self/fd').length;

async function waitFor(what: string, ok: () => boolean, ms: number): Promise<void> {
  await expect.poll(ok, { timeout: ms, interval: 50, message: `waiting for ${what}` }).toBe(true);
}

describe('watch-connection budget', () => {
  it('keeps 400 ServiceAccount watches open while applies and GETs through the same clients complete promptly', async () => {
    const fdsBefore = openFds();
    const t0 = performance.now();
    const watches: OpenWatch[] = [];
    for (const sa of SAS) for (const ns of NAMESPACES) for (const k of KINDS) watches.push(openWatch(sa, ns, k.type));
    expect(watches).toHaveLength(400);
    await Promise.all(watches.map((w) => w.opened));
    const openMs = performance.now() - t0;
    const stats = scoped.watchStats();
    // kube-apiserver allows 100 streams per HTTP/2 connection: 400 watches fit in 4 sockets.
    expect(stats).toMatchObject({ protocol: 'h2', streams: 400 });
    expect(stats.connections).toBeLessThanOrEqual(5);
    const fdDelta = openFds() - fdsBefore;
    expect(fdDelta).toBeLessThan(40);

    // 40 server-side applies and 40 GETs as the watching ServiceAccounts, all at once.
    const timed = async (op: () => Promise<unknown>): Promise<number> => {
      const start = performance.now();
      await op();
      return performance.now() - start;
    };
    const t1 = performance.now();
    const latencies = await Promise.all([
      ...Array.from({ length: 40 }, (_, i) =>
        timed(() =>
          scoped.forServiceAccount(SA_NS, SAS[i % SAS.length] as string).apply(
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: `applied-${i}`, namespace: NAMESPACES[i % NAMESPACES.length] },
              data: { i: String(i) },
            },
            { fieldManager: 'budget', force: true, signal: AbortSignal.timeout(10_000) },
          ),
        ),
      ),
      ...Array.from({ length: 40 }, (_, i) =>
        timed(() =>
          scoped
            .forServiceAccount(SA_NS, SAS[i % SAS.length] as string)
            .get(
              { apiVersion: 'v1', kind: 'ConfigMap', namespace: NAMESPACES[i % NAMESPACES.length], name: SEED },
              { signal: AbortSignal.timeout(10_000) },
            ),
        ),
      ),
    ]);
    const batchMs = performance.now() - t1;
    // Each request completed within its own 10 s timeout; how fast is reported, not judged.
    const slowest = Math.max(...latencies);
    console.log(
      `400 watches open in ${Math.round(openMs)} ms over ${stats.connections} HTTP/2 connections (+${fdDelta} fds); 80 requests in ${Math.round(batchMs)} ms, slowest ${Math.round(slowest)} ms`,
    );

    // Every watch still delivers: annotate each seed object, each of its 5 watchers sees it.
    await Promise.all(
      NAMESPACES.flatMap((ns) =>
        KINDS.map((k) =>
          kube.client.patch({ ...k.type, namespace: ns, name: SEED }, { metadata: { annotations: { 'budget/marker': 'after' } } }, 'merge'),
        ),
      ),
    );
    await waitFor(
      'a MODIFIED event on every watch',
      () => watches.every((w) => w.events.some((e) => e.type === 'MODIFIED' && e.marker === 'after')),
      20_000,
    );
    expect(watches.filter((w) => w.error !== undefined)).toEqual([]);
    // The applied ConfigMaps reached the ConfigMap watches of their namespaces too.
    const cmWatches = watches.filter((_, i) => i % KINDS.length === 0);
    expect(cmWatches.every((w) => w.events.filter((e) => e.type === 'ADDED' && e.name.startsWith('applied-')).length === 4)).toBe(true);
  }, 60_000);
});
