// catalogd's GraphQL endpoint (GraphQLCatalogQueries gate), end to end: the real binary
// (cmd/catalogd/main.ts) pulls a real catalog image from the real registry for a ClusterCatalog
// on the real API server and answers the sample queries of upstream's how-to
// (upstream's docs/draft/howto/catalog-queries-graphql-endpoint.md) over HTTP; hostile queries
// are bounded (issue 60: the introspection amplification is refused at once, catalogd stays small
// and keeps serving its other catalogs); without the gate the path is upstream's 404.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type KubeContext, type KubeObject, connect } from '../../pkg/shared/kube/index.ts';
import { Reaper } from '../envtest/index.ts';
import { type CatalogdProcess, startCatalogdProcess } from '../support/catalogd.ts';
import { condition, pushCatalog, waitForCatalog, writeCatalogFiles } from '../support/catalogs.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { withTempDir } from '../support/temp-dir.ts';

const CC = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog' };
const id = randomBytes(3).toString('hex');
const catalog = `graphql-${id}`;
// A second, small catalog whose reads must stay prompt while queries of the first run.
const other = `graphql-other-${id}`;
// A package of many large bundles: 700 x ~30 KB, 21 MB, more than one query may read (16 MiB).
const BIG_BUNDLES = 700;

function catalogFiles(): Record<string, string> {
  const docs: object[] = [
    {
      schema: 'olm.package',
      name: 'etcd',
      defaultChannel: 'stable',
      description: 'A message of <etcd> & friends',
      icon: { base64data: 'PHN2Zz48L3N2Zz4=', mediatype: 'image/svg+xml' },
    },
    {
      schema: 'olm.channel',
      package: 'etcd',
      name: 'stable',
      entries: [{ name: 'etcd.v0.9.4' }, { name: 'etcd.v1.0.0', replaces: 'etcd.v0.9.4', skipRange: '<0.9.4' }],
    },
    ...['0.9.4', '1.0.0'].map((v) => ({
      schema: 'olm.bundle',
      package: 'etcd',
      name: `etcd.v${v}`,
      image: `registry.test/etcd-bundle:v${v}`,
      properties: [
        { type: 'olm.package', value: { packageName: 'etcd', version: v } },
        { type: 'olm.gvk', value: { group: 'etcd.database.coreos.com', kind: 'EtcdCluster', version: 'v1beta2' } },
      ],
      relatedImages: [{ name: 'etcd-operator', image: `registry.test/etcd-operator:v${v}` }],
    })),
    { schema: 'olm.package', name: 'big', defaultChannel: 'stable' },
    ...Array.from({ length: BIG_BUNDLES }, (_, i) => ({
      schema: 'olm.bundle',
      package: 'big',
      name: `big.v1.0.${i}`,
      image: `registry.test/big-bundle:v1.0.${i}`,
      properties: [{ type: 'olm.csv.metadata', value: { description: `${i} `.padEnd(30_000, 'x') } }],
    })),
  ];
  return { 'catalog/catalog.json': docs.map((d) => JSON.stringify(d)).join('\n') };
}

let kube: KubeContext;
let reaper: Reaper;
let work: string;
let catalogd: CatalogdProcess | undefined;

/** The process's peak resident memory (VmHWM) since `resetPeakRss`, in bytes. */
async function peakRss(pid: number): Promise<number> {
  const kB = /^VmHWM:\s+(\d+) kB$/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kB === undefined) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(kB) * 1024;
}

/** Starts the peak of `peakRss` again from the current resident memory (proc(5), clear_refs). */
const resetPeakRss = (pid: number): Promise<void> => writeFile(`/proc/${pid}/clear_refs`, '5');

const url = (c: CatalogdProcess, name = catalog): string => `http://127.0.0.1:${c.port}/catalogs/${name}/api/v1/graphql`;

