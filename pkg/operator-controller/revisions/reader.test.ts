import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { evaluateGate, parseClusterVersion, type ClusterMinor } from '../gating/index.ts';
import { deployedStep } from '../upgradegate/index.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { ApiError } from '../../shared/kube/index.ts';
import { createRevisionReader } from './reader.ts';
import { installed, newest } from './revision.ts';
import { createObjectSetReleases, type ObjectSetManifest } from '../applier/index.ts';
import { objectSet, objectSetHistory, seedHelmHistory } from '../../../test/support/revision-fixtures.ts';

const COS = 'olm.operatorframework.io/v1/ClusterObjectSet';

describe('createRevisionReader', () => {
  it('reads an extension that has ClusterObjectSets from them, with each one state', async () => {
    const cluster = fakeCluster();
    await seedHelmHistory(cluster.client, 'helmy');
    for (const set of [...objectSetHistory('boxy'), objectSet('boxy', 3, '1.2.0', 'rolling-out')]) cluster.seed(set);
    const reader = createRevisionReader({ client: cluster.client, namespace: 'olmv1-system' });

    const boxy = await reader.revisions('boxy');
    expect(boxy.map((r) => [r.number, r.state, r.record.status, r.bundle.version, r.record.objectSet])).toEqual([
      [3, 'RollingOut', 'pending-upgrade', '1.2.0', 'boxy-3'],
      [2, 'Installed', 'deployed', '1.1.0', 'boxy-2'],
      [1, 'Archived', 'superseded', '1.0.0', 'boxy-1'],
    ]);
    expect(boxy[1]?.objects.objects()).toMatchObject([{ kind: 'ConfigMap', data: { version: '1.1.0' } }]);
    expect(boxy.map((r) => r.objectSet)).toEqual([
      { name: 'boxy-3', lifecycle: 'Active', available: 'False (ProbeFailure)', progressing: 'True' },
      { name: 'boxy-2', lifecycle: 'Active', available: 'True', progressing: 'True' },
      { name: 'boxy-1', lifecycle: 'Archived', available: 'True', progressing: 'True' },
    ]);
    expect([installed(boxy)?.number, newest(boxy)?.number]).toEqual([2, 3]);
    expect(await reader.installed('boxy')).toMatchObject({ extension: 'boxy', number: 2, state: 'Installed', bundle: { version: '1.1.0' } });
    expect(await reader.usesObjectSets('boxy')).toBe(true);

    // Another extension of the same cluster still has Helm records: the same model, no ClusterObjectSet.
    const helmy = await reader.revisions('helmy');
    expect(helmy.map((r) => [r.number, r.state, r.record.status, r.objectSet])).toEqual([
      [2, 'Installed', 'deployed', undefined],
      [1, 'Archived', 'superseded', undefined],
    ]);
    expect(helmy.every((r) => r.when !== '' && r.objects === r.record.manifest)).toBe(true);
    expect((await reader.installed('helmy'))?.number).toBe(2);
    expect(await reader.usesObjectSets('helmy')).toBe(false);
    expect(await reader.list()).toEqual(['helmy', 'boxy']);
  });

  it('reads Helm records, without error, when the ClusterObjectSet kind is not served', async () => {
    const cluster = fakeCluster({ unserved: [COS] });
    await seedHelmHistory(cluster.client, 'helmy');
    const reader = createRevisionReader({ client: cluster.client, namespace: 'olmv1-system' });
    const helmy = await reader.revisions('helmy');
    expect(helmy.map((r) => [r.number, r.objectSet])).toEqual([
      [2, undefined],
      [1, undefined],
    ]);
    expect((await reader.installed('helmy'))?.number).toBe(2);
    expect(await reader.list()).toEqual(['helmy']);
    expect(await reader.usesObjectSets('helmy')).toBe(false);
  });

  it('leaves out revisions being deleted, whose Secrets may be gone already, and reads the release records the way back wrote', async () => {
    const cluster = fakeCluster();
    await seedHelmHistory(cluster.client, 'back');
    // The way back to release records: both revisions deleted with propagation Orphan, their Secrets first.
    for (const set of objectSetHistory('back')) cluster.seed(leaving(withSecretRefs(set)));
    const reader = createRevisionReader({ client: cluster.client, namespace: 'olmv1-system' });
    const back = await reader.revisions('back');
    expect(back.map((r) => [r.number, r.state, r.objectSet])).toEqual([
      [2, 'Installed', undefined],
      [1, 'Archived', undefined],
    ]);
    expect(await reader.usesObjectSets('back')).toBe(false);
    expect(await reader.list()).toEqual(['back']);

    // A revision not being deleted whose Secret is missing is an error, named.
    const [, installed] = objectSetHistory('broken');
    cluster.seed(withSecretRefs(installed!));
    await expect(reader.history('broken')).rejects.toThrow(/^reading Secret olmv1-system\/broken-2-data key "o0": .*not found/);
    // Under BoxcutterRuntime's own store too: the leaving revision is skipped, the broken one is not.
    const store = createObjectSetReleases(cluster.client, { systemNamespace: 'olmv1-system' });
    expect(await store.history('back')).toEqual([]);
    await expect(store.history('broken')).rejects.toThrow(/broken-2-data/);
  });

  it('reports a refused ClusterObjectSet list instead of showing Helm records that may be stale', async () => {
    const cluster = fakeCluster();
    await seedHelmHistory(cluster.client, 'helmy');
    cluster.refuse('list ClusterObjectSet', new ApiError(403, 'Forbidden', 'clusterobjectsets is forbidden'));
    const reader = createRevisionReader({ client: cluster.client, namespace: 'olmv1-system' });
    await expect(reader.history('helmy')).rejects.toThrow(/clusterobjectsets is forbidden/);
  });
});

