// Image caps in catalogd (the real binary, cmd/catalogd/main.ts, default flags) against the real
// API server and registry: a catalog image with a ~1 MB layer whose tar declares a 1 GiB file,
// applied with a valid catalog. The valid one is served; the hostile one reports the cap, with
// the image, the layer and the flag, and leaves nothing in catalogd's cache.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { buildImage, buildLayer, CATALOG_CONFIGS_LABEL, createImageClient, filesToEntries } from '../../pkg/shared/image/index.ts';
import { type KubeContext, type KubeObject, connect } from '../../pkg/shared/kube/index.ts';
import { Reaper } from '../envtest/index.ts';
import { type CatalogdProcess, startCatalogdProcess } from '../support/catalogd.ts';
import { condition, pushCatalog, simpleCatalog, waitForCatalog, writeCatalogDir } from '../support/catalogs.ts';
import { zeroFileLayer } from '../support/image-bombs.ts';
import { installOlmConfig } from '../support/olm-config.ts';

const CC = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog' };
const id = randomBytes(3).toString('hex');
const LABEL = 'test.olmv1/image-caps-suite';

let kube: KubeContext;
let reaper: Reaper;
let work: string;
let catalogd: CatalogdProcess;

beforeAll(async () => {
  const cp = inject('envtestControlPlane');
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  reaper = Reaper.start();
  work = await mkdtemp(join(tmpdir(), 'catalogd-caps-'));
  catalogd = await startCatalogdProcess(cp, { name: `catalogd-caps-${id}`, workDir: work, reaper, flags: ['--leader-elect=false'] });
});

afterAll(async () => {
  const mine = (await kube.client.list(CC, { labelSelector: `${LABEL}=${id}` })).items;
  for (const item of mine) await kube.client.delete({ ...CC, name: item.metadata.name ?? '' }).catch(() => undefined);
  // catalogd removes its finalizers; what it has not within a minute is released by hand, since
  // cleanup is not what this file tests.
  await vi
    .waitFor(
      async () => {
        const left = (await kube.client.list(CC, { labelSelector: `${LABEL}=${id}` })).items.length;
        if (left > 0) throw new Error(`${left} ClusterCatalogs not yet deleted`);
      },
      { timeout: 60_000, interval: 200 },
    )
    .catch(() => undefined);
  for (const item of (await kube.client.list(CC, { labelSelector: `${LABEL}=${id}` })).items) {
    await kube.client.patch({ ...CC, name: item.metadata.name ?? '' }, { metadata: { finalizers: null } }, 'merge').catch(() => undefined);
  }
  await catalogd?.proc.stop();
  kube?.close();
  await rm(work, { recursive: true, force: true });
});

async function createCatalog(name: string, ref: string): Promise<void> {
  await kube.client.create({ ...CC, metadata: { name, labels: { [LABEL]: id } }, spec: { source: { type: 'Image', image: { ref } } } });
}

const retrying = (cc: KubeObject): boolean => condition(cc, 'Progressing')?.reason === 'Retrying';

describe('catalogd and a catalog image over its caps', () => {
  it('serves the valid catalog, reports the cap on the hostile one and keeps nothing of it', async () => {
    const anon = inject('envtestRegistries').anonymous.host;
    const validRef = `${anon}/caps/valid-${id}:v1`;
    await pushCatalog(await writeCatalogDir(simpleCatalog('capsok', ['1.0.0'])), validRef);
    const bomb = zeroFileLayer('configs/zeros.json', 1 << 30);
    const catalog = buildLayer(filesToEntries({ 'configs/pkg/catalog.json': '{"schema":"olm.package","name":"pkg"}\n' }));
    const image = buildImage({ layers: [catalog, bomb], labels: { [CATALOG_CONFIGS_LABEL]: '/configs' } });
    const bombRepo = `${anon}/caps/bomb-${id}`;
    const client = createImageClient({ insecureRegistries: [anon] });
    try {
      await client.push(`${bombRepo}:v1`, image);
    } finally {
      client.close();
    }

    const hostile = `bomb-${id}`;
    const valid = `valid-${id}`;
    await createCatalog(hostile, `${bombRepo}:v1`);
    await createCatalog(valid, validRef);

    await waitForCatalog(kube.client, valid, (cc) => condition(cc, 'Serving')?.status === 'True', 120_000);
    const cc = await waitForCatalog(kube.client, hostile, retrying, 120_000);
    // A LimitExceededError: retried no sooner than catalogd's floor, which the message states.
    const message = condition(cc, 'Progressing')?.message ?? '';
    expect(message).toMatch(/; retrying in \S+ at the earliest$/);
    expect(message.replace(/; retrying in \S+ at the earliest$/, '')).toBe(
      `source catalog content: error applying image: image ${bombRepo}@${image.digest}: layer ${bomb.digest}: exceeds the limit of 268435456 unpacked bytes (--max-image-unpacked-bytes)`,
    );
    expect(condition(cc, 'Serving')).toMatchObject({ status: 'False', reason: 'Unavailable' }); // never served
    const res = await fetch(`http://127.0.0.1:${catalogd.port}/catalogs/${valid}/api/v1/all`);
    expect(await res.text()).toContain('"name":"capsok.v1.0.0"');
    expect(await readdir(join(catalogd.cacheDir, 'unpack')).catch(() => [])).toEqual([]);
    // Only this test's catalogs: other files' leftovers belong to them.
    expect((await readdir(join(catalogd.cacheDir, 'catalogs'))).filter((n) => n.startsWith(`.tmp-${hostile}`) || n === hostile)).toEqual([]);
  }, 240_000);
});