async function post(body: string | object, name = catalog): Promise<{ status: number; type: string | null; text: string }> {
  if (catalogd === undefined) throw new Error('catalogd is not running');
  const res = await fetch(url(catalogd, name), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

async function query(q: string): Promise<{ data: Record<string, unknown> | null; errors?: Array<{ message: string }> }> {
  const res = await post({ query: q });
  expect(res.status).toBe(200);
  expect(res.type).toBe('application/json');
  return JSON.parse(res.text) as { data: Record<string, unknown> | null; errors?: Array<{ message: string }> };
}

beforeAll(async () => {
  const cp = inject('envtestControlPlane');
  const anon = inject('envtestRegistries').anonymous.host;
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  reaper = Reaper.start();
  work = await mkdtemp(join(tmpdir(), 'catalogd-graphql-'));
  const ref = `${anon}/graphql/${catalog}:v1`;
  await withTempDir('fbc-', async (dir) => pushCatalog(await writeCatalogFiles(dir, catalogFiles()), ref));
  const otherRef = `${anon}/graphql/${other}:v1`;
  const otherFiles = { 'catalog/catalog.json': JSON.stringify({ schema: 'olm.package', name: 'other', defaultChannel: 'stable' }) };
  await withTempDir('fbc-', async (dir) => pushCatalog(await writeCatalogFiles(dir, otherFiles), otherRef));
  catalogd = await startCatalogdProcess(cp, {
    name: `catalogd-graphql-${id}`,
    workDir: work,
    reaper,
    flags: ['--leader-elect=false', '--feature-gates=GraphQLCatalogQueries=true'],
  });
  await kube.client.create({ ...CC, metadata: { name: catalog }, spec: { source: { type: 'Image', image: { ref } } } });
  await kube.client.create({ ...CC, metadata: { name: other }, spec: { source: { type: 'Image', image: { ref: otherRef } } } });
  for (const name of [catalog, other])
    await waitForCatalog(kube.client, name, (cc: KubeObject) => condition(cc, 'Serving')?.status === 'True', 120_000);
}, 240_000);

afterAll(async () => {
  for (const name of [catalog, other]) await kube?.client.delete({ ...CC, name }).catch(() => undefined);
  if (catalogd !== undefined) {
    // Deleted while a catalogd runs (it removes its finalizer).
    await vi.waitFor(
      async () => {
        const left = (await kube.client.list(CC)).items.filter((c) => c.metadata.name === catalog || c.metadata.name === other);
        if (left.length > 0) throw new Error(`ClusterCatalog ${left[0]?.metadata.name} is still there`);
      },
      { timeout: 60_000, interval: 200 },
    );
    await catalogd.proc.stop();
  }
  kube?.close();
  await rm(work, { recursive: true, force: true });
}, 120_000);

describe("upstream's documented sample queries", () => {
  it('catalog summary', async () => {
    expect(await query('{ summary { totalSchemas schemas { name totalObjects totalFields } } }')).toEqual({
      data: {
        summary: {
          totalSchemas: 3,
          schemas: [
            { name: 'olm.bundle', totalObjects: BIG_BUNDLES + 2, totalFields: 6 },
            { name: 'olm.channel', totalObjects: 1, totalFields: 4 },
            { name: 'olm.package', totalObjects: 2, totalFields: 5 },
          ],
        },
      },
    });
  });

  it('bundles, packages, pagination', async () => {
    const res = await post({ query: '{ olmbundles(limit: 5, offset: 0) { name package image } }' });
    expect(res.text.startsWith('{"data":{"olmbundles":[{"image":"registry.test/etcd-bundle:v0.9.4","name":"etcd.v0.9.4","package":"etcd"},')).toBe(
      true,
    );
    expect((JSON.parse(res.text) as { data: { olmbundles: unknown[] } }).data.olmbundles).toHaveLength(5);
    expect(await query('{ olmpackages(limit: 10) { name description defaultChannel } }')).toEqual({
      data: {
        olmpackages: [
          { name: 'etcd', description: 'A message of <etcd> & friends', defaultChannel: 'stable' },
          { name: 'big', description: null, defaultChannel: 'stable' },
        ],
      },
    });
    expect(await query('{ olmbundles(limit: 10, offset: 20) { name } }')).toEqual({
      data: { olmbundles: Array.from({ length: 10 }, (_, i) => ({ name: `big.v1.0.${18 + i}` })) },
    });
    // Past 100 the limit is 100, as upstream.
    const all = await query('{ olmbundles(limit: 1000) { name } }');
    expect(all.data?.olmbundles).toHaveLength(100);
  });

  it('channels: entries are objects, so the sample without a selection is an error, as upstream', async () => {
    const res = await query('{ olmchannels { name package entries } }');
    expect(res.data).toBeNull();
    expect(res.errors?.[0]?.message).toMatch(/^Field "entries" of type "\[OlmChannelEntries\]" must have a selection of subfields/);
    expect(await query('{ olmchannels { name entries { name replaces skipRange } } }')).toEqual({
      data: {
        olmchannels: [
          {
            name: 'stable',
            entries: [
              { name: 'etcd.v0.9.4', replaces: null, skipRange: null },
              { name: 'etcd.v1.0.0', replaces: 'etcd.v0.9.4', skipRange: '<0.9.4' },
            ],
          },
        ],
      },
    });
  });

  it('nested selection: olm.package has no channels, as upstream tells', async () => {
    const res = await query('{ olmpackages { name channels { name entries { name } } } }');
    expect(res.errors?.[0]?.message).toBe('Cannot query field "channels" on type "OlmPackage".');
  });

  it('icon as JSON text (fromjson), bundle properties with type and value', async () => {
    const icons = await query('{ olmpackages { name icon } }');
    const icon = (icons.data?.olmpackages as Array<{ icon: string | null }>)[0]?.icon;
    expect(JSON.parse(icon ?? 'null')).toEqual({ base64data: 'PHN2Zz48L3N2Zz4=', mediatype: 'image/svg+xml' });
    const props = await query('{ olmbundles(limit: 5) { name properties { type value } } }');
    expect((props.data?.olmbundles as Array<{ properties: unknown[] }>)[1]?.properties).toEqual([
      { type: 'olm.package', value: '{"packageName":"etcd","version":"1.0.0"}' },
      { type: 'olm.gvk', value: '{"group":"etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"}' },
    ]);
  });

  it('introspection of the query fields', async () => {
    const res = await query('{ __schema { queryType { fields { name description } } } }');
    const fields = ((res.data?.__schema as { queryType: { fields: Array<{ name: string }> } }).queryType.fields ?? []).map((f) => f.name);
    expect(fields.sort()).toEqual(['olmbundles', 'olmchannels', 'olmpackages', 'summary']);
  });
});

describe('hostile requests', () => {
  it('a deeply nested query is refused before it runs', async () => {
    const res = await query(`{ ${'olmbundles { '.repeat(40)}name${' }'.repeat(40)} }`);
    expect(res).toEqual({ data: null, errors: [{ message: 'query exceeds maximum depth of 10', locations: [] }] });
  });

  it('a body over 1 MiB is 400 Invalid request body; a query over 100000 bytes 400 Query too large', async () => {
    expect(await post({ query: `{ summary { totalSchemas } }${' '.repeat(2 << 20)}` })).toMatchObject({
      status: 400,
      text: 'Invalid request body\n',
    });
    expect(await post({ query: `{ summary { totalSchemas } }${' '.repeat(100_000)}` })).toMatchObject({ status: 400, text: 'Query too large\n' });
  });

  it('an expensive query over the big package stops at its bound, with a clear error, in time', async () => {
    const pages = Array.from({ length: 8 }, (_, i) => `p${i}: olmbundles(offset: ${i * 100}) { name properties { value } }`).join(' ');
    const started = Date.now();
    expect(await query(`{ ${pages} }`)).toEqual({
      data: null,
      errors: [{ message: 'query reads more than 16777216 bytes of catalog content', locations: [] }],
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    // Aliases repeating a large field: the answer's bound.
    const repeated = Array.from({ length: 45 }, (_, i) => `v${i}: properties { value }`).join(' ');
    expect(await query(`{ olmbundles(offset: 2) { ${repeated} } }`)).toEqual({
      data: null,
      errors: [{ message: 'query answer exceeds 16777216 bytes', locations: [] }],
    });
  });

  it('issue 60: the introspection amplification is refused at once; catalogd stays small and serves its other catalogs meanwhile', async () => {
    if (catalogd === undefined) throw new Error('catalogd is not running');
    const { pid } = catalogd.proc;
    const base = `http://127.0.0.1:${catalogd.port}/catalogs/${other}/api/v1`;
    // 25 aliases of __schema, each spreading a fragment of 25 aliased lists: 226 MB of answer, 3.4 GB, 42 s before.
    const aliases = (n: number, field: string, prefix: string): string => Array.from({ length: n }, (_, i) => `${prefix}${i}: ${field}`).join(' ');
    const attack = `{ ${aliases(25, '__schema { ...T }', 's')} } fragment T on __Schema { ${aliases(25, 'types { fields { name } }', 't')} }`;
    // Queries within the limits that work as hard as the bounds let them: a 16 MiB answer, and
    // a wide introspection (4 x 9 aliased lists through a fragment, 472 fields).
    const answerBound = `{ olmbundles(offset: 2) { ${aliases(45, 'properties { value }', 'v')} } }`;
    const wide = `{ ${aliases(4, '__schema { ...W }', 's')} } fragment W on __Schema { ${aliases(9, 'types { name kind description fields { name description type { name kind ofType { name kind } } } }', 't')} }`;
    await resetPeakRss(pid);
    const started = Date.now();
    const refused = query(attack).then((answer) => ({ answer, ms: Date.now() - started }));
    const heavy = Promise.all([query(answerBound), query(wide), query(answerBound), query(wide)]);
    // Reads of the other catalog while those run, one after another: each answers promptly.
    const reads: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = Date.now();
      for (const path of ['/all', '/metas?schema=olm.package']) {
        const res = await fetch(base + path);
        expect(res.status).toBe(200);
        expect(await res.text()).toContain('"name":"other"');
      }
      reads.push(Date.now() - t);
    }
    const { answer, ms } = await refused;
    expect(answer).toEqual({ data: null, errors: [{ message: 'query exceeds maximum alias count of 50', locations: [] }] });
    expect(ms).toBeLessThan(2_000);
    const [bound, introspection] = await heavy;
    expect(bound).toEqual({ data: null, errors: [{ message: 'query answer exceeds 16777216 bytes', locations: [] }] });
    expect(introspection.errors).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(Math.max(...reads)).toBeLessThan(1_000);
    // Well under catalogd's shipped memory limit (512Mi, config/manager/catalogd.yaml).
    expect(await peakRss(pid)).toBeLessThan(384 * 2 ** 20);
  });

  it('unknown fields and GET', async () => {
    expect((await query('{ olmbundles { nope } }')).errors?.[0]?.message).toMatch(/^Cannot query field "nope" on type "OlmBundle"\./);
    if (catalogd === undefined) throw new Error('catalogd is not running');
    const get = await fetch(url(catalogd));
    expect([get.status, await get.text()]).toEqual([405, 'Method Not Allowed\n']);
  });
});

describe('without the gate', () => {
  it("answers upstream's 404 page not found, and still serves the catalog", async () => {
    if (catalogd === undefined) throw new Error('catalogd is not running');
    await catalogd.proc.stop();
    const cacheDir = catalogd.cacheDir;
    catalogd = await startCatalogdProcess(inject('envtestControlPlane'), {
      name: `catalogd-nogate-${id}`,
      workDir: work,
      reaper,
      cacheDir,
      flags: ['--leader-elect=false'],
    });
    const res = await post({ query: '{ summary { totalSchemas } }' });
    expect([res.status, res.text]).toEqual([404, '404 page not found\n']);
    const all = await fetch(`http://127.0.0.1:${catalogd.port}/catalogs/${catalog}/api/v1/all`);
    expect(all.status).toBe(200);
    await all.arrayBuffer();
  });
});
