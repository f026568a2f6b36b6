// catalogd end to end against a real kube-apiserver and real OCI registries: catalog images are
// pushed, ClusterCatalogs created, and content read back over catalogd's HTTP API. One catalogd
// (the real composition of cmd/catalogd) runs in this process; polling minutes are shortened
// to one second so polling is exercised for real.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { canonicalJson } from '../../pkg/shared/fbc/index.ts';
import { type KubeContext, type KubeObject, connect, isNotFound } from '../../pkg/shared/kube/index.ts';
import type { ControlPlaneInfo } from '../envtest/index.ts';
import { startCatalogd, type TestCatalogd } from '../support/catalogd.ts';
import { condition, pushCatalog, simpleCatalog, waitForCatalog, writeCatalogDir } from '../support/catalogs.ts';
import { installOlmConfig } from '../support/olm-config.ts';

const CC = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog' };
const id = randomBytes(3).toString('hex');
let cp: ControlPlaneInfo;
let kube: KubeContext;
let catalogd: TestCatalogd;
let anon: string;
const serving = (cc: KubeObject): boolean => condition(cc, 'Serving')?.status === 'True';

/** The ClusterCatalogs this file made: deleted at its end, so no other file's catalogd meets them. */
const created = new Set<string>();

async function createCatalog(name: string, image: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<void> {
  await kube.client.create({ ...CC, metadata: { name }, spec: { source: { type: 'Image', image }, ...extra } });
  created.add(name);
}

/** Deletes the catalogs this file made and waits until catalogd has let them go. */
async function deleteCreatedCatalogs(): Promise<void> {
  const gone = (name: string) =>
    kube.client.get({ ...CC, name }).then(
      () => false,
      (err: unknown) => isNotFound(err),
    );
  for (const name of created) {
    await kube.client.delete({ ...CC, name }).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }
  // In a hook, where expect.poll is not available.
  for (const name of created) {
    await vi.waitFor(
      async () => {
        if (!(await gone(name))) throw new Error(`ClusterCatalog ${name} was not deleted`);
      },
      { timeout: 60_000, interval: 200 },
    );
  }
}

async function all(name: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${catalogd.url}/catalogs/${name}/api/v1/all`);
  return { status: res.status, body: await res.text() };
}

beforeAll(async () => {
  cp = inject('envtestControlPlane');
  anon = inject('envtestRegistries').anonymous.host;
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } }).catch(() => undefined);
  const auth = inject('envtestRegistries').basicAuth;
  const dockerconfig = { auths: { [auth.host]: { auth: Buffer.from(`${auth.username}:${auth.password}`).toString('base64') } } };
  await kube.client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/dockerconfigjson',
    metadata: { name: `registry-creds-${id}`, namespace: 'olmv1-system' },
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(dockerconfig)).toString('base64') },
  });
  catalogd = await startCatalogd(cp, { pullSecret: { namespace: 'olmv1-system', name: `registry-creds-${id}` }, pollMinuteMs: 1000 });
});

afterAll(async () => {
  if (kube !== undefined && catalogd !== undefined) await deleteCreatedCatalogs();
  // The restarted instances share the first one's cache directory, which destroy() leaves.
  const cacheDir = catalogd?.options.cacheDir;
  await catalogd?.destroy();
  if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  kube?.close();
});

/**
 * Pushes `files` to the tag `<anon>/catalogs/<name>:latest`, creates the ClusterCatalog `name`
 * of that tag (polled every "minute", one second here) and waits until it serves; returns the
 * digest. Each test that changes a catalog makes its own this way, so any one of them runs alone.
 */
async function servedCatalog(name: string, files: Record<string, string>): Promise<string> {
  const ref = `${anon}/catalogs/${name}:latest`;
  const digest = await pushCatalog(await writeCatalogDir(files), ref);
  await createCatalog(name, { ref, pollIntervalMinutes: 1 });
  await waitForCatalog(kube.client, name, serving);
  return digest;
}

describe('catalogd', () => {
  it('serves a pushed catalog image with its digest and URL in status', async () => {
    const name = `operators-${id}`;
    const ref = `${anon}/catalogs/${name}:latest`;
    const v1Digest = await pushCatalog(
      await writeCatalogDir({ ...simpleCatalog('foo', ['1.0.0', '1.1.0']), ...simpleCatalog('bar', ['0.1.0']) }),
      ref,
    );
    await createCatalog(name, { ref, pollIntervalMinutes: 1 });
    const cc = await waitForCatalog(kube.client, name, serving);

    expect(cc.metadata.labels?.['olm.operatorframework.io/metadata.name']).toBe(name);
    expect(cc.metadata.finalizers).toContain('olm.operatorframework.io/delete-server-cache');
    const status = cc.status as { resolvedSource: unknown; urls: unknown; lastUnpacked: string };
    expect(status.resolvedSource).toEqual({ type: 'Image', image: { ref: `${anon}/catalogs/${name}@${v1Digest}` } });
    expect(status.urls).toEqual({ base: `http://${catalogd.options.externalAddress}/catalogs/${name}` });
    expect(status.lastUnpacked).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(condition(cc, 'Serving')).toMatchObject({
      reason: 'Available',
      message: 'Serving desired content from resolved source',
      observedGeneration: cc.metadata.generation,
    });
    expect(condition(cc, 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'Succeeded',
      message: 'Successfully unpacked and stored content from resolved source',
    });

    const res = await all(name);
    expect(res.status).toBe(200);
    const lines = res.body.trimEnd().split('\n');
    expect(lines).toHaveLength(2 + 2 + 2 + 1);
    for (const line of lines) expect(line).toBe(canonicalJson(JSON.parse(line)));
    const metas = await (await fetch(`${catalogd.url}/catalogs/${name}/api/v1/metas?schema=olm.bundle&package=foo`)).text();
    expect(
      metas
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).name),
    ).toEqual(['foo.v1.0.0', 'foo.v1.1.0']);
  });

  it('picks up new content pushed to the tag by polling', async () => {
    const name = `polled-${id}`;
    const v1Digest = await servedCatalog(name, { ...simpleCatalog('foo', ['1.0.0', '1.1.0']), ...simpleCatalog('bar', ['0.1.0']) });
    const ref = `${anon}/catalogs/${name}:latest`;
    const v2Digest = await pushCatalog(await writeCatalogDir(simpleCatalog('foo', ['1.0.0', '1.1.0', '1.2.0'])), ref);
    expect(v2Digest).not.toBe(v1Digest);
    const cc = await waitForCatalog(kube.client, name, (c) => JSON.stringify(c.status).includes(v2Digest), 30_000);
    expect(serving(cc)).toBe(true);
    expect((await all(name)).body).toContain('"name":"foo.v1.2.0"');
    expect((await all(name)).body).not.toContain('"name":"bar"');
  });

  it('keeps serving the old content when a new image is malformed, and says which file failed', async () => {
    const name = `malformed-${id}`;
    const goodDigest = await servedCatalog(name, simpleCatalog('foo', ['1.0.0', '1.1.0', '1.2.0']));
    const ref = `${anon}/catalogs/${name}:latest`;
    const broken = { ...simpleCatalog('foo', ['1.0.0']), 'baz/catalog.json': '{"schema":"olm.package","name":}' };
    await pushCatalog(await writeCatalogDir(broken), ref);
    const cc = await waitForCatalog(kube.client, name, (c) => condition(c, 'Progressing')?.reason === 'Retrying', 30_000);
    expect(condition(cc, 'Progressing')?.status).toBe('True');
    expect(condition(cc, 'Progressing')?.message).toMatch(/^error storing fbc: .*baz\/catalog\.json/);
    expect(serving(cc)).toBe(true);
    expect((cc.status as { resolvedSource: { image: { ref: string } } }).resolvedSource.image.ref).toContain(goodDigest);
    const res = await all(name);
    expect(res.status).toBe(200);
    expect(res.body).toContain('"name":"foo.v1.2.0"');
  });

  it('pulls from a registry with basic auth through the pull Secret', async () => {
    const auth = inject('envtestRegistries').basicAuth;
    const ref = `${auth.host}/private/operators-${id}:v1`;
    const creds = { auths: { [auth.host]: { username: auth.username ?? '', password: auth.password ?? '' } } };
    await pushCatalog(await writeCatalogDir(simpleCatalog('secret-op', ['2.0.0'])), ref, creds);
    await createCatalog(`private-${id}`, { ref });
    await waitForCatalog(kube.client, `private-${id}`, serving);
    expect((await all(`private-${id}`)).body).toContain('"name":"secret-op"');
  });

  it('serves an image whose layers must be unpacked to be read (a later layer replaces a file)', async () => {
    const { buildImage, buildLayer, createImageClient } = await import('../../pkg/shared/image/index.ts');
    const stored = async (method: string): Promise<number> => {
      const metrics = await (await fetch(`${catalogd.healthUrl}/metrics`)).text();
      return Number(new RegExp(`^catalogd_catalog_contents_stored_total\\{method="${method}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
    };
    const before = { streamed: await stored('streamed'), unpacked: await stored('unpacked') };
    const file = (pkg: string): Buffer => Buffer.from(simpleCatalog(pkg, ['1.0.0'])[`${pkg}/catalog.json`] ?? '');
    const layers = [
      buildLayer([
        { path: 'configs', type: 'dir' },
        { path: 'configs/x', type: 'dir' },
        { path: 'configs/x/catalog.json', type: 'file', data: file('old-op') },
      ]),
      buildLayer([{ path: 'configs/x/catalog.json', type: 'file', data: file('new-op') }]),
    ];
    const client = createImageClient({ insecureRegistries: ['127.0.0.1'] });
    await client.push(
      `${anon}/catalogs/layered-${id}:v1`,
      buildImage({ layers, labels: { 'operators.operatorframework.io.index.configs.v1': '/configs' } }),
    );
    client.close();
    await createCatalog(`layered-${id}`, { ref: `${anon}/catalogs/layered-${id}:v1` });
    await waitForCatalog(kube.client, `layered-${id}`, serving);
    const body = (await all(`layered-${id}`)).body;
    expect(body).toContain('"name":"new-op"');
    expect(body).not.toContain('old-op');
    // Single-layer images stream into the ingest; this one had to be unpacked.
    expect({ streamed: await stored('streamed'), unpacked: await stored('unpacked') }).toEqual({ ...before, unpacked: before.unpacked + 1 });
  });

  it('blocks on a digest reference to an image without the configs label', async () => {
    const { buildImage, createImageClient } = await import('../../pkg/shared/image/index.ts');
    const client = createImageClient({ insecureRegistries: ['127.0.0.1'] });
    const digest = await client.push(`${anon}/catalogs/nolabel-${id}:v1`, buildImage({ files: { 'configs/catalog.json': '{}' } }));
    client.close();
    await createCatalog(`nolabel-${id}`, { ref: `${anon}/catalogs/nolabel-${id}@${digest}` });
    const cc = await waitForCatalog(kube.client, `nolabel-${id}`, (c) => condition(c, 'Progressing')?.status === 'False');
    expect(condition(cc, 'Progressing')).toMatchObject({
      reason: 'Blocked',
      message:
        'source catalog content: error applying image: terminal error: catalog image is missing the required label "operators.operatorframework.io.index.configs.v1"',
    });
    expect(condition(cc, 'Serving')).toMatchObject({ status: 'False', reason: 'Unavailable' }); // never served
  });

  it('stops serving when made Unavailable and serves again when Available', async () => {
    const name = `availability-${id}`;
    await servedCatalog(name, simpleCatalog('foo', ['3.0.0']));
    expect((await all(name)).body).toContain('"name":"foo.v3.0.0"');

    await kube.client.patch({ ...CC, name }, { spec: { availabilityMode: 'Unavailable' } }, 'merge');
    // Status and finalizers are two writes (status first): wait for both. Unavailable drops the
    // content and its clean-up finalizer; Available brings both back.
    const cleanup = (c: KubeObject): boolean => (c.metadata.finalizers ?? []).includes('olm.operatorframework.io/delete-server-cache');
    const off = await waitForCatalog(kube.client, name, (c) => condition(c, 'Serving')?.reason === 'UserSpecifiedUnavailable' && !cleanup(c));
    expect(condition(off, 'Serving')).toMatchObject({ status: 'False', message: 'Catalog availability mode is set to Unavailable' });
    expect(condition(off, 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'Succeeded',
      message: 'Catalog availability mode is set to Unavailable',
    });
    expect((off.status as Record<string, unknown>).resolvedSource).toBeUndefined();
    expect((await all(name)).status).toBe(404);

    await kube.client.patch({ ...CC, name }, { spec: { availabilityMode: 'Available' } }, 'merge');
    await waitForCatalog(kube.client, name, (c) => serving(c) && cleanup(c), 30_000);
    expect((await all(name)).body).toContain('"name":"foo.v3.0.0"');
  });

  it('serves stored content right after a restart, even while the registry is unreachable', async () => {
    const name = `restarted-${id}`;
    await servedCatalog(name, simpleCatalog('foo', ['3.0.0']));
    await catalogd.stop();
    const cacheDir = catalogd.options.cacheDir;
    // No insecure registries: every pull now fails, so only stored content can answer.
    catalogd = await startCatalogd(cp, { cacheDir, insecureRegistries: [], pollMinuteMs: 1000 });
    const res = await all(name);
    expect(res.status).toBe(200);
    expect(res.body).toContain('"name":"foo.v3.0.0"');
    const cc = await waitForCatalog(kube.client, name, (c) => condition(c, 'Progressing')?.reason === 'Retrying', 30_000);
    expect(serving(cc)).toBe(true);
    await catalogd.stop();
    catalogd = await startCatalogd(cp, { cacheDir, pollMinuteMs: 1000 });
    await waitForCatalog(kube.client, name, (c) => condition(c, 'Progressing')?.reason === 'Succeeded', 30_000);
  });

  it('removes the content when the catalog is deleted', async () => {
    const name = `deleted-${id}`;
    await servedCatalog(name, simpleCatalog('foo', ['3.0.0']));
    expect(existsSync(join(catalogd.options.cacheDir, 'catalogs', name))).toBe(true);
    await kube.client.delete({ ...CC, name });
    const present = (): Promise<boolean> =>
      kube.client.get({ ...CC, name }).then(
        () => true,
        (err: unknown) => !isNotFound(err),
      );
    await expect.poll(present, { timeout: 30_000, interval: 200, message: 'ClusterCatalog was not deleted' }).toBe(false);
    expect((await all(name)).status).toBe(404);
    expect(existsSync(join(catalogd.options.cacheDir, 'catalogs', name))).toBe(false);
  });

  it('exposes health and metrics', async () => {
    const name = `metrics-${id}`;
    await servedCatalog(name, simpleCatalog('foo', ['1.0.0']));
    expect((await all(name)).status).toBe(200);
    expect((await fetch(`${catalogd.healthUrl}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${catalogd.healthUrl}/metrics`)).text();
    expect(metrics).toContain('catalogd_http_request_duration_seconds_bucket');
    expect(metrics).toMatch(/controller_runtime_reconcile_total\{controller="catalogd-clustercatalog-controller",result="success"\} [1-9]/);
  });
});
