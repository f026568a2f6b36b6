import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ApiError, type KubeObject } from '../../../shared/kube/index.ts';
import { fakeCluster } from '../../../../test/support/fake-cluster.ts';
import { extRecord } from '../../../../test/support/release-revisions.ts';
import type { Release, ReleaseStatus } from '../../release/index.ts';
import { MIGRATED_MESSAGE, migrateFromReleases, planMigration } from './migrate.ts';
import { MIGRATED_FROM_HELM_LABEL, migratedRevision, ownerLabels, type ObjectSetManifest } from './revision.ts';
import { createBoxcutterApplier } from './applier.ts';
import { createObjectSetReleases } from './store.ts';

const owner = { name: 'ext', uid: 'ce-uid' };
const cm: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'c',
    namespace: 'ns',
    labels: { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'ext' },
  },
  data: { k: 'v' },
};
const deployment: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'op', namespace: 'ns' }, spec: { replicas: 1 } };

const record = (revision: number, status: ReleaseStatus, version = `1.${revision}.0`): Release =>
  extRecord(revision, status, version, [cm, deployment]);

const stored = (revision: number, labels: Record<string, string>, conditions: { type: string; status: string }[] = []): ObjectSetManifest => {
  const s = migratedRevision(owner, record(1, 'deployed'));
  return {
    ...s,
    metadata: { ...s.metadata, name: `ext-${revision}`, labels: { ...ownerLabels('ext'), ...labels } },
    spec: { ...s.spec, revision },
    status: { conditions: conditions.map((c) => ({ ...c, reason: 'r', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' })) },
  };
};

describe('planMigration', () => {
  const migrated = { [MIGRATED_FROM_HELM_LABEL]: 'true' };
  it.each<[string, ObjectSetManifest[], Release[], string]>([
    ['no revisions, no records', [], [], 'none'],
    ['no revisions, nothing deployed', [], [record(2, 'failed'), record(1, 'failed')], 'none'],
    ['no revisions, a deployed record', [], [record(1, 'deployed')], 'create 1'],
    [
      'no revisions, the newest failed: the newest deployed one',
      [],
      [record(3, 'failed'), record(2, 'deployed'), record(1, 'superseded')],
      'create 2',
    ],
    ['revisions exist: never from records', [stored(1, migrated, [{ type: 'Succeeded', status: 'True' }])], [record(1, 'deployed')], 'none'],
    ['migrated revision 1 without Succeeded', [stored(1, migrated)], [], 'mark-succeeded ext-1'],
    ['migrated revision 1 with Succeeded False', [stored(1, migrated, [{ type: 'Succeeded', status: 'False' }])], [], 'mark-succeeded ext-1'],
    ['revision 1 not labelled migrated', [stored(1, {})], [], 'none'],
    ['no revision 1 any more', [stored(2, migrated)], [], 'none'],
  ])('%s', (_name, sets, history, want) => {
    const plan = planMigration(owner, sets, () => history);
    const got = plan.action === 'create' ? `create ${plan.from}` : plan.action === 'mark-succeeded' ? `mark-succeeded ${plan.name}` : plan.action;
    expect(got).toBe(want);
  });

  it('reads no records when revisions exist', () => {
    planMigration(owner, [stored(1, {})], () => {
      throw new Error('read');
    });
  });
});

describe('migrateFromReleases', () => {
  const now = () => new Date('2026-11-28T01:02:03.456Z');

  it('makes revision 1 from the deployed record, marked Succeeded, then the applier keeps it and the objects stay as they are', async () => {
    const cluster = fakeCluster();
    // the live objects the Helm-like release made
    cluster.seed(cm);
    cluster.seed(deployment);
    const uids = [cluster.live(cm)?.metadata.uid, cluster.live(deployment)?.metadata.uid];
    const history = [record(2, 'failed', '1.2.0'), record(1, 'deployed', '1.1.0')];
    const ports = { client: cluster.client, releases: { history: () => Promise.resolve(history) }, now };
    expect(await migrateFromReleases(ports, owner)).toBe('created');
    const set = cluster.live({ kind: 'ClusterObjectSet', metadata: { name: 'ext-1' } }) as ObjectSetManifest;
    expect(set.spec).toMatchObject({ revision: 1, collisionProtection: 'None', lifecycleState: 'Active' });
    expect(set.metadata.labels?.[MIGRATED_FROM_HELM_LABEL]).toBe('true');
    expect(set.metadata.annotations?.['olm.operatorframework.io/bundle-version']).toBe('1.1.0');
    // inline, as upstream migrates; the objects themselves untouched
    expect(set.spec.phases.flatMap((p) => p.objects).every((o) => o.object !== undefined)).toBe(true);
    expect(set.status?.conditions).toEqual([
      {
        type: 'Succeeded',
        status: 'True',
        reason: 'Succeeded',
        message: MIGRATED_MESSAGE,
        lastTransitionTime: '2026-11-28T01:02:03Z',
        observedGeneration: 0,
      },
    ]);
    expect([cluster.live(cm)?.metadata.uid, cluster.live(deployment)?.metadata.uid]).toEqual(uids);
    expect(cluster.writes).toEqual(['create ClusterObjectSet ext-1', 'status ClusterObjectSet ext-1']);

    // idempotent: a second call writes nothing
    expect(await migrateFromReleases(ports, owner)).toBe('none');
    expect(cluster.writes).toHaveLength(2);

    // the steps now find it installed
    const releases = createObjectSetReleases(cluster.client);
    expect(await releases.deployed('ext')).toMatchObject({ revision: 1, status: 'deployed', bundle: { version: '1.1.0' } });
    // the bundle of the record applied under the gate: revision 2 (Prevent), as upstream (collision protection is immutable)
    const applier = createBoxcutterApplier({
      client: cluster.client,
      systemNamespace: 'olmv1-system',
      scoped: { forServiceAccount: () => cluster.client },
    });
    const r1 = history[1] as Release;
    const applied = await applier.apply(
      {
        extension: { name: 'ext', uid: 'ce-uid', installNamespace: 'ns' },
        installer: { name: 'sa', namespace: 'ns' },
        history: await releases.history('ext'),
        log: pino({ level: 'silent' }),
        signal: new AbortController().signal,
      },
      { extension: 'ext', extensionUID: 'ce-uid', installNamespace: 'ns', bundle: r1.bundle, manifest: r1.manifest, properties: [] },
    );
    expect(applied.release).toMatchObject({ revision: 2, status: 'pending-upgrade' });
    expect([cluster.live(cm)?.metadata.uid, cluster.live(deployment)?.metadata.uid]).toEqual(uids);
  });

  it('does nothing without a deployed record', async () => {
    const cluster = fakeCluster();
    const ports = { client: cluster.client, releases: { history: () => Promise.resolve([record(1, 'failed')]) } };
    expect(await migrateFromReleases(ports, owner)).toBe('none');
    expect(cluster.writes).toEqual([]);
  });

  it('finishes a migration a crash interrupted between the revision and its status', async () => {
    const cluster = fakeCluster();
    cluster.seed(stored(1, { [MIGRATED_FROM_HELM_LABEL]: 'true' }));
    const ports = {
      client: cluster.client,
      releases: { history: () => Promise.reject(new Error('records are not read')) },
      now,
    };
    expect(await migrateFromReleases(ports, owner)).toBe('marked');
    const live = cluster.live({ kind: 'ClusterObjectSet', metadata: { name: 'ext-1' } }) as ObjectSetManifest;
    expect(live.status?.conditions?.find((c) => c.type === 'Succeeded')).toMatchObject({ status: 'True', message: MIGRATED_MESSAGE });
  });

  it('reports failures with upstream words', async () => {
    const cluster = fakeCluster({ refuse: { 'status ClusterObjectSet ext-1': new ApiError(409, 'Conflict', 'modified') } });
    cluster.seed(stored(1, { [MIGRATED_FROM_HELM_LABEL]: 'true' }));
    const ports = { client: cluster.client, releases: { history: () => Promise.resolve([]) } };
    await expect(migrateFromReleases(ports, owner)).rejects.toThrow('updating migrated revision status: modified');
    const listing = fakeCluster({ refuse: { 'list ClusterObjectSet': new ApiError(403, 'Forbidden', 'no') } });
    await expect(migrateFromReleases({ client: listing.client, releases: ports.releases }, owner)).rejects.toThrow('listing revisions: no');
  });
});
