import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kube/index.ts';
import { Manifest, type Release } from '../../release/index.ts';
import {
  DEFAULT_PROGRESSION_PROBES,
  MIGRATED_FROM_HELM_LABEL,
  asRevision,
  desiredRevision,
  inlineObjects,
  keptCrdNames,
  migratedRevision,
  nextRevisionNumber,
  revisionObject,
  revisionsToCollect,
  sameRevision,
  sortRevisions,
  type ObjectSetManifest,
} from './revision.ts';
import type { DesiredRevision } from '../revision.ts';

const owner = { name: 'test-extension', uid: 'ce-uid' };
const bundle = { package: 'test-package', name: 'test-package.v1.0.0', version: '1.0.0', image: 'quay.io/test/bundle:v1.0.0' };

const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'test-deployment',
    namespace: 'test-ns',
    labels: { 'my-label': 'my-label-value', 'olm.operatorframework.io/owner-name': 'someone-else' },
    annotations: { 'my-annotation': 'my-annotation-value', 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
    finalizers: ['test'],
    ownerReferences: [{ apiVersion: 'v1', kind: 'TestOwner', name: 'o', uid: 'u' }],
    creationTimestamp: '2026-01-01T00:00:00Z',
    uid: '1a2b3c4d',
    resourceVersion: '12345',
    generation: 123,
    managedFields: [{ manager: 'test-manager' }],
  },
  spec: { replicas: 1 },
  status: { replicas: 3 },
};
const service: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'test-service' } };

const desired = (over: Partial<DesiredRevision> = {}): DesiredRevision => ({
  extension: owner.name,
  extensionUID: owner.uid,
  installNamespace: 'test-ns',
  bundle,
  manifest: Manifest.ofObjects([deployment, service]),
  properties: [],
  ...over,
});

const OWNER_LABELS = { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'test-extension' };
const OBJECT_ANNOTATIONS = { 'olm.operatorframework.io/bundle-version': '1.0.0', 'olm.operatorframework.io/package-name': 'test-package' };

describe('revisionObject', () => {
  it('drops status and all metadata but name, namespace, labels and annotations; merges ours over theirs', () => {
    expect(revisionObject(deployment, OWNER_LABELS, OBJECT_ANNOTATIONS)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'test-deployment',
        namespace: 'test-ns',
        labels: { 'my-label': 'my-label-value', ...OWNER_LABELS },
        annotations: { 'my-annotation': 'my-annotation-value', ...OBJECT_ANNOTATIONS },
      },
      spec: { replicas: 1 },
    });
    // the input is left alone
    expect(deployment.status).toEqual({ replicas: 3 });
    expect(deployment.metadata.uid).toBe('1a2b3c4d');
  });

  it('writes no empty labels or annotations', () => {
    const bare: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
    };
    expect(revisionObject(bare, {}, {})).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: {} });
  });
});

