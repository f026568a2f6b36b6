// Storage-version migration (pkg/shared/storageversion) against a real kube-apiserver: a CRD of
// its own group stored at v1alpha1 with objects, changed to store v1 (both served); the
// migration rewrites every object in pages and trims status.storedVersions to ["v1"].
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { migrateStoredVersions } from '../../pkg/shared/storageversion/index.ts';

const GROUP = 'storagemigration.integration.test';
const NAME = `gizmos.${GROUP}`;
const CRD_REF = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: NAME };
const OBJECTS = 7;
const schema = {
  openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
};
const crd = (storage: 'v1alpha1' | 'v1'): KubeObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: NAME },
  spec: {
    group: GROUP,
    scope: 'Cluster',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
    versions: [
      { name: 'v1alpha1', served: true, storage: storage === 'v1alpha1', schema },
      ...(storage === 'v1' ? [{ name: 'v1', served: true, storage: true, schema }] : []),
    ],
  },
});

interface CrdStatus {
  status?: { storedVersions?: string[]; conditions?: Array<{ type: string; status: string }> };
}
const storedVersions = async (kube: KubeContext): Promise<string[] | undefined> =>
  (await kube.client.get<KubeObject & CrdStatus>(CRD_REF)).status?.storedVersions;

let kube: KubeContext;
beforeAll(async () => {
  kube = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath }, { userAgent: 'olmv1-integration' });
  await kube.client.delete(CRD_REF).catch(() => undefined);
});
afterAll(async () => {
  await kube?.client.delete(CRD_REF).catch(() => undefined);
  kube?.close();
});

describe('storage-version migration of a CRD', () => {
  it('rewrites the objects stored at v1alpha1 into v1 and trims storedVersions to ["v1"]', async () => {
    await kube.client.apply(crd('v1alpha1'), { fieldManager: 'integration', force: true });
    const established = async (): Promise<boolean> =>
      ((await kube.client.get<KubeObject & CrdStatus>(CRD_REF)).status?.conditions ?? []).some(
        (c) => c.type === 'Established' && c.status === 'True',
      );
    await expect.poll(established, { timeout: 30_000, interval: 100 }).toBe(true);
    const v1alpha1 = { apiVersion: `${GROUP}/v1alpha1`, kind: 'Gizmo' };
    await expect
      .poll(
        () =>
          kube.client.list(v1alpha1).then(
            () => true,
            () => false,
          ),
        { timeout: 30_000, interval: 100 },
      )
      .toBe(true);
    for (let i = 0; i < OBJECTS; i++) await kube.client.create({ ...v1alpha1, metadata: { name: `gizmo-${i}` }, spec: { size: i } });

    await kube.client.apply(crd('v1'), { fieldManager: 'integration', force: true });
    const v1 = { apiVersion: `${GROUP}/v1`, kind: 'Gizmo' };
    await expect
      .poll(
        () =>
          kube.client.list(v1).then(
            () => true,
            () => false,
          ),
        { timeout: 30_000, interval: 100 },
      )
      .toBe(true);
    // The change alone leaves both recorded: the objects are still in etcd as v1alpha1.
    expect(await storedVersions(kube)).toEqual(['v1alpha1', 'v1']);

    const before = new Map((await kube.client.listAll(v1)).items.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
    const outcomes = await migrateStoredVersions([NAME], {
      client: kube.client,
      log: pino({ level: 'silent' }),
      signal: new AbortController().signal,
      pageSize: 3,
    });
    expect(outcomes).toEqual([{ crd: NAME, outcome: 'migrated', from: ['v1alpha1'], to: 'v1', rewritten: OBJECTS }]);
    expect(await storedVersions(kube)).toEqual(['v1']);
    const read = await kube.client.listAll(v1);
    expect(read.items.map((o) => [o.metadata.name, (o as KubeObject & { spec?: { size?: number } }).spec?.size]).sort()).toEqual(
      Array.from({ length: OBJECTS }, (_, i) => [`gizmo-${i}`, i]).sort(),
    );
    // Each object was written (the empty patch is a write only because its stored bytes were v1alpha1's).
    for (const o of read.items) expect(o.metadata.resourceVersion).not.toBe(before.get(o.metadata.name));
    // A second run finds nothing to do.
    expect(
      await migrateStoredVersions([NAME], { client: kube.client, log: pino({ level: 'silent' }), signal: new AbortController().signal }),
    ).toEqual([{ crd: NAME, outcome: 'current' }]);
  });
});
