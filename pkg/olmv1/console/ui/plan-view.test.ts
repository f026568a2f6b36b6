import { describe, expect, it } from 'vitest';
import { planObjectRows, planPermissionRows } from './plan-view.ts';

const changes = {
  objects: {
    added: ['Deployment default/op-controller', 'ClusterRole op-abc'],
    removed: ['ConfigMap default/old'],
    changed: [{ object: 'ServiceAccount default/op', lines: ['metadata.labels.a: "1" -> "2"'] }],
  },
  permissions: {
    gained: [{ scope: 'cluster', role: 'ClusterRole op-abc', rule: 'get pods', escalates: false }],
    lost: [{ scope: 'default', role: 'Role op-r', rule: 'create secrets', escalates: true }],
  },
};

describe('planObjectRows', () => {
  it('splits each object label into kind, namespace and name, added then changed then removed, with the diff lines of a changed one', () => {
    expect(planObjectRows(changes)).toEqual([
      { kind: 'Deployment', namespace: 'default', name: 'op-controller', change: 'added', lines: [] },
      { kind: 'ClusterRole', namespace: '', name: 'op-abc', change: 'added', lines: [] },
      { kind: 'ServiceAccount', namespace: 'default', name: 'op', change: 'changed', lines: ['metadata.labels.a: "1" -> "2"'] },
      { kind: 'ConfigMap', namespace: 'default', name: 'old', change: 'removed', lines: [] },
    ]);
  });
});

describe('planPermissionRows', () => {
  it('lists the gained rules as added and the lost ones as removed', () => {
    expect(planPermissionRows(changes).map((r) => [r.change, r.scope, r.role, r.rule, r.escalates])).toEqual([
      ['added', 'cluster', 'ClusterRole op-abc', 'get pods', false],
      ['removed', 'default', 'Role op-r', 'create secrets', true],
    ]);
  });
});
