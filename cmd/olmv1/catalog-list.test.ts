import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogClient } from '../../pkg/operator-controller/catalogclient/index.ts';
import { loadFS } from '../../pkg/shared/fbc/index.ts';
import { runCatalogList, type CatalogListDeps } from './catalog-list.ts';
import { NEEDS_CERT_PROVIDER, NEEDS_WATCH_NAMESPACE } from './catalog-installability.ts';

const modes = (...supported: string[]) =>
  ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'].map((type) => ({ type, supported: supported.includes(type) }));
const object = (o: object) => ({ type: 'olm.bundle.object', value: { data: Buffer.from(JSON.stringify(o)).toString('base64') } });
const csv = (spec: object) => ({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', metadata: { name: 'x' }, spec });

/** One package per installability case: [package, extra bundle properties]. */
const CASES: [string, object[]][] = [
  [
    'allns',
    [{ type: 'olm.csv.metadata', value: { installModes: modes('AllNamespaces'), displayName: 'All Namespaces Operator', keywords: ['Database'] } }],
  ],
  ['ownonly', [{ type: 'olm.csv.metadata', value: { installModes: modes('OwnNamespace', 'SingleNamespace') } }]],
  ['nomodes', [{ type: 'olm.csv.metadata', value: { installModes: modes() } }]],
  [
    'apisvc',
    [{ type: 'olm.csv.metadata', value: { installModes: modes('AllNamespaces'), apiServiceDefinitions: { owned: [{ name: 'v1.x.io' }] } } }],
  ],
  ['deps', [{ type: 'olm.package.required', value: { packageName: 'etcd', versionRange: '>=1.0.0' } }]],
  ['gvkdeps', [{ type: 'olm.gvk.required', value: { group: 'x.io', kind: 'X', version: 'v1' } }]],
  [
    'webhook',
    [object(csv({ installModes: modes('AllNamespaces'), webhookdefinitions: [{ type: 'ValidatingAdmissionWebhook', generateName: 'v.x.io' }] }))],
  ],
  [
    'badkind',
    [object(csv({ installModes: modes('AllNamespaces') })), object({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'extra' } })],
  ],
  ['plain', []],
];

function catalogDocs(): object[] {
  const docs: object[] = [];
  for (const [pkg, props] of CASES) {
    docs.push({ schema: 'olm.package', name: pkg, defaultChannel: 'stable', description: `the ${pkg} package` });
    docs.push({
      schema: 'olm.channel',
      package: pkg,
      name: 'stable',
      entries: [{ name: `${pkg}.v1.0.0` }, { name: `${pkg}.v1.1.0`, replaces: `${pkg}.v1.0.0` }],
    });
    docs.push({ schema: 'olm.channel', package: pkg, name: 'fast', entries: [{ name: `${pkg}.v2.0.0` }] });
    for (const v of ['1.0.0', '1.1.0', '2.0.0']) {
      const properties = [{ type: 'olm.package', value: { packageName: pkg, version: v } }, ...(v === '2.0.0' ? props : [])];
      docs.push({ schema: 'olm.bundle', package: pkg, name: `${pkg}.v${v}`, image: `registry.test/${pkg}:${v}`, properties });
    }
  }
  docs.push({
    schema: 'olm.deprecations',
    package: 'allns',
    entries: [
      { reference: { schema: 'olm.channel', name: 'fast' }, message: 'fast is gone' },
      { reference: { schema: 'olm.bundle', name: 'allns.v1.0.0' }, message: 'use 1.1.0' },
    ],
  });
  return docs;
}

let dir: string;
let server: Server;
let url: string;
const client = createCatalogClient();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'olmv1-catalog-list-'));
  const body = catalogDocs()
    .map((d) => JSON.stringify(d))
    .join('\n');
  await writeFile(join(dir, 'catalog.json'), body);
  // catalogd's content API, as far as `/api/v1/all` goes.
  server = createServer((req, res) => {
    if (req.url === '/catalogs/test/api/v1/all') res.writeHead(200, { 'content-type': 'application/jsonl' }).end(`${body}\n`);
    else res.writeHead(404).end('404 Not Found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/catalogs/test`;
});

afterAll(async () => {
  client.close();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

async function cli(search: boolean, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const deps: CatalogListDeps = {
    loadCatalogDir: (d) => loadFS(d),
    isDirectory: () => false,
    catalogClient: client,
    connectCluster: () => Promise.reject(new Error('no cluster in unit tests')),
    now: () => 0,
  };
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  const code = await runCatalogList(args, io, deps, search);
  return { code, stdout, stderr };
}

interface JsonRow {
  catalog: string;
  package: string;
  defaultChannel: string;
  channels: { name: string; head?: { bundle: string; version: string } }[];
  deprecations: string[];
  installable: { bundle?: string; verdict: string; text: string; needs?: string[]; reason?: string; evidence: string; unjudged: string[] };
}

describe('olmv1 catalog list', () => {
  it('judges every installability case from a directory (-o json)', async () => {
    const r = await cli(false, '--catalog', dir, '-o', 'json');
    expect(r.code).toBe(0);
    const rows = (JSON.parse(r.stdout) as { packages: JsonRow[] }).packages;
    const text = Object.fromEntries(rows.map((row) => [row.package, row.installable.text]));
    expect(text).toEqual({
      allns: 'yes',
      apisvc: 'no: unsupported bundle: apiServiceDefintions are not supported',
      badkind: 'no: unsupported resource "extra" with kind "Deployment"',
      deps: 'no: dependencies (olm.package.required) are not supported by OLM v1',
      gvkdeps: 'no: dependencies (olm.gvk.required) are not supported by OLM v1',
      nomodes: 'no: unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes',
      ownonly: `yes, with ${NEEDS_WATCH_NAMESPACE}`,
      plain: 'yes',
      webhook: `yes, with ${NEEDS_CERT_PROVIDER}`,
    });
    const allns = rows.find((row) => row.package === 'allns');
    expect(allns).toMatchObject({
      catalog: dir.split('/').pop(),
      defaultChannel: 'stable',
      channels: [
        { name: 'fast', head: { bundle: 'allns.v2.0.0', version: '2.0.0' } },
        { name: 'stable', head: { bundle: 'allns.v1.1.0', version: '1.1.0' } },
      ],
      deprecations: ['channel fast: fast is gone', 'bundle allns.v1.0.0: use 1.1.0'],
      installable: { bundle: 'allns.v2.0.0', evidence: 'csv-metadata' },
    });
    expect(allns?.installable.unjudged.join()).toContain('webhooks');
    expect(rows.find((row) => row.package === 'webhook')?.installable).toMatchObject({ evidence: 'bundle-objects', unjudged: [] });
    expect(rows.find((row) => row.package === 'plain')?.installable.evidence).toBe('properties-only');
    expect(r.stderr).toContain('read catalog');
  });

  it('prints a table with a note on what catalog data cannot show', async () => {
    const r = await cli(false, '--catalog', dir);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^CATALOG +PACKAGE +DEFAULT CHANNEL +CHANNELS \(HIGHEST VERSION\) +DEPRECATED +INSTALLABLE$/);
    expect(lines.find((l) => / allns /.test(l))).toMatch(
      /stable +fast \(2\.0\.0\), stable \(1\.1\.0\) +channel fast, bundle allns\.v1\.0\.0 +allns\.v2\.0\.0: yes$/,
    );
    expect(r.stdout).toContain('Not judged from catalog data: webhooks (olm.csv.metadata does not carry webhookdefinitions)');
  });

  it('reads a catalogd URL (-o yaml)', async () => {
    const r = await cli(false, '--catalog', url, '-o', 'yaml');
    expect(r.stderr).toContain(`reading catalog ${url} from ${url}`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^packages:\n {2}- catalog: http:/);
    expect(r.stdout).toContain("text: 'no: dependencies (olm.package.required) are not supported by OLM v1'");
  });

  it('reports an unreachable catalog and exits 1', async () => {
    const r = await cli(false, '--catalog', `${url}-missing`);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`catalog ${url}-missing: error: received unexpected response status code 404`);
  });

  it.each([
    [['-o', 'wide'], 'invalid --output "wide"'],
    [['extra'], 'unexpected argument "extra"'],
    [['--catalogd-url', 'ftp://x'], 'invalid --catalogd-url "ftp://x"'],
  ])('usage error %j', async (args, message) => {
    const r = await cli(false, ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('asks the cluster when no --catalog is given', async () => {
    const r = await cli(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no cluster in unit tests');
  });
});

describe('olmv1 catalog search', () => {
  it('matches package names, descriptions and csv metadata keywords', async () => {
    const byKeyword = await cli(true, 'database', '--catalog', dir, '-o', 'json');
    expect((JSON.parse(byKeyword.stdout) as { packages: JsonRow[] }).packages.map((p) => p.package)).toEqual(['allns']);
    const byName = await cli(true, 'DEPS', '--catalog', url, '-o', 'json');
    expect((JSON.parse(byName.stdout) as { packages: JsonRow[] }).packages.map((p) => p.package)).toEqual(['deps', 'gvkdeps']);
  });

  it('says when nothing matches and exits 0', async () => {
    const r = await cli(true, 'nothing-like-this', '--catalog', dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no package matches "nothing-like-this"');
  });

  it('--list-versions lists every version with its bundle and channels, highest first', async () => {
    const r = await cli(true, 'allns', '--catalog', dir, '--list-versions');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').map((l) => l.split(/ {3,}/).slice(1))).toEqual([
      ['PACKAGE', 'VERSION', 'BUNDLE', 'CHANNELS'],
      ['allns', '2.0.0', 'allns.v2.0.0', 'fast'],
      ['allns', '1.1.0', 'allns.v1.1.0', 'stable'],
      ['allns', '1.0.0', 'allns.v1.0.0', 'stable'],
      [],
    ]);
    const json = await cli(true, 'allns', '--catalog', dir, '--list-versions', '-o', 'json');
    expect((JSON.parse(json.stdout) as { packages: { versions: unknown }[] }).packages[0]?.versions).toEqual([
      { version: '2.0.0', bundle: 'allns.v2.0.0', channels: ['fast'] },
      { version: '1.1.0', bundle: 'allns.v1.1.0', channels: ['stable'] },
      { version: '1.0.0', bundle: 'allns.v1.0.0', channels: ['stable'] },
    ]);
  });

  it('wants exactly one TEXT', async () => {
    expect((await cli(true, '--catalog', dir)).code).toBe(2);
  });
});