describe('desiredRevision', () => {
  it('is upstream revision of a bundle', () => {
    const set = desiredRevision(owner, desired(), 3);
    expect(set.apiVersion).toBe('olm.operatorframework.io/v1');
    expect(set.kind).toBe('ClusterObjectSet');
    expect(set.metadata).toEqual({
      name: 'test-extension-3',
      labels: OWNER_LABELS,
      annotations: {
        'olm.operatorframework.io/bundle-name': 'test-package.v1.0.0',
        'olm.operatorframework.io/package-name': 'test-package',
        'olm.operatorframework.io/bundle-version': '1.0.0',
        'olm.operatorframework.io/bundle-reference': 'quay.io/test/bundle:v1.0.0',
      },
      ownerReferences: [
        {
          apiVersion: 'olm.operatorframework.io/v1',
          kind: 'ClusterExtension',
          name: 'test-extension',
          uid: 'ce-uid',
          blockOwnerDeletion: true,
          controller: true,
        },
      ],
    });
    expect(set.spec).toMatchObject({
      lifecycleState: 'Active',
      revision: 3,
      collisionProtection: 'Prevent',
      progressionProbes: DEFAULT_PROGRESSION_PROBES,
    });
    expect(set.spec.progressDeadlineMinutes).toBeUndefined();
    expect(set.spec.phases.map((p) => [p.name, p.objects.map((o) => (o.object?.['metadata'] as { name: string }).name)])).toEqual([
      ['infrastructure', ['test-service']],
      ['deploy', ['test-deployment']],
    ]);
    expect(set.spec.phases[1]?.objects[0]?.object).toEqual(revisionObject(deployment, OWNER_LABELS, OBJECT_ANNOTATIONS));
  });

  it.each([
    ['set', 10, 10],
    ['unset', undefined, undefined],
    ['zero', 0, undefined],
  ])('progressDeadlineMinutes %s', (_name, given, want) => {
    expect(desiredRevision({ ...owner, progressDeadlineMinutes: given }, desired(), 1).spec.progressDeadlineMinutes).toBe(want);
  });

  it('annotates the release, the properties (Go JSON, in order) and our digest when there are any', () => {
    const set = desiredRevision(
      owner,
      desired({
        bundle: { ...bundle, release: '2', digestRef: 'quay.io/test/bundle@sha256:abc' },
        properties: [
          { type: 'olm.bundle.property', value: 'a<b' },
          { type: 'olm.package', value: { packageName: 'p', version: '1.0.0' } },
        ],
      }),
      1,
    );
    expect(set.metadata.annotations).toMatchObject({
      'olm.operatorframework.io/bundle-release': '2',
      'olm.properties': '[{"type":"olm.bundle.property","value":"a\\u003cb"},{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]',
      'olm.operatorframework.io/bundle-digest-reference': 'quay.io/test/bundle@sha256:abc',
    });
    // objects carry the version and package, not the release (only a migrated revision does)
    expect((set.spec.phases[0]?.objects[0]?.object?.['metadata'] as { annotations: unknown }).annotations).toEqual(OBJECT_ANNOTATIONS);
  });

  it('writes no owner reference for an extension without uid', () => {
    expect(desiredRevision({ name: 'x', uid: '' }, desired(), 1).metadata.ownerReferences).toBeUndefined();
  });

  it('takes back exactly the kept CRDs named: IfNoController on those objects, Prevent for the rest', () => {
    const crd = (name: string): KubeObject => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name } });
    // A ConfigMap of the same name as a kept CRD is not a CRD: never taken back.
    const sameName: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept.example.com', namespace: 'test-ns' } };
    const manifest = Manifest.ofObjects([crd('kept.example.com'), crd('other.example.com'), sameName, service]);
    const set = desiredRevision(owner, desired({ manifest }), 2, new Set(['kept.example.com']));
    expect(set.spec.collisionProtection).toBe('Prevent');
    const protections = set.spec.phases.flatMap((p) =>
      p.objects.map((o) => [(o.object as KubeObject).kind, (o.object as KubeObject).metadata.name, o.collisionProtection]),
    );
    expect(protections).toEqual(
      expect.arrayContaining([
        ['CustomResourceDefinition', 'kept.example.com', 'IfNoController'],
        ['CustomResourceDefinition', 'other.example.com', undefined],
        ['ConfigMap', 'kept.example.com', undefined],
        ['Service', 'test-service', undefined],
      ]),
    );
    expect(protections).toHaveLength(4);
    // Without kept CRDs the revision is upstream's, and its own kept names read back for a comparison.
    const plain = desiredRevision(owner, desired({ manifest }), 2);
    expect(plain.spec.phases.flatMap((p) => p.objects.filter((o) => o.collisionProtection !== undefined))).toEqual([]);
    expect(keptCrdNames(set, inlineObjects(plain))).toEqual(new Set(['kept.example.com']));
    expect(keptCrdNames(plain, inlineObjects(plain))).toEqual(new Set());
    expect(sameRevision(set, desiredRevision(owner, desired({ manifest }), 2, keptCrdNames(set, inlineObjects(plain))))).toBe(true);
    expect(sameRevision(set, plain)).toBe(false);
  });
});

describe('migratedRevision', () => {
  const record: Release = {
    extension: owner.name,
    extensionUID: owner.uid,
    revision: 4,
    status: 'deployed',
    bundle: { ...bundle, release: '' },
    manifest: Manifest.ofText(
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns","uid":"1a2b","resourceVersion":"9","labels":{"my-label":"my-value"}},"status":{"x":1}}\n{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"ns"}}\n',
      'test',
    ),
    properties: [{ type: 'olm.package', value: {} }],
    description: 'Install complete',
  };

  it('is revision 1 of the record objects, adopting them (collision protection None), labelled migrated', () => {
    const set = migratedRevision(owner, record);
    expect(set.metadata.name).toBe('test-extension-1');
    expect(set.metadata.labels).toEqual({ ...OWNER_LABELS, [MIGRATED_FROM_HELM_LABEL]: 'true' });
    expect(set.metadata.annotations).toEqual({
      'olm.operatorframework.io/bundle-name': 'test-package.v1.0.0',
      'olm.operatorframework.io/package-name': 'test-package',
      'olm.operatorframework.io/bundle-version': '1.0.0',
      'olm.operatorframework.io/bundle-reference': 'quay.io/test/bundle:v1.0.0',
      // present, though empty: upstream copies the key when the record has it
      'olm.operatorframework.io/bundle-release': '',
    });
    expect(set.spec).toMatchObject({ revision: 1, lifecycleState: 'Active', collisionProtection: 'None' });
    expect(set.spec.phases).toEqual([
      {
        name: 'configuration',
        objects: [
          {
            object: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: {
                name: 'c',
                namespace: 'ns',
                labels: { 'my-label': 'my-value', ...OWNER_LABELS },
                annotations: { ...OBJECT_ANNOTATIONS, 'olm.operatorframework.io/bundle-release': '' },
              },
            },
          },
          {
            object: {
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: {
                name: 's',
                namespace: 'ns',
                labels: OWNER_LABELS,
                annotations: { ...OBJECT_ANNOTATIONS, 'olm.operatorframework.io/bundle-release': '' },
              },
            },
          },
        ],
      },
    ]);
  });
});

