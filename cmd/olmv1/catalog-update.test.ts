import { describe, expect, it } from 'vitest';
import { fakeCluster, type FakeCluster } from '../../test/support/fake-cluster.ts';
import { ApiError } from '../../pkg/shared/kube/index.ts';
import { parseCatalogUpdateArgs, runCatalogUpdate } from './catalog-update.ts';
import { usageErrorLine } from '../../test/support/usage-error.ts';

const CATALOG = {
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterCatalog',
  metadata: { name: 'hub', labels: { 'olm.operatorframework.io/metadata.name': 'hub', team: 'a' }, annotations: { note: 'kept' } },
  spec: {
    source: { type: 'Image', image: { ref: 'quay.io/acme/catalog:latest', pollIntervalMinutes: 10 } },
    priority: 5,
    availabilityMode: 'Available',
  },
  status: { conditions: [{ type: 'Serving', status: 'True' }] },
};

async function update(cluster: FakeCluster, args: string[]) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  const code = await runCatalogUpdate(args, io, {
    connectCluster: () => Promise.resolve({ client: cluster.client, close: () => undefined }),
  });
  return { code, stdout, stderr };
}

function seeded(): FakeCluster {
  const cluster = fakeCluster();
  cluster.seed(structuredClone(CATALOG));
  return cluster;
}

