import { describe, expect, it } from 'vitest';
import { chainedPackage } from '../../../test/support/extension-ports.ts';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import { clusterExtension, objectSetHistory, seedHelmHistory } from '../../../test/support/revision-fixtures.ts';
import { ok } from '../../shared/errors/index.ts';
import { rollBack, type RollbackPorts } from './service.ts';

/** The ports over `cluster`, with one catalog offering demo 1.0.0 and 1.1.0; `sources` records what was resolved. */
function ports(cluster: FakeCluster, sources: unknown[] = []): RollbackPorts {
  return {
    client: cluster.client,
    resolveInput: (source, installed) => {
      sources.push(source);
      return Promise.resolve(
        ok({
          packageName: source.packageName,
          channels: [],
          versionRange: source.version ?? '',
          upgradeConstraintPolicy: source.upgradeConstraintPolicy ?? 'CatalogProvided',
          installed,
          catalogs: [{ name: 'c', priority: 0, package: chainedPackage('demo', ['1.0.0', '1.1.0']) }],
        }),
      );
    },
  };
}

async function seeded(runtime: 'helm' | 'boxcutter', name: string): Promise<FakeCluster> {
  const cluster = fakeCluster();
  cluster.seed(clusterExtension(name));
  if (runtime === 'helm') await seedHelmHistory(cluster.client, name);
  else for (const set of objectSetHistory(name)) cluster.seed(set);
  return cluster;
}

describe('rollBack', () => {
  it.each(['helm', 'boxcutter'] as const)('goes back to the revision before the installed one and returns it as data (%s)', async (runtime) => {
    const cluster = await seeded(runtime, 'ext');
    const sources: unknown[] = [];
    const r = await rollBack(ports(cluster, sources), { extension: 'ext', systemNamespace: 'olmv1-system' });
    if (!r.ok) throw new Error(r.error.error);
    const d = r.value;
    expect([d.from.number, d.to.number, d.to.bundle.name, d.chosen, d.newRevision, d.written]).toEqual([2, 1, 'demo.v1.0.0', true, 3, true]);
    expect(d.to.objectSet?.name).toBe(runtime === 'boxcutter' ? 'ext-1' : undefined);
    expect(d.patch.changes.map((c) => [c.field, c.to])).toContainEqual(['spec.source.catalog.version', '1.0.0']);
    expect(sources).toMatchObject([{ packageName: 'demo', version: '1.0.0', upgradeConstraintPolicy: 'SelfCertified' }]);
    const ce = await cluster.client.get({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name: 'ext' });
    expect(ce.spec).toMatchObject({ source: { catalog: { version: '1.0.0', upgradeConstraintPolicy: 'SelfCertified' } } });
  });

  it('writes nothing on a dry run, and refuses a revision that is not one to go back to with the revisions', async () => {
    const cluster = await seeded('boxcutter', 'ext');
    const before = cluster.writes.length;
    const dry = await rollBack(ports(cluster), { extension: 'ext', revision: 1, dryRun: true, systemNamespace: 'olmv1-system' });
    expect(dry.ok && [dry.value.written, dry.value.to.number]).toEqual([false, 1]);
    const refused = await rollBack(ports(cluster), { extension: 'ext', revision: 2, systemNamespace: 'olmv1-system' });
    expect(!refused.ok && refused.error.revisions?.map((x) => [x.number, x.state])).toEqual([
      [2, 'Installed'],
      [1, 'Archived'],
    ]);
    const missing = await rollBack(ports(cluster), { extension: 'none', systemNamespace: 'olmv1-system' });
    expect(missing).toEqual({ ok: false, error: { error: 'ClusterExtension "none" not found' } });
    expect(cluster.writes.length).toBe(before);
  });
});
