// One bad catalog never starves the others: catalogd (the real binary, cmd/catalogd/main.ts)
// against the real API server and registry, with one catalog whose image is served through a
// hostile registry front (test/support/slow-registry.ts) that trickles its layer a byte a
// second and never finishes it. With one worker and no ingest timeout, that catalog would hold
// catalogd's only worker forever and no other catalog would ever be served.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type KubeContext, type KubeObject, connect, isNotFound } from '../../pkg/shared/kube/index.ts';
import { type ManagedProcess, Reaper } from '../envtest/index.ts';
import { type CatalogdProcess as Catalogd, startCatalogdProcess } from '../support/catalogd.ts';
import { condition, pushCatalog, simpleCatalog, waitForCatalog, writeCatalogFiles } from '../support/catalogs.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { type SlowDownload, type SlowRegistry, startSlowRegistry } from '../support/slow-registry.ts';
import { withTempDir } from '../support/temp-dir.ts';

const CC = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog' };
const id = randomBytes(3).toString('hex');
const LABEL = 'test.olmv1/hostile-suite';

let kube: KubeContext;
let reaper: Reaper;
let work: string;
let slow: SlowRegistry;
let anon: string;

function startCatalogd(name: string, flags: string[]): Promise<Catalogd> {
  return startCatalogdProcess(inject('envtestControlPlane'), { name, workDir: work, reaper, flags: ['--leader-elect=false', ...flags] });
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, proc?: ManagedProcess): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(`timed out waiting for ${what}${proc === undefined ? '' : `\n${proc.logTail(30)}`}`);
    },
    { timeout: timeoutMs, interval: 200 },
  );
}

async function createCatalog(name: string, ref: string): Promise<void> {
  await kube.client.create({ ...CC, metadata: { name, labels: { [LABEL]: id } }, spec: { source: { type: 'Image', image: { ref } } } });
}

/** Pushes a valid one-package catalog for `name` to the real registry; returns its reference there. */
async function pushValid(name: string, pkg: string): Promise<string> {
  const ref = `${anon}/valid/${name}:v1`;
  await withTempDir('fbc-', async (dir) => pushCatalog(await writeCatalogFiles(dir, simpleCatalog(pkg, ['1.0.0'])), ref));
  return ref;
}

/** Pushes a valid catalog for `name` and returns its reference through the slow front. */
async function pushHostile(name: string): Promise<string> {
  const files = simpleCatalog(`${name}-pkg`, ['1.0.0']);
  await withTempDir('fbc-', async (dir) => pushCatalog(await writeCatalogFiles(dir, files), `${anon}/hostile/${name}:v1`));
  slow.slowDown(`hostile/${name}`);
  return `${slow.host}/hostile/${name}:v1`;
}

const serving = (cc: KubeObject): boolean => condition(cc, 'Serving')?.status === 'True';
const downloadsOf = (name: string): SlowDownload[] => slow.downloads.filter((d) => d.repo === `hostile/${name}`);
const inFlight = (name: string): boolean => downloadsOf(name).some((d) => d.endedAt === undefined);

