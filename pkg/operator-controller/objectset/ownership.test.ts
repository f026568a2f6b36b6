import { describe, expect, it } from 'vitest';
import { CollisionProtection, type ClusterObjectSet } from '../../shared/api/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import {
  controllerReference,
  controlSituation,
  decideObject,
  decideTeardown,
  desiredObject,
  effectiveProtection,
  keptForPackageOf,
  type ControlSituation,
  type ObjectAction,
} from './ownership.ts';

const cos = (name: string, uid: string, revision: number): ClusterObjectSet => ({
  metadata: { name, uid, labels: { 'olm.operatorframework.io/owner-name': 'ext' } },
  spec: { lifecycleState: 'Active', revision, phases: [], collisionProtection: 'Prevent' },
});

const rev1 = cos('ext-1', 'u1', 1);
const rev2 = cos('ext-2', 'u2', 2);

describe('decideObject', () => {
  const { Prevent, IfNoController, None } = CollisionProtection;
  // [situation, protection, live revision, our revision, written by a revision before, action]
  const table: Array<[ControlSituation, CollisionProtection, number, number, boolean, ObjectAction]> = [
    ['IsController', Prevent, 1, 1, true, 'apply'],
    ['UnknownController', Prevent, 0, 1, false, 'collision'],
    ['UnknownController', IfNoController, 0, 1, false, 'collision'],
    ['UnknownController', None, 0, 1, false, 'adopt'],
    ['NoController', Prevent, 0, 1, false, 'collision'],
    ['NoController', IfNoController, 0, 1, false, 'adopt'],
    ['NoController', None, 0, 1, false, 'adopt'],
    ['NoController', IfNoController, 1, 2, true, 'collision'],
    ['SiblingIsController', Prevent, 3, 2, true, 'progressed'],
    ['SiblingIsController', Prevent, 1, 2, true, 'adopt'],
    ['SiblingIsController', Prevent, 2, 2, true, 'collision'],
  ];
  it.each(table)('%s under %s (live rev %d, ours %d, written before %s): %s', (situation, cp, live, ours, wrote, want) => {
    expect(decideObject(situation, cp, live, ours, wrote)).toBe(want);
  });
});

describe('controlSituation', () => {
  const obj = (owners: KubeObject['metadata']['ownerReferences']): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', ownerReferences: owners },
  });
  it('tells our revision, a sibling, a stranger and no controller apart', () => {
    const siblings = new Set(['u1']);
    const owner = controllerReference(rev2);
    expect(controlSituation(obj([controllerReference(rev2)]), owner, siblings).situation).toBe('IsController');
    expect(controlSituation(obj([controllerReference(rev1)]), owner, siblings).situation).toBe('SiblingIsController');
    const stranger = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'x', controller: true };
    expect(controlSituation(obj([stranger]), owner, siblings)).toEqual({ situation: 'UnknownController', controller: stranger });
    expect(controlSituation(obj([{ ...stranger, controller: false }]), owner, siblings).situation).toBe('NoController');
  });
});

describe('desiredObject', () => {
  const manifest: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'ns', labels: { a: 'b' } },
    data: { k: 'v' },
  };
  it('labels, annotates and owns the manifest, leaving it unchanged', () => {
    const d = desiredObject(rev2, manifest);
    expect(d.metadata.labels).toEqual({
      a: 'b',
      'olm.operatorframework.io/owner-name': 'ext',
      'app.kubernetes.io/managed-by': 'olm.operatorframework.io',
    });
    expect(d.metadata.annotations).toEqual({ 'olm.operatorframework.io/revision': '2' });
    expect(d.metadata.ownerReferences).toEqual([
      { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterObjectSet', name: 'ext-2', uid: 'u2', controller: true, blockOwnerDeletion: true },
    ]);
    expect(manifest.metadata.annotations).toBeUndefined();
  });
  it('keeps the owners of an adopted object, none of them controller', () => {
    const live: KubeObject = { ...manifest, metadata: { ...manifest.metadata, ownerReferences: [controllerReference(rev1)] } };
    expect(desiredObject(rev2, manifest, live).metadata.ownerReferences).toEqual([
      { ...controllerReference(rev1), controller: false },
      controllerReference(rev2),
    ]);
  });
});

describe('decideTeardown', () => {
  const live = (revision: string, owners: KubeObject['metadata']['ownerReferences']): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', annotations: { 'olm.operatorframework.io/revision': revision }, ownerReferences: owners },
  });
  it('deletes what is still its own', () => {
    expect(decideTeardown(live('1', [controllerReference(rev1)]), controllerReference(rev1), 1)).toBe('delete');
  });
  it('releases what a later revision took over', () => {
    const taken = live('2', [{ ...controllerReference(rev1), controller: false }, controllerReference(rev2)]);
    expect(decideTeardown(taken, controllerReference(rev1), 1)).toEqual({ release: [controllerReference(rev2)] });
    expect(decideTeardown(live('2', [controllerReference(rev2)]), controllerReference(rev1), 1)).toEqual({ release: undefined });
  });
  it('never deletes a CRD of its own: it is released, its custom resources kept', () => {
    const crd = { ...live('1', [controllerReference(rev1)]), apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
    expect(decideTeardown(crd, controllerReference(rev1), 1)).toEqual({ release: [] });
  });
});

describe('effectiveProtection', () => {
  it('takes the most specific level, Prevent by default', () => {
    expect(effectiveProtection()).toBe('Prevent');
    expect(effectiveProtection('None', undefined, undefined)).toBe('None');
    expect(effectiveProtection('None', 'IfNoController', undefined)).toBe('IfNoController');
    expect(effectiveProtection('None', 'IfNoController', 'Prevent')).toBe('Prevent');
  });
});

describe('keptForPackageOf', () => {
  const withPackage = (pkg: string): ClusterObjectSet => ({
    ...rev1,
    metadata: { ...rev1.metadata, annotations: { 'olm.operatorframework.io/package-name': pkg } },
  });
  const kept = (kind: string, annotations: Record<string, string>): KubeObject => ({
    apiVersion: kind === 'CustomResourceDefinition' ? 'apiextensions.k8s.io/v1' : 'v1',
    kind,
    metadata: { name: 'widgets.example.com', annotations: { 'olm.operatorframework.io/revision': '1', ...annotations } },
  });
  it('is true only for a CRD kept for the revision package', () => {
    const mark = { 'olm.operatorframework.io/kept-for-package': 'pkg' };
    expect(keptForPackageOf(kept('CustomResourceDefinition', mark), withPackage('pkg'))).toBe(true);
    expect(keptForPackageOf(kept('CustomResourceDefinition', mark), withPackage('other'))).toBe(false);
    expect(keptForPackageOf(kept('CustomResourceDefinition', {}), withPackage('pkg'))).toBe(false);
    expect(keptForPackageOf(kept('CustomResourceDefinition', mark), rev1)).toBe(false);
    expect(keptForPackageOf(kept('ConfigMap', mark), withPackage('pkg'))).toBe(false);
    expect(keptForPackageOf(kept('CustomResourceDefinition', { 'olm.operatorframework.io/kept-for-package': '' }), withPackage(''))).toBe(false);
  });
});
