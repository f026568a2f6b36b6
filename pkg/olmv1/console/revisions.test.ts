import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { CLUSTER_EXTENSION } from '../../shared/api/index.ts';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import { createRevisionReader } from '../../operator-controller/revisions/index.ts';
import { clusterExtension, objectSet, objectSetHistory, seedHelmHistory } from '../../../test/support/revision-fixtures.ts';
import { startConsole } from './server.ts';
import { sessionCookieName } from './security.ts';

const csrf = 'c'.repeat(43);
const secrets = { token: 'a'.repeat(43), cookie: 'b'.repeat(43), pageKey: 'k'.repeat(43), csrfToken: csrf, iconKey: 'i'.repeat(43) };
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** A console over `cluster` whose history is read as cmd/olmv1/console.ts would read it with the revision reader. */
async function consoleOn(cluster: FakeCluster, rollbacks: [string, number][]) {
  const dir = await mkdtemp(join(tmpdir(), 'console-revisions-'));
  const reader = createRevisionReader({ client: cluster.client, namespace: 'olmv1-system' });
  const running = await startConsole({
    port: 0,
    secrets,
    assetsDir: dir,
    log: pino({ level: 'silent' }),
    catalogTtlMs: 30_000,
    now: () => Date.now(),
    sources: {
      listCatalogs: async () => [],
      loadCatalog: async () => ({ packageNames: [], load: () => Promise.reject(new Error('none')) }),
      listExtensions: async () => (await cluster.client.listAll(CLUSTER_EXTENSION)).items,
      getExtension: (name, signal) => cluster.client.get({ ...CLUSTER_EXTENSION, name }, { signal }),
      extensionEvents: async () => [],
      releaseHistory: (name, signal) => reader.history(name, { signal }),
      revisionHistory: (name, signal) => reader.revisions(name, { signal }),
      objectScope: async () => true,
      getObject: (ref, signal) => cluster.client.get({ ...ref }, { signal }),
      rollback: async (extension, revision) => {
        rollbacks.push([extension, revision]);
        return { ok: true, report: 'Rolling back.\n' };
      },
      crdPreview: async (extension) => ({ extension, crds: [], refusals: [], unchecked: [] }),
      installerObjects: async () => [],
      deleteExtension: async () => undefined,
      installState: () => ({ state: 'installed', progress: '' }),
      install: async () => ({ ok: false, error: 'no' }),
    },
  });
  stop = async () => {
    await running.close();
    await rm(dir, { recursive: true, force: true });
  };
  const headers = { cookie: `${sessionCookieName(new URL(running.origin).port)}=${secrets.cookie}`, 'x-olmv1-session': secrets.pageKey };
  return {
    get: async (path: string) => {
      const res = await fetch(`${running.origin}${path}`, { headers });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    post: async (path: string, body: unknown) => {
      const res = await fetch(`${running.origin}${path}`, {
        method: 'POST',
        headers: { ...headers, origin: running.origin, 'x-csrf-token': csrf, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
  };
}

function seeded(options: Parameters<typeof fakeCluster>[0] = {}): FakeCluster {
  const cluster = fakeCluster(options);
  cluster.seed(clusterExtension('helmy'));
  return cluster;
}

describe('console: an extension whose revisions are ClusterObjectSets (BoxcutterRuntime)', () => {
  it('shows its history from them, each row with its ClusterObjectSet, lifecycle state, Available and Progressing', async () => {
    const cluster = seeded();
    cluster.seed(clusterExtension('boxy'));
    for (const set of [...objectSetHistory('boxy'), objectSet('boxy', 3, '1.2.0', 'rolling-out')]) cluster.seed(set);
    const c = await consoleOn(cluster, []);
    const detail = await c.get('/api/extensions/boxy');
    expect(detail.status).toBe(200);
    expect(detail.body.problems).toEqual([]);
    const rows = detail.body.releases as { revision: number; status: string; version: string; objectSet?: unknown }[];
    expect(rows.map((r) => [r.revision, r.status, r.version, r.objectSet])).toEqual([
      [
        3,
        'pending-upgrade',
        '1.2.0',
        { name: 'boxy-3', revision: 3, lifecycleState: 'Active', available: 'False (ProbeFailure)', progressing: 'True' },
      ],
      [2, 'deployed', '1.1.0', { name: 'boxy-2', revision: 2, lifecycleState: 'Active', available: 'True', progressing: 'True' }],
      [1, 'superseded', '1.0.0', { name: 'boxy-1', revision: 1, lifecycleState: 'Archived', available: 'True', progressing: 'True' }],
    ]);
    expect(detail.body).not.toHaveProperty('rollbackRefusal');
  });

  it("reads the deployed revision's objects from its ClusterObjectSet", async () => {
    const cluster = seeded();
    cluster.seed(clusterExtension('boxy'));
    for (const set of objectSetHistory('boxy')) cluster.seed(set);
    cluster.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'demo-ns' }, data: { version: '1.1.0' } });
    const c = await consoleOn(cluster, []);
    const objects = await c.get('/api/extensions/boxy/objects');
    expect(objects.body.revision).toBe(2);
    expect((objects.body.objects as { kind: string; name: string; health: string }[]).map((o) => [o.kind, o.name, o.health])).toEqual([
      ['ConfigMap', 'settings', 'Present'],
    ]);
  });

  it('rolls back through the service, as for Helm records', async () => {
    const cluster = seeded();
    cluster.seed(clusterExtension('boxy'));
    for (const set of objectSetHistory('boxy')) cluster.seed(set);
    const rollbacks: [string, number][] = [];
    const c = await consoleOn(cluster, rollbacks);
    const done = await c.post('/api/extensions/boxy/rollback', { revision: 1 });
    expect(done.status).toBe(200);
    expect(rollbacks).toEqual([['boxy', 1]]);
  });
});

describe('console: an extension whose revisions are Helm records', () => {
  it.each([
    ['no extension has ClusterObjectSets', {}],
    ['the cluster does not serve ClusterObjectSets', { unserved: ['olm.operatorframework.io/v1/ClusterObjectSet'] }],
  ])('shows them as before and rolls back through the service (%s)', async (_, options) => {
    const cluster = seeded(options);
    await seedHelmHistory(cluster.client, 'helmy');
    const rollbacks: [string, number][] = [];
    const c = await consoleOn(cluster, rollbacks);
    const detail = await c.get('/api/extensions/helmy');
    expect(detail.body.problems).toEqual([]);
    expect(detail.body).not.toHaveProperty('rollbackRefusal');
    const rows = detail.body.releases as Record<string, unknown>[];
    expect(rows.map((r) => Object.keys(r))).toEqual([
      ['revision', 'status', 'bundle', 'version', 'description', 'updated', 'objects'],
      ['revision', 'status', 'bundle', 'version', 'description', 'updated', 'objects'],
    ]);
    expect(rows.map((r) => [r.revision, r.status])).toEqual([
      [2, 'deployed'],
      [1, 'superseded'],
    ]);
    const ok = await c.post('/api/extensions/helmy/rollback', { revision: 1 });
    expect(ok.status).toBe(200);
    expect(rollbacks).toEqual([['helmy', 1]]);
  });
});