async function all(c: Catalogd, name: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${c.port}/catalogs/${name}/api/v1/all`);
  return { status: res.status, body: await res.text() };
}

/** Entries of `dir`, or [] when it does not exist. */
async function entries(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

/**
 * Deletes this file's catalogs while `c` runs (it removes their finalizers) and waits until
 * they are gone; if `c` cannot, removes the finalizers itself so that no later suite meets them.
 */
async function deleteCatalogs(c: Catalogd | undefined): Promise<void> {
  const mine = async (): Promise<KubeObject[]> => (await kube.client.list(CC, { labelSelector: `${LABEL}=${id}` })).items;
  for (const item of await mine()) await kube.client.delete({ ...CC, name: item.metadata.name ?? '' }).catch(() => undefined);
  try {
    await waitFor('the catalogs to be deleted', async () => (await mine()).length === 0, 60_000, c?.proc);
  } finally {
    for (const item of await mine()) {
      await kube.client.patch({ ...CC, name: item.metadata.name ?? '' }, { metadata: { finalizers: null } }, 'merge').catch(() => undefined);
    }
  }
}

beforeAll(async () => {
  const cp = inject('envtestControlPlane');
  anon = inject('envtestRegistries').anonymous.host;
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  reaper = Reaper.start();
  work = await mkdtemp(join(tmpdir(), 'catalogd-hostile-'));
  slow = await startSlowRegistry(anon);
});

afterAll(async () => {
  await slow?.close();
  kube?.close();
  await rm(work, { recursive: true, force: true });
});

describe('catalogd with its default workers and ingest timeout, and a catalog whose image never finishes downloading', () => {
  let catalogd: Catalogd;
  const hostile = `stuck-${id}`;
  const valid = [1, 2, 3].map((n) => `valid${n}-${id}`);

  // Every test below runs beside the same stuck download; each mid-download change uses a
  // catalog of its own, so any one test runs alone.
  beforeAll(async () => {
    catalogd = await startCatalogd(`catalogd-defaults-${id}`, []);
    const hostileRef = await pushHostile(hostile);
    const refs = await Promise.all(valid.map((name, i) => pushValid(name, `pkg${i + 1}`)));
    // The hostile catalog first: it is then ahead of the others in catalogd's queue.
    await createCatalog(hostile, hostileRef);
    await Promise.all(valid.map((name, i) => createCatalog(name, refs[i] ?? '')));
  });

  afterAll(async () => {
    await deleteCatalogs(catalogd);
    await catalogd?.proc.stop();
  });

  /** Entries of catalogd's store that are partial versions of `name` (written, not yet renamed into place). */
  const partialVersionsOf = async (name: string): Promise<string[]> =>
    (await entries(join(catalogd.cacheDir, 'catalogs'))).filter((e) => e.startsWith('.') && e.includes(name));

  it('serves three valid catalogs applied with it while its download runs, and keeps serving them', async () => {
    await waitFor(`the download of ${hostile}'s layer`, () => inFlight(hostile), 30_000, catalogd.proc);
    for (const name of valid) await waitForCatalog(kube.client, name, serving, 60_000);
    // Served while the hostile catalog's download still runs: by another worker, not after a timeout.
    expect(inFlight(hostile)).toBe(true);
    expect(downloadsOf(hostile)).toHaveLength(1);
    const stuck = await kube.client.get({ ...CC, name: hostile });
    expect(condition(stuck, 'Serving')).toBeUndefined();
    expect(condition(stuck, 'Progressing')).toBeUndefined();

    // Keeps serving: a later spec change of one valid catalog is reconciled (its conditions
    // reach the new generation) while the download still holds the other worker; by then
    // catalogd has handled everything queued before it, and the valid catalogs are unchanged.
    const [first = ''] = valid;
    await kube.client.patch({ ...CC, name: first }, { spec: { priority: 1 } }, 'merge');
    const reconciled = (cc: KubeObject): boolean => serving(cc) && condition(cc, 'Progressing')?.observedGeneration === cc.metadata.generation;
    await waitForCatalog(kube.client, first, reconciled, 60_000);
    for (const [i, name] of valid.entries()) {
      expect(serving(await kube.client.get({ ...CC, name }))).toBe(true);
      const res = await all(catalogd, name);
      expect(res.status).toBe(200);
      expect(res.body).toContain(`"name":"pkg${i + 1}.v1.0.0"`);
    }
    expect(inFlight(hostile)).toBe(true);
    expect(downloadsOf(hostile)).toHaveLength(1);
  }, 240_000); // generous: three ingests on a busy machine

  it('cancels the ingest when the spec changes mid-download, and serves the new image', async () => {
    const name = `changed-${id}`;
    await createCatalog(name, await pushHostile(name));
    await waitFor(`the download of ${name}'s layer`, () => inFlight(name), 30_000, catalogd.proc);
    const fixed = await pushValid(`fixed-${id}`, 'fixed');
    await kube.client.patch({ ...CC, name }, { spec: { source: { type: 'Image', image: { ref: fixed } } } }, 'merge');
    await waitFor(`the download of ${name}'s layer to stop`, () => !inFlight(name), 30_000, catalogd.proc);
    const cc = await waitForCatalog(kube.client, name, serving, 60_000);
    expect((cc.status as { resolvedSource: { image: { ref: string } } }).resolvedSource.image.ref).toContain(`${anon}/valid/fixed-${id}@sha256:`);
    expect(condition(cc, 'Progressing')).toMatchObject({ status: 'True', reason: 'Succeeded', observedGeneration: cc.metadata.generation });
    expect((await all(catalogd, name)).body).toContain('"name":"fixed.v1.0.0"');
    // The cancelled ingest left no partial version and no partial unpack behind.
    expect(await partialVersionsOf(name)).toEqual([]);
    expect(await entries(join(catalogd.cacheDir, 'unpack', name))).toEqual([]);
  }, 180_000);

  it('cancels the ingest when the catalog is deleted mid-download, and leaves nothing behind', async () => {
    for (const v of valid) await waitForCatalog(kube.client, v, serving, 120_000);
    const name = `deleted-${id}`;
    await createCatalog(name, await pushHostile(name));
    await waitFor(`the download of ${name}'s layer`, () => inFlight(name), 30_000, catalogd.proc);
    await kube.client.delete({ ...CC, name });
    await waitFor(
      `${name} to be deleted`,
      () =>
        kube.client.get({ ...CC, name }).then(
          () => false,
          (err: unknown) => isNotFound(err),
        ),
      30_000,
      catalogd.proc,
    );
    expect(inFlight(name)).toBe(false);
    expect(existsSync(join(catalogd.cacheDir, 'catalogs', name))).toBe(false);
    expect(await partialVersionsOf(name)).toEqual([]);
    expect(existsSync(join(catalogd.cacheDir, 'unpack', name))).toBe(false);
    for (const v of valid) expect((await all(catalogd, v)).status).toBe(200);
  }, 180_000);
});

