// The ownership decision over a release, pure: one row per kind of live object, from what
// `readLiveOwners` would have read (the reads themselves: ownership.test.ts).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { objectIdentity, withOwnerLabels } from './objects.ts';
import { decideOwnership, type LiveMetadata, type Owner, type OwnershipVerdict } from './ownership.ts';

const OWNER: Owner = { extension: 'ext', packageName: 'pkg', installNamespace: 'ns' };
const KEPT = 'olm.operatorframework.io/kept-for-package';

function obj(apiVersion: string, kind: string, name: string, namespace?: string): KubeObject {
  return { apiVersion, kind, metadata: { name, ...(namespace === undefined ? {} : { namespace }) } };
}
const cm = (name: string): KubeObject => obj('v1', 'ConfigMap', name, 'ns');
const crd = (name: string): KubeObject => obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', name);
const clusterRole = (name: string): KubeObject => obj('rbac.authorization.k8s.io/v1', 'ClusterRole', name);
const labelsOf = (extension: string): Record<string, string> => withOwnerLabels([cm('x')], extension)[0]?.metadata.labels ?? {};
const extensionRef = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name: 'ext', uid: 'u' };
const helm = {
  labels: { 'app.kubernetes.io/managed-by': 'Helm' },
  annotations: { 'meta.helm.sh/release-name': 'ext', 'meta.helm.sh/release-namespace': 'ns' },
};

const allowed = (report: Partial<Extract<OwnershipVerdict, { kind: 'allowed' }>['report']> = {}): OwnershipVerdict => ({
  kind: 'allowed',
  report: { absent: new Set(), adopted: [], referenced: [], ...report },
});

describe('decideOwnership', () => {
  const a = cm('a');
  const w = crd('w.example.com');
  const basicUser = clusterRole('system:basic-user');
  it.each<[string, KubeObject, LiveMetadata | undefined | 'not read', OwnershipVerdict]>([
    ['absent: created', a, undefined, allowed({ absent: new Set([objectIdentity(a)]) })],
    ['ours by owner labels', a, { labels: labelsOf('ext') }, allowed()],
    ["ours by upstream Helm's metadata for this release", a, helm, allowed()],
    [
      'ours, still referenced by the extension (upstream took it over): the reference goes',
      a,
      { ...helm, ownerReferences: [extensionRef] },
      allowed({ referenced: [{ object: a, ownerReferences: [extensionRef] }] }),
    ],
    ['ours by the drift watches: not read, not judged', a, 'not read', allowed()],
    [
      "another extension's",
      a,
      { labels: labelsOf('other') },
      { kind: 'conflict', conflicts: [{ object: a, ownership: { kind: 'other-extension', extension: 'other' } }] },
    ],
    ["nobody's (made by hand)", a, { labels: { app: 'x' } }, { kind: 'conflict', conflicts: [{ object: a, ownership: { kind: 'unowned' } }] }],
    [
      "Helm's metadata for another namespace",
      a,
      { ...helm, annotations: { ...helm.annotations, 'meta.helm.sh/release-namespace': 'elsewhere' } },
      { kind: 'conflict', conflicts: [{ object: a, ownership: { kind: 'unowned' } }] },
    ],
    [
      'a system object',
      basicUser,
      { labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } },
      { kind: 'conflict', conflicts: [{ object: basicUser, ownership: { kind: 'unowned' } }] },
    ],
    [
      'a CRD an uninstall of this package kept: taken back',
      w,
      { labels: labelsOf('old'), annotations: { [KEPT]: 'pkg' } },
      allowed({ adopted: [w] }),
    ],
    [
      'a CRD kept for another package',
      w,
      { labels: labelsOf('ext'), annotations: { [KEPT]: 'another' } },
      { kind: 'conflict', conflicts: [{ object: w, ownership: { kind: 'unowned' } }] },
    ],
  ])('%s', (_case, object, live, want) => {
    const read = new Map(live === 'not read' ? [] : [[object, live] as const]);
    expect(decideOwnership([object], OWNER, read)).toEqual(want);
  });

  it("lists the conflicts in the release's order, the rest in the order read (by resource)", () => {
    const [b, c, r1, r2] = [cm('b'), cm('c'), clusterRole('r1'), clusterRole('r2')];
    const objects = [b, r1, c, r2];
    const referenced = { labels: labelsOf('ext'), ownerReferences: [extensionRef] };
    // As readLiveOwners reads them: ConfigMaps, then ClusterRoles.
    const read = (live: (LiveMetadata | undefined)[]) => new Map([b, c, r1, r2].map((o, i) => [o, live[i]] as const));
    expect(decideOwnership(objects, OWNER, read([undefined, referenced, referenced, undefined]))).toEqual(
      allowed({
        absent: new Set([objectIdentity(b), objectIdentity(r2)]),
        referenced: [c, r1].map((object) => ({ object, ownerReferences: [extensionRef] })),
      }),
    );
    const verdict = decideOwnership(objects, OWNER, read([undefined, { labels: labelsOf('other') }, {}, undefined]));
    expect(verdict.kind === 'conflict' ? verdict.conflicts.map((x) => x.object) : verdict).toEqual([r1, c]);
  });
});
