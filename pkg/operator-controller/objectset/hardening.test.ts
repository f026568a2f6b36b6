// The ClusterObjectSet reconcile's checks before anything is written (issue 69, decision 0126):
// kinds the cluster does not serve, objects of the system, who may write a revision, and a
// revision of an extension being deleted; and teardown leaving objects of the system alone.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parseClusterObjectSet, type ClusterObjectSet, type Condition } from '../../shared/api/index.ts';
import type { ReconcileContext } from '../../shared/controller/index.ts';
import { ApiError, type KubeObject } from '../../shared/kube/index.ts';
import { widgetCrd } from '../../../test/support/crd-builders.ts';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import { clusterObjectSetReconciler } from './controller.ts';
import { everyRevisionAs, revisionWriters, type WriterFor } from './writer.ts';
import { RevisionWrites } from './writes.ts';

const NS = 'ns';
const CREATED = '2026-01-01T00:00:00Z';
const OWNER = 'olm.operatorframework.io/owner-name';
const ctx = (): ReconcileContext => ({ signal: new AbortController().signal, log: pino({ level: 'silent' }) });
const configMap = (name: string, namespace = NS, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, ...(labels === undefined ? {} : { labels }) },
  data: { k: 'v' },
});
const WIDGET_CRD = widgetCrd();
const widget: KubeObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: NS } };

function seedSet(
  fc: FakeCluster,
  name: string,
  spec: Partial<ClusterObjectSet['spec']> & Pick<ClusterObjectSet['spec'], 'phases'>,
  metadata: object = {},
): void {
  fc.seed({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterObjectSet',
    metadata: { name, generation: 1, creationTimestamp: CREATED, annotations: { 'olm.operatorframework.io/bundle-version': '1.0.0' }, ...metadata },
    spec: { lifecycleState: 'Active', revision: 1, collisionProtection: 'Prevent', ...spec },
  });
}

function condition(fc: FakeCluster, name: string, type: string): Pick<Condition, 'status' | 'reason' | 'message'> | undefined {
  const parsed = parseClusterObjectSet(fc.live({ kind: 'ClusterObjectSet', metadata: { name } }));
  if (!parsed.ok) throw new Error(parsed.error);
  const c = parsed.value.status?.conditions?.find((x) => x.type === type);
  return c === undefined ? undefined : { status: c.status, reason: c.reason, message: c.message };
}

const reconciler = (fc: FakeCluster, writerFor: WriterFor = everyRevisionAs(fc.client)) =>
  clusterObjectSetReconciler({ client: fc.client, writerFor }, { probeRequeueMs: 1000, clock: () => new Date(CREATED) });

/** Writes of objects (the revision's own status and finalizer aside). */
const objectWrites = (fc: FakeCluster): string[] => fc.writes.filter((w) => !w.includes('ClusterObjectSet'));

describe('a revision with a kind the cluster does not serve', () => {
  it("applies nothing, with upstream's message", async () => {
    const fc = fakeCluster({ unserved: ['example.com/v1/Widget'] });
    seedSet(fc, 'rev', {
      phases: [
        { name: 'first', objects: [{ object: configMap('first') }] },
        { name: 'second', objects: [{ object: widget }] },
      ],
    });
    await expect(reconciler(fc).reconcile('rev', ctx())).rejects.toThrow('establish watch: no matches for kind "Widget" in version "example.com/v1"');
    expect(objectWrites(fc)).toEqual([]);
    expect(condition(fc, 'rev', 'Progressing')).toEqual({
      status: 'True',
      reason: 'Retrying',
      message: 'establish watch: no matches for kind "Widget" in version "example.com/v1"',
    });
  });

  it('is not missing when a CRD of an earlier phase defines it: that phase is applied', async () => {
    const fc = fakeCluster({ unserved: ['example.com/v1/Widget'] });
    seedSet(fc, 'rev', {
      phases: [
        { name: 'crds', objects: [{ object: WIDGET_CRD }] },
        { name: 'deploy', objects: [{ object: widget }] },
      ],
    });
    // Applied; the next phase then meets the kind unserved in this fake (a cluster serves it once the CRD is established).
    await expect(reconciler(fc).reconcile('rev', ctx())).rejects.toThrow('validating: no matches for kind "Widget"');
    expect(objectWrites(fc)).toEqual(['apply CustomResourceDefinition widgets.example.com']);
  });
});