describe('catalogd with a short ingest timeout', () => {
  let catalogd: Catalogd;
  const hostile = `timeout-${id}`;
  const valid = [4, 5, 6].map((n) => `valid${n}-${id}`);
  // Short for a test, long enough for a small catalog's ingest on a busy 2-core machine (~6 s).
  const TIMEOUT_S = 20;

  beforeAll(async () => {
    catalogd = await startCatalogd(`catalogd-timeout-${id}`, [`--ingest-timeout=${TIMEOUT_S}s`]);
  });

  afterAll(async () => {
    await deleteCatalogs(catalogd);
    await catalogd?.proc.stop();
  });

  it('serves the valid catalogs applied with the hostile one, reports its timeout, and retries it no sooner than the timeout', async () => {
    const hostileRef = await pushHostile(hostile);
    const refs = await Promise.all(valid.map((name, i) => pushValid(name, `pkg${i + 4}`)));
    await Promise.all([createCatalog(hostile, hostileRef), ...valid.map((name, i) => createCatalog(name, refs[i] ?? ''))]);

    for (const name of valid) await waitForCatalog(kube.client, name, serving, 120_000);
    const cc = await waitForCatalog(kube.client, hostile, (c) => condition(c, 'Progressing') !== undefined, 120_000);
    expect(condition(cc, 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'Retrying',
      message: `source catalog content: the catalog image was not pulled and stored within the ingest timeout of ${TIMEOUT_S}s (catalogd --ingest-timeout); retrying in ${TIMEOUT_S}s at the earliest`,
    });
    expect(condition(cc, 'Serving')).toMatchObject({ status: 'False', reason: 'Unavailable' }); // never served

    // The next attempt comes no sooner than the timeout after the first ended (our own status
    // write, which queues the catalog again at once, included). Both times are this process's.
    await waitFor('a second download of the hostile layer', () => downloadsOf(hostile).length >= 2, 120_000, catalogd.proc);
    const [first, second] = downloadsOf(hostile);
    expect(first?.endedAt).toBeDefined();
    expect((second?.startedAt ?? 0) - (first?.endedAt ?? 0)).toBeGreaterThanOrEqual((TIMEOUT_S - 3) * 1000);
    for (const name of valid) expect(serving(await kube.client.get({ ...CC, name }))).toBe(true);

    // A timed-out attempt leaves nothing behind: between attempts, no partial version exists.
    const partial = async (): Promise<string[]> => (await entries(join(catalogd.cacheDir, 'catalogs'))).filter((e) => e.startsWith('.'));
    await waitFor('a moment between attempts without partial content', async () => !inFlight(hostile) && (await partial()).length === 0, 60_000);
  }, 360_000); // generous: a timeout, the floor and another timeout on a busy machine
});
