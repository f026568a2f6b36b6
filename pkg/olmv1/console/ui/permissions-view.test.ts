import { describe, expect, it } from 'vitest';
import { permissionRows } from './permissions-view.ts';

describe('permissionRows', () => {
  it('lists each rule of the ClusterRoles and Roles with its scope, in words, marking the ones an escalation warning names', () => {
    const objects = [
      { kind: 'ServiceAccount', metadata: { name: 'op-installer', namespace: 'ns' } },
      {
        kind: 'ClusterRole',
        metadata: { name: 'op-c' },
        rules: [
          { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['create', 'list'] },
          { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], resourceNames: ['x'], verbs: ['bind'] },
          { nonResourceURLs: ['/metrics'], verbs: ['get'] },
        ],
      },
      { kind: 'Role', metadata: { name: 'op-r', namespace: 'ns' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] },
    ];
    expect(
      permissionRows(objects, [
        { subject: 'ClusterRole "op-c" rules[1] {apiGroups: ...}' },
        { subject: 'Role "op-r" in namespace "ns" rules[0] {...}' },
      ]),
    ).toEqual([
      { scope: 'cluster', role: 'ClusterRole op-c', rule: 'create, list customresourcedefinitions.apiextensions.k8s.io', escalates: false },
      { scope: 'cluster', role: 'ClusterRole op-c', rule: 'bind clusterroles.rbac.authorization.k8s.io (names: x)', escalates: true },
      { scope: 'cluster', role: 'ClusterRole op-c', rule: 'get /metrics', escalates: false },
      { scope: 'ns', role: 'Role op-r', rule: 'get configmaps', escalates: true },
    ]);
  });
});