describe('the cluster-upgrade gate over the reader', () => {
  it('sees an extension installed as ClusterObjectSet revisions, as olmv1 status does, and one installed as Helm records', async () => {
    const cluster = fakeCluster();
    await seedHelmHistory(cluster.client, 'helmy');
    const [archived, installed] = objectSetHistory('boxy');
    const properties = JSON.stringify([{ type: 'olm.maxOpenShiftVersion', value: '4.18' }]);
    cluster.seed(archived!);
    cluster.seed({
      ...installed!,
      metadata: { ...installed!.metadata, annotations: { ...installed!.metadata.annotations, 'olm.properties': properties } },
    });
    const reader = createRevisionReader({ client: cluster.client, namespace: 'olmv1-system' });
    const extension = (name: string, bundle: string) => ({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterExtension',
      metadata: { name, uid: `uid-${name}` },
      status: { install: { bundle: { name: bundle, version: '1.1.0' } }, conditions: [{ type: 'Installed', status: 'True' }] },
    });
    const step = deployedStep({
      releases: reader,
      extensions: { list: () => [extension('boxy', 'demo.v1.1.0'), extension('helmy', 'demo.v1.1.0')] },
    });
    const state: Parameters<ReturnType<typeof deployedStep>['run']>[0] = {
      log: pino({ level: 'silent' }),
      signal: new AbortController().signal,
      deployed: [],
      extra: [],
      current: cluster419(),
    };
    await step.run(state);
    expect(state.extra).toEqual([]);
    expect(state.deployed.map((d) => d.extension).sort()).toEqual(['boxy', 'helmy']);
    const verdict = evaluateGate(cluster419(), state.deployed);
    expect(verdict.upgradeable).toBe(false);
    expect(JSON.stringify(verdict)).toContain('boxy');
  });
});

function cluster419(): ClusterMinor {
  const parsed = parseClusterVersion('4.19');
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

/** `set` with its objects in a Secret `<name>-data` (keys o0, o1, ...) that is not there. */
function withSecretRefs(set: ObjectSetManifest): ObjectSetManifest {
  let i = 0;
  const phases = set.spec.phases.map((p) => ({
    ...p,
    objects: p.objects.map(() => ({ ref: { name: `${set.metadata.name}-data`, key: `o${i++}` } })),
  }));
  return { ...set, spec: { ...set.spec, phases } };
}

/** `set` being deleted: a deletion timestamp, and the garbage collector's orphan finalizer holding it. */
function leaving(set: ObjectSetManifest): ObjectSetManifest {
  return { ...set, metadata: { ...set.metadata, deletionTimestamp: '2026-11-28T12:00:00Z', finalizers: ['orphan'] } };
}
