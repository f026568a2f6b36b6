import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parseClusterObjectSet, type ClusterObjectSet, type Condition } from '../../shared/api/index.ts';
import { LOW_PRIORITY, type ReconcileContext } from '../../shared/controller/index.ts';
import { ApiError, type KubeObject } from '../../shared/kube/index.ts';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import { clusterObjectSetReconciler } from './controller.ts';
import { everyRevisionAs } from './writer.ts';

const NS = 'ns';
const CREATED = '2026-01-01T00:00:00Z';
const ctx = (): ReconcileContext => ({ signal: new AbortController().signal, log: pino({ level: 'silent' }) });

const configMap = (name: string, data: Record<string, string> = { k: 'v' }, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, labels },
  data,
});

/** A Secret holding `obj` under key `obj`. */
const secret = (name: string, obj: KubeObject, immutable: boolean, gzip = false): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: NS },
  immutable,
  data: { obj: (gzip ? gzipSync(JSON.stringify(obj)) : Buffer.from(JSON.stringify(obj))).toString('base64') },
});

type Spec = Partial<ClusterObjectSet['spec']> & { phases: ClusterObjectSet['spec']['phases'] };

function seedSet(fc: FakeCluster, name: string, spec: Spec, labels: Record<string, string> = {}): void {
  fc.seed({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterObjectSet',
    metadata: { name, generation: 1, creationTimestamp: CREATED, labels, annotations: { 'olm.operatorframework.io/bundle-version': '1.0.0' } },
    spec: { lifecycleState: 'Active', revision: 1, collisionProtection: 'Prevent', ...spec },
  });
}