describe('olmv1 catalog update', () => {
  it('changes only the fields given and leaves the rest of the ClusterCatalog as it was', async () => {
    const cluster = seeded();
    expect(await update(cluster, ['hub', '--priority=-2', '--available', 'false'])).toEqual({
      code: 0,
      stdout: 'updated ClusterCatalog hub\n',
      stderr: '',
    });
    const live = cluster.live(CATALOG);
    expect(live?.spec).toEqual({ ...CATALOG.spec, priority: -2, availabilityMode: 'Unavailable' });
    expect(live?.metadata.labels).toEqual(CATALOG.metadata.labels);
    expect(live?.metadata.annotations).toEqual(CATALOG.metadata.annotations);
    expect(live?.status).toEqual(CATALOG.status);
    expect(cluster.writes).toEqual(['patch ClusterCatalog hub']);

    expect((await update(cluster, ['hub', '--image', 'quay.io/acme/catalog:v2', '--labels', 'team=,tier=gold'])).code).toBe(0);
    expect(cluster.live(CATALOG)?.spec).toEqual({
      source: { type: 'Image', image: { ref: 'quay.io/acme/catalog:v2', pollIntervalMinutes: 10 } },
      priority: -2,
      availabilityMode: 'Unavailable',
    });
    expect(cluster.live(CATALOG)?.metadata.labels).toEqual({ 'olm.operatorframework.io/metadata.name': 'hub', tier: 'gold' });

    // 0 stops polling: the field goes.
    expect((await update(cluster, ['hub', '--poll-interval', '0'])).code).toBe(0);
    expect(cluster.live(CATALOG)?.spec).toMatchObject({ source: { type: 'Image', image: { ref: 'quay.io/acme/catalog:v2' } } });
    expect((cluster.live(CATALOG)?.spec as { source: { image: object } }).source.image).not.toHaveProperty('pollIntervalMinutes');
    expect((await update(cluster, ['hub', '--poll-interval', '1h'])).code).toBe(0);
    expect(cluster.live(CATALOG)?.spec).toMatchObject({ source: { image: { pollIntervalMinutes: 60 } } });
  });

  it('prints the updated object with -o', async () => {
    const cluster = seeded();
    const out = await update(cluster, ['hub', '--priority', '7', '-o', 'json']);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ items: [{ metadata: { name: 'hub' }, spec: { priority: 7 } }] });
  });

  it('says a missing catalog is not found and writes nothing', async () => {
    const cluster = fakeCluster();
    expect(await update(cluster, ['gone', '--priority', '1'])).toEqual({ code: 1, stdout: '', stderr: 'ClusterCatalog "gone" not found\n' });
    expect(cluster.writes).toEqual([]);
  });

  it("passes the API server's refusal on, naming the catalog", async () => {
    const cluster = seeded();
    cluster.refuse('patch ClusterCatalog hub', new ApiError(422, 'Invalid', 'spec.priority: Invalid value: "integer"'));
    const out = await update(cluster, ['hub', '--priority', '1']);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('error updating ClusterCatalog "hub": ');
    expect(out.stderr).toContain('spec.priority: Invalid value');
  });

  it('reads and patches again when the catalog changed in between (a conflict), and gives up after five', async () => {
    const cluster = seeded();
    const conflict = new ApiError(409, 'Conflict', 'the object has been modified; please apply your changes to the latest version and try again');
    cluster.refuse('patch ClusterCatalog hub', conflict);
    const patch = cluster.client.patch.bind(cluster.client);
    let patches = 0;
    cluster.client.patch = (...args: Parameters<typeof patch>) => {
      if (++patches === 2) cluster.refuse('patch ClusterCatalog hub', undefined);
      return patch(...args);
    };
    expect(await update(cluster, ['hub', '--priority', '7'])).toMatchObject({ code: 0, stdout: 'updated ClusterCatalog hub\n' });
    expect(patches).toBe(2);
    expect((await cluster.client.get({ apiVersion: CATALOG.apiVersion, kind: CATALOG.kind, name: 'hub' })).spec).toMatchObject({ priority: 7 });

    const stuck = seeded();
    stuck.refuse('patch ClusterCatalog hub', conflict);
    const out = await update(stuck, ['hub', '--priority', '7']);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('error updating ClusterCatalog "hub": the object has been modified');
  });

  it('makes a merge patch of only the fields given, conditional on nothing else', () => {
    expect(parseCatalogUpdateArgs(['hub', '--poll-interval', '0', '--labels', 'a=1', '--labels', 'b=']).patch).toEqual({
      metadata: { labels: { a: '1', b: null } },
      spec: { source: { image: { pollIntervalMinutes: null } } },
    });
    const dry = parseCatalogUpdateArgs(['hub', '--available=true', '--dry-run']);
    expect([dry.patch, dry.dryRun, dry.output]).toEqual([{ spec: { availabilityMode: 'Available' } }, true, 'yaml']);
  });

  it.each([
    [['hub'], 'nothing to change: give at least one of --image, --priority, --poll-interval, --available, --labels'],
    [[], 'expected exactly one NAME'],
    [['a', 'b', '--priority', '1'], 'expected exactly one NAME'],
    [['hub', '--priority', 'x'], 'invalid --priority "x" (want a 32-bit integer)'],
    [['hub', '--priority=-2147483649'], 'invalid --priority "-2147483649" (want a 32-bit integer)'],
    [['hub', '--poll-interval', '90s'], 'invalid --poll-interval "90s" (want whole minutes, e.g. 10m or 1h, or 0 to stop polling)'],
    [['hub', '--available', 'Unavailable'], '--available must be true or false, got "Unavailable"'],
    [['hub', '--labels', 'novalue'], 'invalid --labels entry "novalue" (want KEY=VALUE, a label key and value; KEY= removes KEY)'],
    [['hub', '--labels', 'k=bad value'], 'invalid --labels entry "k=bad value" (want KEY=VALUE, a label key and value; KEY= removes KEY)'],
    [['hub', '--image', ''], 'invalid --image "" (want an image reference)'],
    [
      ['hub', '--image', `quay.io/a/c@sha256:${'a'.repeat(64)}`, '--poll-interval', '5m'],
      `--poll-interval cannot be set for the digest reference "quay.io/a/c@sha256:${'a'.repeat(64)}"`,
    ],
    [['hub', '--priority', '1', '-o', 'table'], '-o must be yaml or json, got "table"'],
  ])('refuses %j as a usage error', (args, message) => {
    expect(usageErrorLine(() => parseCatalogUpdateArgs(args))).toBe(message);
  });

  it('shows its help with exit code 0', async () => {
    const out = await update(fakeCluster(), ['--help']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^Usage: olmv1 catalog update NAME /);
  });
});