describe('objects of the system', () => {
  it('a revision naming one is refused whole, whatever its collision protection', async () => {
    const fc = fakeCluster();
    const basicUser = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'system:basic-user' }, rules: [] };
    fc.seed(basicUser);
    seedSet(fc, 'rev', { collisionProtection: 'None', phases: [{ name: 'p', objects: [{ object: configMap('mine') }, { object: basicUser }] }] });
    expect(await reconciler(fc).reconcile('rev', ctx())).toEqual({});
    expect(objectWrites(fc)).toEqual([]);
    expect(condition(fc, 'rev', 'Progressing')).toEqual({
      status: 'False',
      reason: 'Blocked',
      message:
        'revision refused, nothing of it is applied: ClusterRole system:basic-user belongs to the system (its name starts with "system:"): ' +
        'a revision never adopts, changes or deletes it, whatever its collision protection',
    });
  });

  it('a live object labelled kubernetes.io/bootstrapping is never adopted', async () => {
    const fc = fakeCluster();
    fc.seed(configMap('boot', NS, { 'kubernetes.io/bootstrapping': 'rbac-defaults' }));
    seedSet(fc, 'rev', { collisionProtection: 'None', phases: [{ name: 'p', objects: [{ object: configMap('boot') }] }] });
    expect(await reconciler(fc).reconcile('rev', ctx())).toEqual({ requeueAfterMs: 10_000 });
    expect(objectWrites(fc)).toEqual([]);
    expect(condition(fc, 'rev', 'Progressing')?.message).toBe(
      'revision object collisions in phase 0\nConfigMap ns/boot belongs to the system (it is labelled kubernetes.io/bootstrapping): ' +
        'a revision never adopts, changes or deletes it, whatever its collision protection',
    );
  });

  it('teardown neither deletes nor releases one', async () => {
    const fc = fakeCluster();
    seedSet(fc, 'old', {
      lifecycleState: 'Archived',
      phases: [{ name: 'p', objects: [{ object: configMap('boot') }, { object: configMap('mine') }] }],
    });
    const uid = fc.live({ kind: 'ClusterObjectSet', metadata: { name: 'old' } })?.metadata.uid ?? '';
    const ownedBy = [{ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterObjectSet', name: 'old', uid, controller: true }];
    const annotations = { 'olm.operatorframework.io/revision': '1' };
    fc.seed({
      ...configMap('boot', NS, { 'kubernetes.io/bootstrapping': 'x' }),
      metadata: { ...configMap('boot', NS, { 'kubernetes.io/bootstrapping': 'x' }).metadata, ownerReferences: ownedBy, annotations },
    });
    fc.seed({ ...configMap('mine'), metadata: { ...configMap('mine').metadata, ownerReferences: ownedBy, annotations } });
    await reconciler(fc).reconcile('old', ctx());
    expect(objectWrites(fc)).toEqual([`delete ConfigMap ${NS}/mine`]);
    expect(fc.live(configMap('boot'))?.metadata.ownerReferences).toEqual(ownedBy);
  });
});