function setOf(fc: FakeCluster, name: string): ClusterObjectSet {
  const parsed = parseClusterObjectSet(fc.live({ kind: 'ClusterObjectSet', metadata: { name } }));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

function condition(fc: FakeCluster, name: string, type: string): Pick<Condition, 'status' | 'reason' | 'message'> | undefined {
  const c = setOf(fc, name).status?.conditions?.find((x) => x.type === type);
  return c === undefined ? undefined : { status: c.status, reason: c.reason, message: c.message };
}

function reconciler(fc: FakeCluster, now = new Date(CREATED)) {
  return clusterObjectSetReconciler({ client: fc.client, writerFor: everyRevisionAs(fc.client) }, { probeRequeueMs: 1000, clock: () => now });
}

const readyProbe = {
  selector: { type: 'Label' as const, label: { matchLabels: { gate: 'yes' } } },
  assertions: [{ type: 'FieldValue' as const, fieldValue: { fieldPath: 'metadata.annotations.ready', value: 'true' } }],
};

describe('ClusterObjectSet reconcile', () => {
  it('applies a phase only after the previous one passes its probes, then reports success', async () => {
    const fc = fakeCluster();
    seedSet(fc, 'rev', {
      progressionProbes: [readyProbe],
      phases: [
        { name: 'first', objects: [{ object: configMap('first', { k: 'v' }, { gate: 'yes' }) }] },
        { name: 'second', objects: [{ object: configMap('second') }] },
      ],
    });
    const r = reconciler(fc);
    expect(await r.reconcile('rev', ctx())).toEqual({ requeueAfterMs: 1000, priority: LOW_PRIORITY });
    expect(fc.live(configMap('second'))).toBeUndefined();
    expect(condition(fc, 'rev', 'Available')).toEqual({
      status: 'False',
      reason: 'ProbeFailure',
      message: `Object ConfigMap.v1 ${NS}/first: missing key: "metadata.annotations.ready"`,
    });
    expect(condition(fc, 'rev', 'Progressing')).toEqual({ status: 'True', reason: 'RollingOut', message: 'Revision 1.0.0 is rolling out.' });
    const set = setOf(fc, 'rev');
    expect(set.metadata.finalizers).toEqual(['olm.operatorframework.io/teardown']);
    expect(set.status?.observedPhases?.map((p) => p.name)).toEqual(['first', 'second']);
    const first = fc.live(configMap('first'));
    expect(first?.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterObjectSet',
        name: 'rev',
        uid: set.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(first?.metadata.annotations).toEqual({ 'olm.operatorframework.io/revision': '1' });

    fc.edit(configMap('first'), (o) => (o.metadata.annotations = { ...o.metadata.annotations, ready: 'true' }));
    expect(await r.reconcile('rev', ctx())).toEqual({});
    expect(fc.live(configMap('second'))?.data).toEqual({ k: 'v' });
    expect(condition(fc, 'rev', 'Progressing')).toEqual({ status: 'True', reason: 'Succeeded', message: 'Revision 1.0.0 has rolled out.' });
    expect(condition(fc, 'rev', 'Available')).toEqual({
      status: 'True',
      reason: 'ProbesSucceeded',
      message: 'Objects are available and pass all probes.',
    });
    expect(condition(fc, 'rev', 'Succeeded')).toEqual({ status: 'True', reason: 'Succeeded', message: 'Revision succeeded rolling out.' });
  });

  it('polls a revision waiting on its probes below the events, longer while no phase more passes, from the start once one did (issue 74)', async () => {
    const fc = fakeCluster();
    seedSet(fc, 'rev', {
      progressionProbes: [readyProbe],
      phases: [
        { name: 'first', objects: [{ object: configMap('first', { k: 'v' }, { gate: 'yes' }) }] },
        { name: 'second', objects: [{ object: configMap('second', { k: 'v' }, { gate: 'yes' }) }] },
      ],
    });
    const r = clusterObjectSetReconciler(
      { client: fc.client, writerFor: everyRevisionAs(fc.client) },
      { probeRequeueMs: 1000, probeRequeueMaxMs: 3000, clock: () => new Date(CREATED) },
    );
    const waits = async (n: number): Promise<unknown[]> => {
      const out = [];
      for (let i = 0; i < n; i++) out.push(await r.reconcile('rev', ctx()));
      return out;
    };
    const poll = (ms: number) => ({ requeueAfterMs: ms, priority: LOW_PRIORITY });
    expect(await waits(4)).toEqual([poll(1000), poll(2000), poll(3000), poll(3000)]);
    fc.edit(configMap('first'), (o) => (o.metadata.annotations = { ...o.metadata.annotations, ready: 'true' }));
    expect(await waits(2)).toEqual([poll(1000), poll(2000)]);
    fc.edit(configMap('second'), (o) => (o.metadata.annotations = { ...o.metadata.annotations, ready: 'true' }));
    expect(await r.reconcile('rev', ctx())).toEqual({});
  });

  it('refuses an object another controller owns under Prevent, and adopts an unowned one under IfNoController', async () => {
    const fc = fakeCluster();
    const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'x', controller: true };
    fc.seed({ ...configMap('taken'), metadata: { ...configMap('taken').metadata, ownerReferences: [owner] } });
    fc.seed(configMap('loose', { old: 'x' }));
    seedSet(fc, 'rev', {
      phases: [{ name: 'p', objects: [{ object: configMap('taken') }, { object: configMap('loose'), collisionProtection: 'IfNoController' }] }],
    });
    expect(await reconciler(fc).reconcile('rev', ctx())).toEqual({ requeueAfterMs: 10_000 });
    const progressing = condition(fc, 'rev', 'Progressing');
    expect(progressing?.status).toBe('True');
    expect(progressing?.reason).toBe('Retrying');
    expect(progressing?.message).toBe(
      [
        'revision object collisions in phase 0',
        `Object ConfigMap.v1 ${NS}/taken`,
        'Action: "Collision"',
        'Probes:',
        '- Progress: Succeeded',
        'Conflicting Owner: &OwnerReference{Kind:Deployment,Name:d,UID:x,APIVersion:apps/v1,Controller:*true,BlockOwnerDeletion:nil,}',
        '',
      ].join('\n'),
    );
    expect(fc.writes.filter((w) => w.includes('ConfigMap'))).toEqual([`apply ConfigMap ${NS}/loose`]);
    expect(fc.live(configMap('taken'))?.metadata.ownerReferences).toEqual([owner]);
    expect(fc.live(configMap('loose'))?.metadata.ownerReferences?.[0]?.name).toBe('rev');
  });

  it('takes back under IfNoController a CRD a revision wrote and an uninstall kept for its package, never one kept for another package', async () => {
    const crd = (name: string): KubeObject => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: { group: 'example.com' },
    });
    /** As a BoxcutterRuntime uninstall leaves it: released, still carrying the old revision's annotation, marked for `pkg`. */
    const kept = (name: string, pkg: string): KubeObject => ({
      ...crd(name),
      metadata: { name, annotations: { 'olm.operatorframework.io/revision': '1', 'olm.operatorframework.io/kept-for-package': pkg } },
    });
    const fc = fakeCluster();
    fc.seed(kept('ours.example.com', 'pkg'));
    fc.seed(kept('theirs.example.com', 'other'));
    fc.seed({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterObjectSet',
      metadata: { name: 'rev', generation: 1, creationTimestamp: CREATED, annotations: { 'olm.operatorframework.io/package-name': 'pkg' } },
      spec: {
        lifecycleState: 'Active',
        revision: 1,
        collisionProtection: 'Prevent',
        phases: [
          {
            name: 'p',
            objects: [
              { object: crd('ours.example.com'), collisionProtection: 'IfNoController' },
              { object: crd('theirs.example.com'), collisionProtection: 'IfNoController' },
            ],
          },
        ],
      },
    });
    await reconciler(fc).reconcile('rev', ctx());
    const progressing = condition(fc, 'rev', 'Progressing');
    expect(progressing?.reason).toBe('Retrying');
    expect(progressing?.message).toContain('revision object collisions in phase 0');
    expect(progressing?.message).toContain('theirs.example.com');
    expect(progressing?.message).not.toContain('ours.example.com');
    expect(fc.live(crd('ours.example.com'))?.metadata.ownerReferences?.map((r) => [r.name, r.controller])).toEqual([['rev', true]]);
    expect(fc.live(crd('theirs.example.com'))?.metadata.ownerReferences).toBeUndefined();
  });

  it('blocks on a mutable Secret and on a Secret whose content changed', async () => {
    const fc = fakeCluster();
    fc.seed(secret('mutable', configMap('m'), false));
    seedSet(fc, 'blocked', { phases: [{ name: 'p', objects: [{ ref: { name: 'mutable', namespace: NS, key: 'obj' } }] }] });
    expect(await reconciler(fc).reconcile('blocked', ctx())).toEqual({});
    expect(condition(fc, 'blocked', 'Progressing')).toEqual({
      status: 'False',
      reason: 'Blocked',
      message: `the following secrets are not immutable (referenced secrets must have immutable set to true): ${NS}/mutable`,
    });

    fc.seed(secret('fixed', configMap('f', { k: 'original' }), true, true));
    seedSet(fc, 'ref', { phases: [{ name: 'resources', objects: [{ ref: { name: 'fixed', namespace: NS, key: 'obj' } }] }] });
    await reconciler(fc).reconcile('ref', ctx());
    expect(condition(fc, 'ref', 'Succeeded')?.status).toBe('True');
    expect(fc.live(configMap('f'))?.data).toEqual({ k: 'original' });
    // Deleted and recreated with other content.
    fc.objects.delete(`Secret ${NS}/fixed`);
    fc.seed(secret('fixed', configMap('f', { k: 'TAMPERED' }), true));
    expect(await reconciler(fc).reconcile('ref', ctx())).toEqual({});
    const progressing = condition(fc, 'ref', 'Progressing');
    expect(progressing?.reason).toBe('Blocked');
    expect(progressing?.message).toContain('resolved content of 1 phase(s) has changed: phase "resources"');
    expect(fc.live(configMap('f'))?.data).toEqual({ k: 'original' });
  });

  it("reads a Secret outside operator-controller's namespace as the revision's installer, its own namespace's as itself", async () => {
    const fc = fakeCluster();
    fc.seed(secret('fixed', configMap('f', { k: 'v' }), true, true));
    seedSet(fc, 'ref', { phases: [{ name: 'p', objects: [{ ref: { name: 'fixed', namespace: NS, key: 'obj' } }] }] });
    const asInstaller: string[] = [];
    const installer = {
      ...fc.client,
      get: ((ref: { kind: string; namespace?: string; name: string }, o?: object) => {
        asInstaller.push(`${ref.kind} ${ref.namespace ?? ''}/${ref.name}`);
        return fc.client.get(ref as never, o as never);
      }) as typeof fc.client.get,
    };
    const forbidden = new ApiError(403, 'Forbidden', 'operator-controller may not read secrets there');
    const own = {
      ...fc.client,
      get: ((ref: { kind: string; namespace?: string }, o?: object) =>
        ref.kind === 'Secret' && ref.namespace === NS ? Promise.reject(forbidden) : fc.client.get(ref as never, o as never)) as typeof fc.client.get,
    };
    const r = clusterObjectSetReconciler(
      { client: own, writerFor: everyRevisionAs(installer), systemNamespace: 'olmv1-system' },
      { probeRequeueMs: 1000, clock: () => new Date(CREATED) },
    );
    await r.reconcile('ref', ctx());
    expect(condition(fc, 'ref', 'Succeeded')?.status).toBe('True');
    expect(asInstaller).toContain(`Secret ${NS}/fixed`);
  });

  it("reads each referenced Secret once a reconcile, however many of the revision's objects it holds (issue 74)", async () => {
    const fc = fakeCluster();
    const objects = [configMap('a'), configMap('b'), configMap('c')];
    fc.seed({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'packed', namespace: NS },
      immutable: true,
      data: Object.fromEntries(objects.map((o) => [o.metadata.name, Buffer.from(JSON.stringify(o)).toString('base64')])),
    });
    seedSet(fc, 'rev', {
      phases: [{ name: 'p', objects: objects.map((o) => ({ ref: { name: 'packed', namespace: NS, key: o.metadata.name ?? '' } })) }],
    });
    const r = reconciler(fc);
    await r.reconcile('rev', ctx());
    expect(condition(fc, 'rev', 'Succeeded')?.status).toBe('True');
    fc.calls.length = 0;
    await r.reconcile('rev', ctx());
    expect(fc.calls.filter((c) => c.includes('Secret'))).toEqual([`get Secret ${NS}/packed`]);
  });

  it('sends no apply that would change nothing, and applies again an object changed since (issue 74)', async () => {
    const fc = fakeCluster();
    seedSet(fc, 'rev', { phases: [{ name: 'p', objects: [{ object: configMap('a') }, { object: configMap('b') }] }] });
    const r = reconciler(fc);
    await r.reconcile('rev', ctx());
    expect(condition(fc, 'rev', 'Succeeded')?.status).toBe('True');
    expect(fc.writes.filter((w) => w.includes('ConfigMap'))).toEqual([`apply ConfigMap ${NS}/a`, `apply ConfigMap ${NS}/b`]);

    // Nothing changed: each object read and judged, none dry-run or applied.
    fc.calls.length = 0;
    await r.reconcile('rev', ctx());
    expect(fc.calls.filter((c) => c.includes('ConfigMap'))).toEqual([`get ConfigMap ${NS}/a`, `get ConfigMap ${NS}/b`]);

    // A status write (a controller reporting on the object) changes none of what was applied: nothing applied.
    fc.edit(configMap('a'), (live) => void (live['status'] = { observed: 'yes' }));
    fc.calls.length = 0;
    await r.reconcile('rev', ctx());
    expect(fc.calls.filter((c) => c.startsWith('apply'))).toEqual([]);

    // Someone changed one: it is applied again (its data put back), the other is not.
    fc.edit(configMap('b'), (live) => void (live['data'] = { k: 'changed' }));
    fc.calls.length = 0;
    await r.reconcile('rev', ctx());
    expect(fc.calls.filter((c) => c.startsWith('apply'))).toEqual([`apply ConfigMap ${NS}/b`]);
    // The one object to write is written after both were read, without a dry run (decision 0161).
    expect(fc.calls.filter((c) => c.includes('ConfigMap'))).toEqual([`get ConfigMap ${NS}/a`, `get ConfigMap ${NS}/b`, `apply ConfigMap ${NS}/b`]);
    expect(fc.live(configMap('b'))?.['data']).toEqual({ k: 'v' });
    expect(condition(fc, 'rev', 'Succeeded')?.status).toBe('True');

    // Both changed: only what is written is dry-run, after both were read, then written in order.
    fc.edit(configMap('a'), (live) => void (live['data'] = { k: 'changed' }));
    fc.edit(configMap('b'), (live) => void (live['data'] = { k: 'changed' }));
    fc.calls.length = 0;
    await r.reconcile('rev', ctx());
    expect(fc.calls.filter((c) => c.includes('ConfigMap'))).toEqual([
      `get ConfigMap ${NS}/a`,
      `get ConfigMap ${NS}/b`,
      `dry-run ConfigMap ${NS}/a`,
      `dry-run ConfigMap ${NS}/b`,
      `apply ConfigMap ${NS}/a`,
      `apply ConfigMap ${NS}/b`,
    ]);
  });

  it('retries a referenced Secret that is not there yet', async () => {
    const fc = fakeCluster();
    seedSet(fc, 'rev', { phases: [{ name: 'p', objects: [{ ref: { name: 'later', namespace: NS, key: 'obj' } }] }] });
    await expect(reconciler(fc).reconcile('rev', ctx())).rejects.toThrow(
      /^converting to boxcutter revision: resolving ref in phase "p": getting Secret ns\/later: /,
    );
    expect(condition(fc, 'rev', 'Progressing')?.reason).toBe('Retrying');
  });

  it('hands objects over to the next revision, archives the previous one, which deletes only what was not taken over', async () => {
    const fc = fakeCluster();
    const ext = { 'olm.operatorframework.io/owner-name': 'ext' };
    seedSet(fc, 'ext-1', { phases: [{ name: 'p', objects: [{ object: configMap('kept') }, { object: configMap('dropped') }] }] }, ext);
    await reconciler(fc).reconcile('ext-1', ctx());
    expect(condition(fc, 'ext-1', 'Succeeded')?.status).toBe('True');

    seedSet(fc, 'ext-2', { revision: 2, phases: [{ name: 'p', objects: [{ object: configMap('kept', { k: 'v2' }) }] }] }, ext);
    await reconciler(fc).reconcile('ext-2', ctx());
    expect(condition(fc, 'ext-2', 'Succeeded')?.status).toBe('True');
    const kept = fc.live(configMap('kept'));
    expect(kept?.data).toEqual({ k: 'v2' });
    expect(kept?.metadata.annotations?.['olm.operatorframework.io/revision']).toBe('2');
    expect(kept?.metadata.ownerReferences?.map((r) => [r.name, r.controller])).toEqual([
      ['ext-1', false],
      ['ext-2', true],
    ]);
    expect(setOf(fc, 'ext-1').spec.lifecycleState).toBe('Archived');

    const r = reconciler(fc);
    expect(await r.reconcile('ext-1', ctx())).toEqual({ requeueAfterMs: 5000 });
    expect(fc.live(configMap('dropped'))).toBeUndefined();
    expect(fc.live(configMap('kept'))?.metadata.ownerReferences?.map((x) => x.name)).toEqual(['ext-2']);
    expect(condition(fc, 'ext-1', 'Progressing')?.message).toBe('removing revision resources that are not owned by another revision');
    expect(await r.reconcile('ext-1', ctx())).toEqual({});
    expect(condition(fc, 'ext-1', 'Progressing')).toEqual({ status: 'False', reason: 'Archived', message: 'revision is archived' });
    expect(condition(fc, 'ext-1', 'Available')).toEqual({ status: 'Unknown', reason: 'Archived', message: 'revision is archived' });
    expect(setOf(fc, 'ext-1').metadata.finalizers ?? []).toEqual([]);
    expect(fc.live(configMap('kept'))?.data).toEqual({ k: 'v2' });
  });

  it('reports ProgressDeadlineExceeded once the deadline passed, and requeues at the deadline before', async () => {
    const fc = fakeCluster();
    seedSet(fc, 'slow', {
      progressDeadlineMinutes: 10,
      progressionProbes: [readyProbe],
      phases: [{ name: 'p', objects: [{ object: configMap('c', {}, { gate: 'yes' }) }] }],
    });
    const early = reconciler(fc, new Date(Date.parse(CREATED) + 10 * 60_000 - 400));
    expect(await early.reconcile('slow', ctx())).toEqual({ requeueAfterMs: 400, priority: LOW_PRIORITY });
    expect(condition(fc, 'slow', 'Progressing')?.reason).toBe('RollingOut');
    await reconciler(fc, new Date(Date.parse(CREATED) + 10 * 60_000)).reconcile('slow', ctx());
    expect(condition(fc, 'slow', 'Progressing')).toEqual({
      status: 'False',
      reason: 'ProgressDeadlineExceeded',
      message: 'Revision has not rolled out for 10 minute(s). Last status: Revision 1.0.0 is rolling out.',
    });
  });

  it('holds a revision that fails its preflight checks, writing nothing', async () => {
    const fc = fakeCluster();
    const withFinalizer = { ...configMap('c'), metadata: { ...configMap('c').metadata, finalizers: ['x'] } };
    seedSet(fc, 'static', { phases: [{ name: 'p', objects: [{ object: withFinalizer }] }] });
    expect(await reconciler(fc).reconcile('static', ctx())).toEqual({ requeueAfterMs: 10_000 });
    expect(condition(fc, 'static', 'Progressing')).toEqual({
      status: 'True',
      reason: 'Retrying',
      message: `revision validation error: revision "static" (1): phase "p": /v1, Kind=ConfigMap ${NS}/c: metadata.finalizers: Forbidden: must be empty`,
    });

    fc.refuse(`dry-run ConfigMap ${NS}/bad`, new ApiError(422, 'Invalid', 'ConfigMap "bad" is invalid: data: Invalid value'));
    seedSet(fc, 'dry', { phases: [{ name: 'p', objects: [{ object: configMap('good') }, { object: configMap('bad') }] }] });
    expect(await reconciler(fc).reconcile('dry', ctx())).toEqual({ requeueAfterMs: 10_000 });
    expect(condition(fc, 'dry', 'Progressing')?.message).toBe(
      `phase 0 validation error: phase "p": /v1, Kind=ConfigMap ${NS}/bad: ConfigMap "bad" is invalid: data: Invalid value`,
    );
    expect(fc.writes.filter((w) => w.includes('ConfigMap'))).toEqual([]);
  });

  it('writes the one object of a phase without a dry run, and reports its refusal as the preflight would (decision 0161)', async () => {
    const fc = fakeCluster();
    const invalid = new ApiError(422, 'Invalid', 'ConfigMap "bad" is invalid: data: Invalid value');
    fc.refuse(`apply ConfigMap ${NS}/bad`, invalid);
    fc.refuse(`dry-run ConfigMap ${NS}/bad`, invalid);
    seedSet(fc, 'one', { phases: [{ name: 'p', objects: [{ object: configMap('bad') }] }] });
    expect(await reconciler(fc).reconcile('one', ctx())).toEqual({ requeueAfterMs: 10_000 });
    // The same text as when the dry run came first (the test above); the dry run only after the write failed.
    expect(condition(fc, 'one', 'Progressing')?.message).toBe(
      `phase 0 validation error: phase "p": /v1, Kind=ConfigMap ${NS}/bad: ConfigMap "bad" is invalid: data: Invalid value`,
    );
    expect(fc.calls.filter((c) => c.includes('ConfigMap'))).toEqual([
      `get ConfigMap ${NS}/bad`,
      `apply ConfigMap ${NS}/bad`,
      `dry-run ConfigMap ${NS}/bad`,
    ]);

    // A failed write its dry run passes is the write's failure, retried, as before.
    const fc2 = fakeCluster();
    fc2.refuse(`apply ConfigMap ${NS}/c`, new ApiError(500, 'InternalError', 'etcd timed out'));
    seedSet(fc2, 'two', { phases: [{ name: 'p', objects: [{ object: configMap('c') }] }] });
    await expect(reconciler(fc2).reconcile('two', ctx())).rejects.toThrow(/creating resource: etcd timed out/);
    expect(fc2.calls.filter((c) => c.includes('ConfigMap'))).toEqual([
      `get ConfigMap ${NS}/c`,
      `apply ConfigMap ${NS}/c`,
      `dry-run ConfigMap ${NS}/c`,
    ]);
    // A dry run that cannot say either leaves the write's failure as the one reported.
    fc2.refuse(`dry-run ConfigMap ${NS}/c`, new ApiError(503, 'ServiceUnavailable', 'dry run unavailable'));
    await expect(reconciler(fc2).reconcile('two', ctx())).rejects.toThrow(/creating resource: etcd timed out/);
  });

  it('lets a deleted revision go', async () => {
    const fc = fakeCluster();
    seedSet(fc, 'rev', { phases: [{ name: 'p', objects: [{ object: configMap('c') }] }] });
    const r = reconciler(fc);
    await r.reconcile('rev', ctx());
    await fc.client.delete({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterObjectSet', name: 'rev' });
    await r.reconcile('rev', ctx());
    expect(fc.live({ kind: 'ClusterObjectSet', metadata: { name: 'rev' } })).toBeUndefined();
  });
});
