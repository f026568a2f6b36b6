// Two catalogd processes (the real binary, cmd/catalogd/main.ts) against one control plane:
// both serve every catalog from their own store, only the leader writes status, a crashed
// leader is replaced within the lease duration, and a replica restarted on its old disk serves
// its content before it has talked to anything.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type KubeContext, connect } from '../../pkg/shared/kube/index.ts';
import { Reaper } from '../envtest/index.ts';
import { type CatalogdProcess, startCatalogdProcess } from '../support/catalogd.ts';
import { condition, pushCatalog, simpleCatalog, waitForCatalog, writeCatalogDir, writeCatalogFiles } from '../support/catalogs.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { withTempDir } from '../support/temp-dir.ts';

const id = randomBytes(3).toString('hex');
const NS = `catalogd-ha-${id}`;
const LEASE = `catalogd-ha-lock-${id}`;

type Replica = CatalogdProcess;

let kube: KubeContext;
let reaper: Reaper;
let work: string;
const replicas = new Map<string, Replica>();

async function startReplica(name: string, cacheDir?: string): Promise<Replica> {
  const replica = await startCatalogdProcess(inject('envtestControlPlane'), {
    name,
    workDir: work,
    reaper,
    cacheDir,
    flags: [`--system-namespace=${NS}`, `--external-address=catalogd.test`, `--leader-election-id=${LEASE}`],
  });
  replicas.set(name, replica);
  return replica;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, replica?: Replica): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(`timed out waiting for ${what}${replica === undefined ? '' : `\n${replica.proc.logTail(20)}`}`);
    },
    { timeout: timeoutMs, interval: 200 },
  );
}

async function all(r: Replica, catalog: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${r.port}/catalogs/${catalog}/api/v1/all`);
  return { status: res.status, body: await res.text() };
}

async function leader(): Promise<string> {
  const lease = await kube.client.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: NS, name: LEASE });
  return String((lease.spec as { holderIdentity?: string }).holderIdentity ?? '');
}

async function createCatalog(name: string, ref: string): Promise<void> {
  await kube.client.create({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name },
    spec: { source: { type: 'Image', image: { ref } } },
  });
}

beforeAll(async () => {
  const cp = inject('envtestControlPlane');
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  reaper = Reaper.start();
  work = await mkdtemp(join(tmpdir(), 'catalogd-ha-'));
  await Promise.all([startReplica('replica-a'), startReplica('replica-b')]);
});

afterAll(async () => {
  await Promise.all([...replicas.values()].map((r) => r.proc.stop()));
  kube?.close();
  await rm(work, { recursive: true, force: true });
});

describe('catalogd with two replicas', () => {
  const host = (): string => inject('envtestRegistries').anonymous.host;

  // The catalog both tests read; each waits for what it needs of it, so either runs alone.
  beforeAll(async () => {
    const ref = `${host()}/ha/first-${id}:v1`;
    await withTempDir('fbc-', async (dir) => pushCatalog(await writeCatalogFiles(dir, simpleCatalog('first', ['1.0.0'])), ref));
    await createCatalog(`first-${id}`, ref);
  });

  /** Waits until every running replica serves `catalog`. */
  async function servedByAll(catalog: string): Promise<void> {
    for (const r of replicas.values()) {
      await waitFor(`${r.name} to serve ${catalog}`, async () => (await all(r, catalog)).status === 200, 30_000, r);
    }
  }

  it('serves every catalog from both replicas', async () => {
    const cc = await waitForCatalog(kube.client, `first-${id}`, (c) => condition(c, 'Serving')?.status === 'True');
    expect((cc.status as { urls: { base: string } }).urls.base).toBe(`http://catalogd.test/catalogs/first-${id}`);
    await servedByAll(`first-${id}`);
    for (const r of replicas.values()) expect((await all(r, `first-${id}`)).body).toContain('"name":"first.v1.0.0"');
  });

  it('fails over to the other replica when the leader crashes', async () => {
    await servedByAll(`first-${id}`);
    await waitFor('a replica to hold the lease', async () => replicas.has(await leader().catch(() => '')), 40_000);
    const before = await leader();
    const crashed = replicas.get(before);
    expect(crashed).toBeDefined();
    process.kill(-(crashed?.proc.pid ?? 0), 'SIGKILL');
    await crashed?.proc.exited;
    replicas.delete(before);
    const [survivor] = [...replicas.values()];
    if (survivor === undefined) throw new Error('no surviving replica');
    // The survivor keeps serving while it waits for the lease to expire.
    expect((await all(survivor, `first-${id}`)).status).toBe(200);
    await waitFor('the survivor to take the lease', async () => (await leader()) === survivor.name, 40_000, survivor);

    const ref = `${host()}/ha/second-${id}:v1`;
    await pushCatalog(await writeCatalogDir(simpleCatalog('second', ['2.0.0'])), ref);
    await createCatalog(`second-${id}`, ref);
    await waitForCatalog(kube.client, `second-${id}`, (c) => condition(c, 'Serving')?.status === 'True');
    expect((await all(survivor, `second-${id}`)).status).toBe(200);

    // The crashed replica comes back on its old disk: old content at once, new content after sync.
    const back = await startReplica(before, crashed?.cacheDir);
    expect((await all(back, `first-${id}`)).status).toBe(200);
    await waitFor(`${before} to sync second-${id}`, async () => (await all(back, `second-${id}`)).status === 200, 30_000, back);
    expect(await leader()).toBe(survivor.name);
  });
});