describe('who writes a revision', () => {
  const extension = (deleting = false) => ({ uid: 'ext-uid', deleting });
  const controllerRef = {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    name: 'ext',
    uid: 'ext-uid',
    controller: true,
    blockOwnerDeletion: true,
  };
  const phases = [{ name: 'p', objects: [{ object: configMap('a') }] }];

  it('a revision no extension made is refused without an identity for user-made revisions, nothing written', async () => {
    const fc = fakeCluster();
    seedSet(fc, 'user', { phases }, { labels: { [OWNER]: 'ext' } });
    const writerFor = revisionWriters({ extensionOf: () => extension(), installerClient: () => fc.client, writes: new RevisionWrites() });
    expect(await reconciler(fc, writerFor).reconcile('user', ctx())).toEqual({});
    expect(objectWrites(fc)).toEqual([]);
    expect(condition(fc, 'user', 'Progressing')).toMatchObject({ status: 'False', reason: 'Blocked' });
    expect(condition(fc, 'user', 'Progressing')?.message).toContain('start operator-controller with --user-revision-service-account=NAMESPACE/NAME');
  });

  it('is written as the configured identity, without the owner label it claims, and archives nothing of the extension it names', async () => {
    const fc = fakeCluster();
    seedSet(
      fc,
      'ext-1',
      { phases: [{ name: 'p', objects: [{ object: configMap('b') }] }] },
      { labels: { [OWNER]: 'ext' }, ownerReferences: [controllerRef] },
    );
    seedSet(fc, 'user', { revision: 2, phases }, { labels: { [OWNER]: 'ext' } });
    const used: string[] = [];
    const writerFor = revisionWriters({
      extensionOf: () => extension(),
      installerClient: () => (used.push('installer'), fc.client),
      userClient: () => (used.push('user'), fc.client),
      writes: new RevisionWrites(),
    });
    await reconciler(fc, writerFor).reconcile('user', ctx());
    expect(used).toEqual(['user']);
    // Written with an empty owner-name label, as upstream writes a revision's without one.
    expect(fc.live(configMap('a'))?.metadata.labels?.[OWNER]).toBe('');
    expect(fc.live({ kind: 'ClusterObjectSet', metadata: { name: 'ext-1' } })?.['spec']).toMatchObject({ lifecycleState: 'Active' });
  });

  it("reads a referenced Secret of operator-controller's namespace as the user-made revision's identity, not its own", async () => {
    const fc = fakeCluster();
    fc.seed({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'pull-secret', namespace: 'olmv1-system' },
      immutable: true,
      data: { obj: Buffer.from(JSON.stringify(configMap('leak'))).toString('base64') },
    });
    seedSet(fc, 'user', { phases: [{ name: 'p', objects: [{ ref: { name: 'pull-secret', key: 'obj' } }] }] });
    const forbidden = new ApiError(
      403,
      'Forbidden',
      'secrets "pull-secret" is forbidden: User "system:serviceaccount:u:user" cannot get resource "secrets"',
    );
    const user = {
      ...fc.client,
      get: ((ref: { kind: string }, o?: object) =>
        ref.kind === 'Secret' ? Promise.reject(forbidden) : fc.client.get(ref as never, o as never)) as typeof fc.client.get,
    };
    const writerFor = revisionWriters({
      extensionOf: () => undefined,
      installerClient: () => fc.client,
      userClient: () => user,
      writes: new RevisionWrites(),
    });
    const r = clusterObjectSetReconciler(
      { client: fc.client, writerFor, systemNamespace: 'olmv1-system' },
      { probeRequeueMs: 1000, clock: () => new Date(CREATED) },
    );
    await r.reconcile('user', ctx()).catch(() => undefined);
    expect(fc.live(configMap('leak'))).toBeUndefined();
    expect(condition(fc, 'user', 'Progressing')?.message).toContain('cannot get resource "secrets"');
  });

  it('a revision only labelled as the extension’s is not its sibling: not archived when the extension’s next one succeeds', async () => {
    const fc = fakeCluster();
    seedSet(fc, 'forged', { phases: [{ name: 'p', objects: [{ object: configMap('f') }] }] }, { labels: { [OWNER]: 'ext' } });
    seedSet(fc, 'ext-2', { revision: 2, phases }, { labels: { [OWNER]: 'ext' }, ownerReferences: [controllerRef] });
    const writerFor = revisionWriters({ extensionOf: () => extension(), installerClient: () => fc.client, writes: new RevisionWrites() });
    await reconciler(fc, writerFor).reconcile('ext-2', ctx());
    expect(condition(fc, 'ext-2', 'Succeeded')?.status).toBe('True');
    expect(fc.live({ kind: 'ClusterObjectSet', metadata: { name: 'forged' } })?.['spec']).toMatchObject({ lifecycleState: 'Active' });
  });

  it("one of an extension being deleted writes nothing and reports nothing; its extension's installer otherwise", async () => {
    const fc = fakeCluster();
    seedSet(fc, 'ext-1', { phases }, { labels: { [OWNER]: 'ext' }, ownerReferences: [controllerRef] });
    let deleting = true;
    const writerFor = revisionWriters({ extensionOf: () => extension(deleting), installerClient: () => fc.client, writes: new RevisionWrites() });
    expect(await reconciler(fc, writerFor).reconcile('ext-1', ctx())).toEqual({});
    expect(fc.writes).toEqual([]);
    deleting = false;
    await reconciler(fc, writerFor).reconcile('ext-1', ctx());
    expect(fc.live(configMap('a'))?.metadata.labels?.[OWNER]).toBe('ext');
  });

  it('stops writing mid-rollout once its extension is being deleted, without a report', async () => {
    const fc = fakeCluster();
    seedSet(
      fc,
      'ext-1',
      { phases: [{ name: 'p', objects: [{ object: configMap('a') }, { object: configMap('b') }] }] },
      { labels: { [OWNER]: 'ext' }, ownerReferences: [controllerRef] },
    );
    let deleting = false;
    let applies = 0;
    const installer = {
      ...fc.client,
      apply: ((obj: KubeObject, o: never) => {
        if ((o as { dryRun?: boolean }).dryRun !== true && ++applies === 1) deleting = true;
        return fc.client.apply(obj, o);
      }) as typeof fc.client.apply,
    };
    const writerFor = revisionWriters({ extensionOf: () => extension(deleting), installerClient: () => installer, writes: new RevisionWrites() });
    expect(await reconciler(fc, writerFor).reconcile('ext-1', ctx())).toEqual({});
    expect(objectWrites(fc)).toEqual([`apply ConfigMap ${NS}/a`]);
    expect(condition(fc, 'ext-1', 'Progressing')).toBeUndefined();
  });
});

describe('an object created by someone else between the read and the create', () => {
  it('is not taken over: the create is refused and the next reconcile judges it', async () => {
    const fc = fakeCluster();
    seedSet(fc, 'rev', { phases: [{ name: 'p', objects: [{ object: configMap('a') }, { object: configMap('b') }] }] });
    // Both are read absent; while the phase's dry runs go out, another writer creates a.
    const foreign = { ...configMap('a'), data: { owner: 'someone else' } };
    const installer = {
      ...fc.client,
      apply: (async (obj: KubeObject, o: never) => {
        if ((o as { dryRun?: boolean }).dryRun === true && obj.metadata.name === 'b' && fc.live(foreign) === undefined) fc.seed(foreign);
        return fc.client.apply(obj, o);
      }) as typeof fc.client.apply,
    };
    await expect(reconciler(fc, everyRevisionAs(installer)).reconcile('rev', ctx())).rejects.toThrow(
      'creating resource: it was created by someone else since it was read',
    );
    expect(fc.live(foreign)?.['data']).toEqual({ owner: 'someone else' });
    expect(objectWrites(fc)).toEqual([`apply ConfigMap ${NS}/b`]);
  });
});