const stored = (revision: number, lifecycleState: 'Active' | 'Archived' = 'Active'): ObjectSetManifest => ({
  ...desiredRevision(owner, desired(), revision),
  spec: { ...desiredRevision(owner, desired(), revision).spec, lifecycleState },
});

describe('sameRevision', () => {
  const current = stored(2);
  it.each<[string, (s: ObjectSetManifest) => ObjectSetManifest, boolean]>([
    ['identical', (s) => s, true],
    [
      'other annotations, labels, probes, deadline (mutable)',
      (s) => ({ ...s, metadata: { ...s.metadata, annotations: {} }, spec: { ...s.spec, progressionProbes: [], progressDeadlineMinutes: 30 } }),
      true,
    ],
    ['another revision number', (s) => ({ ...s, spec: { ...s.spec, revision: 3 } }), false],
    ['another collision protection', (s) => ({ ...s, spec: { ...s.spec, collisionProtection: 'None' } }), false],
    ['one object fewer', (s) => ({ ...s, spec: { ...s.spec, phases: s.spec.phases.slice(1) } }), false],
    [
      'a changed object',
      (s) => ({
        ...s,
        spec: {
          ...s.spec,
          phases: s.spec.phases.map((p) => ({ ...p, objects: p.objects.map((o) => ({ object: { ...o.object, spec: { replicas: 2 } } })) })),
        },
      }),
      false,
    ],
    [
      'a ref instead of the object',
      (s) => ({
        ...s,
        spec: { ...s.spec, phases: s.spec.phases.map((p) => ({ ...p, objects: p.objects.map(() => ({ ref: { name: 'a', key: 'b' } })) })) },
      }),
      false,
    ],
  ])('%s: %s', (_name, change, want) => {
    expect(sameRevision(current, change(current))).toBe(want);
  });

  it('is never an archived revision (it cannot be made Active again)', () => {
    expect(sameRevision(stored(2, 'Archived'), stored(2))).toBe(false);
  });

  it('compares a desired revision renamed as the current one', () => {
    const renamed = asRevision(desiredRevision(owner, desired(), 9), { metadata: { name: 'odd-name' }, spec: { revision: 2 } });
    expect(renamed.metadata.name).toBe('odd-name');
    expect(sameRevision(current, renamed)).toBe(true);
  });
});

describe('DEFAULT_PROGRESSION_PROBES', () => {
  it('are the probes the ClusterObjectSet controller knows as the built-in ones', async () => {
    const objectset = await import('../../objectset/index.ts');
    expect(DEFAULT_PROGRESSION_PROBES).toEqual(objectset.DEFAULT_PROGRESSION_PROBES);
  });
});

describe('revision numbers and retention', () => {
  it('numbers the next revision after the newest', () => {
    expect(nextRevisionNumber([])).toBe(1);
    expect(nextRevisionNumber(sortRevisions([stored(3), stored(1), stored(7)]))).toBe(8);
  });

  it('collects archived revisions beyond the five newest, never active ones', () => {
    const archived = [1, 2, 3, 4, 5, 6].map((n) => stored(n, 'Archived'));
    expect(revisionsToCollect(archived)).toEqual(['test-extension-1']);
    const mixed = [stored(1, 'Archived'), stored(2), stored(3), stored(4, 'Archived'), stored(5), stored(6), stored(7)];
    expect(revisionsToCollect(mixed)).toEqual(['test-extension-1']);
    expect(revisionsToCollect(archived.slice(0, 5))).toEqual([]);
  });
});
