import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../unstructured/index.ts';
import { storageMigrationPlan } from './plan.ts';

const crd = (versions: Array<{ name: string; storage: boolean }>, storedVersions?: string[], name = 'widgets.example.test'): KubeObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name, resourceVersion: '7' },
  spec: { group: 'example.test', names: { plural: 'widgets', kind: 'Widget' }, versions: versions.map((v) => ({ ...v, served: true })) },
  ...(storedVersions === undefined ? {} : { status: { storedVersions } }),
});

describe('storageMigrationPlan', () => {
  it('needs nothing when only the storage version is stored, or nothing is', () => {
    expect(storageMigrationPlan(crd([{ name: 'v1', storage: true }], ['v1']))).toBeUndefined();
    expect(storageMigrationPlan(crd([{ name: 'v1', storage: true }]))).toBeUndefined();
    expect(
      storageMigrationPlan(
        crd(
          [
            { name: 'v1alpha1', storage: false },
            { name: 'v1', storage: true },
          ],
          ['v1'],
        ),
      ),
    ).toBeUndefined();
  });

  it('plans a rewrite when an older version is still stored', () => {
    expect(
      storageMigrationPlan(
        crd(
          [
            { name: 'v1alpha1', storage: false },
            { name: 'v1', storage: true },
          ],
          ['v1alpha1', 'v1'],
        ),
      ),
    ).toEqual({
      crd: 'widgets.example.test',
      group: 'example.test',
      kind: 'Widget',
      storageVersion: 'v1',
      stale: ['v1alpha1'],
    });
    // Only the old version recorded (the storage version changed, nothing written since).
    expect(
      storageMigrationPlan(
        crd(
          [
            { name: 'v1alpha1', storage: false },
            { name: 'v1', storage: true },
          ],
          ['v1alpha1'],
        ),
      ),
    ).toMatchObject({
      stale: ['v1alpha1'],
    });
  });

  it('reports a CRD it cannot reason about instead of planning', () => {
    expect(storageMigrationPlan(crd([{ name: 'v1', storage: false }], ['v1']))).toMatch(/0 storage versions/);
    expect(storageMigrationPlan(crd([{ name: 'v1', storage: true }], ['v1'], 'gadgets.example.test'))).toMatch(/not named/);
  });
});
